// The live page: reads the console's event stream and draws each metric
// as lines over time, one per series. Everything recorded (tag values,
// outcomes) is placed with textContent and attributes only, never as
// markup; the page's CSP allows this file and the stream, nothing else.
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const W = 480, H = 200, L = 48, B = 24, T = 10, R = 10;
  const KEEP = 120; // the updates a chart shows
  const MAX_MIX = 6; // the series whose outcome mix is charted: those that ended the most
  const palette = ["a", "b", "c", "d", "e", "f"];
  const metrics = [
    ["in_flight", "Episodes in flight"],
    ["steps_per_s", "Steps per second"],
    ["p50_ms", "Step latency p50 (ms)"],
    ["p99_ms", "Step latency p99 (ms)"],
    ["mean_reward", "Mean reward of the episodes ended"],
  ];
  const tag = new URLSearchParams(location.search).get("tag") || "";
  const status = document.getElementById("live-status");
  const charts = document.getElementById("live-charts");
  const mixCharts = document.getElementById("live-mix");
  const outcomesBody = document.querySelector("#live-outcomes tbody");
  const idle = document.getElementById("live-idle");
  const history = [];
  const outcomes = new Map(); // "series\u0000outcome" -> count

  function el(name, attrs, text) {
    const e = document.createElementNS(SVG, name);
    for (const k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function seriesName(s) { return tag === "" ? "all episodes" : tag + "=" + s.value; }

  function chart(metric, title) {
    const fig = document.createElement("figure");
    fig.className = "chart";
    fig.dataset.metric = metric;
    const cap = document.createElement("figcaption");
    cap.textContent = title;
    fig.appendChild(cap);
    const names = new Map();
    let top = 0;
    history.forEach((p) => p.series.forEach((s) => {
      const v = s[metric];
      if (typeof v === "number") { top = Math.max(top, v); names.set(s.value, true); }
    }));
    top = top > 0 ? top * 1.1 : 1;
    if (metric === "in_flight") top = 4 * Math.ceil(top / 4); // a count: whole ticks
    const svg = el("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img" });
    svg.appendChild(el("title", {}, title));
    for (let i = 0; i <= 4; i++) {
      const y = T + (H - T - B) * (1 - i / 4);
      svg.appendChild(el("line", { class: "grid", x1: L, x2: W - R, y1: y, y2: y }));
      svg.appendChild(el("text", { class: "axis", x: L - 4, y: y, "text-anchor": "end", "dominant-baseline": "middle" },
        metric === "in_flight" ? String(top * i / 4) : (top * i / 4).toPrecision(3)));
    }
    const step = (W - L - R) / Math.max(1, KEEP - 1);
    const x0 = W - R - step * (history.length - 1);
    let n = 0;
    for (const value of names.keys()) {
      const pts = [];
      history.forEach((p, i) => {
        const s = p.series.find((s) => s.value === value);
        if (s && typeof s[metric] === "number") {
          pts.push((x0 + step * i).toFixed(1) + "," + (T + (H - T - B) * (1 - s[metric] / top)).toFixed(1));
        }
      });
      if (pts.length === 0) continue;
      const line = el("polyline", { class: "line s-" + palette[n % palette.length], points: pts.join(" ") });
      line.appendChild(el("title", {}, tag === "" ? "all episodes" : tag + "=" + value));
      svg.appendChild(line);
      for (const pt of pts) {
        const [cx, cy] = pt.split(",");
        svg.appendChild(el("circle", { class: "pt s-" + palette[n % palette.length], cx: cx, cy: cy, r: 3 }));
      }
      n++;
    }
    fig.appendChild(svg);
    const legend = document.createElement("p");
    legend.className = "legend";
    let i = 0;
    for (const value of names.keys()) {
      const sw = document.createElement("span");
      sw.className = "sw s-" + palette[i++ % palette.length];
      legend.appendChild(sw);
      legend.appendChild(document.createTextNode(" " + (tag === "" ? "all episodes" : tag + "=" + value) + "  "));
    }
    fig.appendChild(legend);
    return fig;
  }

  // outcomeChart draws one series' outcome mix over time: a bar per
  // update that ended episodes, split into each outcome's share.
  function outcomeChart(value, kinds) {
    const name = tag === "" ? "all episodes" : tag + "=" + value;
    const fig = document.createElement("figure");
    fig.className = "chart";
    fig.dataset.metric = "outcomes";
    fig.dataset.series = value;
    const cap = document.createElement("figcaption");
    cap.textContent = "Outcome mix per update: " + name;
    fig.appendChild(cap);
    const svg = el("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img" });
    svg.appendChild(el("title", {}, "Outcome mix per update: " + name));
    for (let i = 0; i <= 4; i++) {
      const y = T + (H - T - B) * (1 - i / 4);
      svg.appendChild(el("line", { class: "grid", x1: L, x2: W - R, y1: y, y2: y }));
      svg.appendChild(el("text", { class: "axis", x: L - 4, y: y, "text-anchor": "end", "dominant-baseline": "middle" }, (i * 25) + "%"));
    }
    const step = (W - L - R) / KEEP;
    const x0 = W - R - step * history.length;
    history.forEach((p, i) => {
      const s = p.series.find((s) => s.value === value);
      if (!s || !s.ended || !s.outcomes) return;
      let y = H - B;
      kinds.forEach((o, k) => {
        const n = s.outcomes[o] || 0;
        if (n === 0) return;
        const h = (H - T - B) * n / s.ended;
        y -= h;
        const bar = el("rect", { class: "bar s-" + palette[k % palette.length], x: (x0 + step * i).toFixed(1), y: y.toFixed(1),
          width: Math.max(1, step - 1).toFixed(1), height: h.toFixed(1) });
        bar.appendChild(el("title", {}, name + " " + o + ": " + n + " of " + s.ended));
        svg.appendChild(bar);
      });
    });
    fig.appendChild(svg);
    const legend = document.createElement("p");
    legend.className = "legend";
    kinds.forEach((o, k) => {
      const sw = document.createElement("span");
      sw.className = "sw s-" + palette[k % palette.length];
      legend.appendChild(sw);
      legend.appendChild(document.createTextNode(" " + o + "  "));
    });
    fig.appendChild(legend);
    return fig;
  }

  // outcomeCharts are the outcome mix charts of the series that ended
  // the most episodes in the updates kept, at most MAX_MIX of them.
  function outcomeCharts() {
    const ended = new Map(), kinds = new Set();
    history.forEach((p) => p.series.forEach((s) => {
      if (!s.ended) return;
      ended.set(s.value, (ended.get(s.value) || 0) + s.ended);
      for (const o in s.outcomes || {}) kinds.add(o);
    }));
    const sorted = [...kinds].sort();
    return [...ended.entries()].sort((a, b) => b[1] - a[1]).slice(0, MAX_MIX).map(([v]) => outcomeChart(v, sorted));
  }

  function drawOutcomes() {
    outcomesBody.replaceChildren();
    for (const [k, n] of [...outcomes.entries()].sort()) {
      const [series, outcome] = k.split("\u0000");
      const tr = document.createElement("tr");
      for (const text of [series, outcome, String(n)]) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.appendChild(td);
      }
      outcomesBody.appendChild(tr);
    }
  }

  function draw() {
    charts.replaceChildren(...metrics.map(([m, t]) => chart(m, t)));
    mixCharts.replaceChildren(...outcomeCharts());
    drawOutcomes();
  }

  const es = new EventSource("/ui/live/events?tag=" + encodeURIComponent(tag));
  es.onopen = () => { status.textContent = "Connected; updates arrive once a second."; };
  es.onerror = () => { status.textContent = "Disconnected; retrying…"; };
  es.onmessage = (ev) => {
    const p = JSON.parse(ev.data);
    p.series = p.series || []; // an idle server's update has no series (null)
    history.push(p);
    if (history.length > KEEP) history.shift();
    for (const s of p.series) {
      for (const o in s.outcomes || {}) {
        const k = seriesName(s) + "\u0000" + o;
        outcomes.set(k, (outcomes.get(k) || 0) + s.outcomes[o]);
      }
    }
    const inFlight = p.series.reduce((a, s) => a + (tag === "" ? s.in_flight : 0), 0);
    status.textContent = "Updated " + new Date(p.t).toISOString() + " · " + p.series.length + " series" +
      (tag === "" ? " · " + inFlight + " in flight" : " split by " + tag);
    idle.hidden = history.some((p) => p.series.some((s) => s.in_flight || s.steps_per_s || s.ended));
    draw();
  };
})();
