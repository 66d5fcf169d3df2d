package console

import (
	"fmt"
	"strconv"
	"strings"
)

// Charts are drawn on the server as SVG: numbers placed by this file,
// labels escaped by the template. No script draws them, so a report
// saved as a file shows the same.

// chart geometry, in SVG user units.
const (
	chartW, chartH   = 640, 240
	padL, padB, padT = 48, 56, 12
	plotW, plotH     = chartW - padL - 12, chartH - padB - padT
	maxBars          = 40 // the bars a chart shows: the first ones, the rest counted in a note
	barGapShare      = 0.2
	seriesA, seriesB = "a", "b"
)

// chart is one SVG chart: bars, or a line through points.
type chart struct {
	Title  string
	W, H   int
	Bars   []bar
	Line   string // polyline points "x,y x,y ..."
	Points []point
	YTicks []tick
	Note   string // bars left out, say
	Legend []legendItem
}

// bar is one bar, with its label and value shown.
type bar struct {
	X, Y, W, H   float64
	LabelX       float64
	Label, Value string
	Series       string // the CSS class that colours it
}

// point is one point of a line chart, with its labels.
type point struct {
	X, Y         float64
	Label, Value string
}

// tick is a horizontal grid line of the y axis.
type tick struct {
	Y     float64
	Label string
}

type legendItem struct{ Series, Name string }

// yAxis are the ticks of a 0..1 axis.
func yAxis() []tick {
	var ts []tick
	for i := 0; i <= 4; i++ {
		f := float64(i) / 4
		ts = append(ts, tick{Y: yOf(f), Label: strconv.FormatFloat(f, 'f', 2, 64)})
	}
	return ts
}

// yOf places a value of 0..1 on the plot.
func yOf(v float64) float64 { return padT + plotH*(1-clamp01(v)) }

func clamp01(v float64) float64 { return max(0, min(1, v)) }

// named is a labelled value of 0..1 (or of a count, scaled by the caller).
type named struct {
	Name  string
	Value float64
	Shown string // the value's label; "" formats Value
}

// barChart draws one bar per value, each of 0..1.
func barChart(title string, vals []named) chart {
	return groupedChart(title, [][]named{vals}, nil)
}

// groupedChart draws the series side by side per label (two runs
// compared, say); every series has the labels of the first.
func groupedChart(title string, series [][]named, names []string) chart {
	c := chart{Title: title, W: chartW, H: chartH, YTicks: yAxis()}
	n := len(series[0])
	if n > maxBars {
		c.Note = fmt.Sprintf("the first %d of %d shown", maxBars, n)
		n = maxBars
	}
	if n == 0 {
		c.Note = "no data"
		return c
	}
	slot := float64(plotW) / float64(n)
	w := slot * (1 - barGapShare) / float64(len(series))
	for i := 0; i < n; i++ {
		for s, vals := range series {
			v := vals[i]
			x := padL + slot*float64(i) + slot*barGapShare/2 + w*float64(s)
			shown := v.Shown
			if shown == "" {
				shown = strconv.FormatFloat(v.Value, 'f', 3, 64)
			}
			c.Bars = append(c.Bars, bar{X: x, Y: yOf(v.Value), W: w, H: padT + plotH - yOf(v.Value),
				LabelX: padL + slot*(float64(i)+0.5), Label: shortLabel(vals[i].Name, s), Value: shown, Series: seriesClass(s)})
		}
	}
	for s, name := range names {
		c.Legend = append(c.Legend, legendItem{seriesClass(s), name})
	}
	return c
}

// shortLabel is a bar's axis label: the first series' only, cut.
func shortLabel(name string, series int) string {
	if series > 0 {
		return ""
	}
	if r := []rune(name); len(r) > 14 {
		return string(r[:13]) + "…"
	}
	return name
}

func seriesClass(s int) string {
	if s == 0 {
		return seriesA
	}
	return seriesB
}

// lineChart draws values of 0..1 at evenly spaced labels.
func lineChart(title string, vals []named) chart {
	c := chart{Title: title, W: chartW, H: chartH, YTicks: yAxis()}
	if len(vals) == 0 {
		c.Note = "no data"
		return c
	}
	step := float64(plotW) / float64(max(1, len(vals)-1))
	var pts []string
	for i, v := range vals {
		x := padL + step*float64(i)
		if len(vals) == 1 {
			x = padL + float64(plotW)/2
		}
		y := yOf(v.Value)
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		c.Points = append(c.Points, point{X: x, Y: y, Label: v.Name, Value: strconv.FormatFloat(v.Value, 'f', 3, 64)})
	}
	c.Line = strings.Join(pts, " ")
	return c
}
