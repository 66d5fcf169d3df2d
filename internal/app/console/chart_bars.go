package console

import "fmt"

// barChart draws one bar per value.
func barChart(title string, vals []named, ax valueAxis) chart {
	return groupedChart(title, [][]named{vals}, nil, ax)
}

// groupedChart draws bars left to right, one row per label and one bar
// per series in it (two runs compared, say); every series has the labels
// of the first. The labels sit left of the bars in a column as wide as
// the longest needs, each value just past its bar, on its own line.
func groupedChart(title string, series [][]named, names []string, ax valueAxis) chart {
	c := chart{Title: title}
	n := len(series[0])
	if n > maxBars {
		c.Note = fmt.Sprintf("the first %d of %d shown", maxBars, n)
		n = maxBars
	}
	if n == 0 {
		c.Note = "no data"
	}
	top, labelW, valueW := 0.0, 0.0, textW("100.0%")
	for _, vals := range series {
		for i := range vals[:n] {
			if vals[i].Shown == "" {
				vals[i].Shown = ax.format(vals[i].Value)
			}
			top, labelW, valueW = max(top, vals[i].Value), max(labelW, textW(vals[i].Name)), max(valueW, textW(vals[i].Shown))
		}
	}
	ticks, top := ax.ticks(top)
	x0 := labelW + 10
	plotW := max(plotMinW, chartMinW-x0-valueW-16)
	groupH := float64(len(series))*(barH+barGap) - barGap + groupGap
	plotH := groupH * float64(max(n, 1))
	c.W, c.H = x0+plotW+valueW+16, plotH+chartBottom
	xOf := func(v float64) float64 { return x0 + plotW*max(0, min(v, top))/top }
	c.valueAxis(ticks, ax, xOf, plotH)
	for i := 0; i < n; i++ {
		y := groupH*float64(i) + groupGap/2
		c.Texts = append(c.Texts, svgText{X: x0 - 6, Y: y + (groupH-groupGap)/2 + 4, Anchor: "end", Class: "label", Text: series[0][i].Name})
		for s, vals := range series {
			v, by := vals[i], y+float64(s)*(barH+barGap)
			c.Bars = append(c.Bars, bar{X: x0, Y: by, W: xOf(v.Value) - x0, H: barH, Series: seriesClass(s), Title: v.Name + ": " + v.Shown})
			c.Texts = append(c.Texts, svgText{X: xOf(v.Value) + 4, Y: by + barH/2 + 4, Anchor: "start", Class: "val", Text: v.Shown})
		}
	}
	for s, name := range names {
		c.Legend = append(c.Legend, legendItem{seriesClass(s), name})
	}
	return c
}

// valueAxis draws the grid lines of a left-to-right value axis at its
// ticks, their labels under the plot, and the axis's title.
func (c *chart) valueAxis(ticks []float64, ax valueAxis, xOf func(float64) float64, plotH float64) {
	for _, t := range ticks {
		x := xOf(t)
		c.Grid = append(c.Grid, gridLine{X1: x, Y1: 0, X2: x, Y2: plotH})
		c.Texts = append(c.Texts, svgText{X: x, Y: plotH + axisBelow, Anchor: "middle", Class: "axis", Text: ax.tick(t)})
	}
	mid := (xOf(ticks[0]) + xOf(ticks[len(ticks)-1])) / 2
	c.Texts = append(c.Texts, svgText{X: mid, Y: plotH + titleBelow, Anchor: "middle", Class: "title", Text: ax.Title})
}
