package console

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
)

// Charts are drawn on the server as SVG: every shape and label placed by
// this file, labels escaped by the template. No script draws them, so a
// report saved as a file shows the same. The SVG scales to the width its
// grid cell gives it (style.css); its labels are never cut: the space
// beside the bars is as wide as the longest label needs.

// chart geometry, in SVG user units (a unit is a CSS pixel at the
// chart's natural width).
const (
	chartMinW   = 640 // the narrowest chart; a long label widens it
	plotMinW    = 280 // the narrowest plot area beside the labels
	fontW       = 7.0 // the widest mean advance of an 11 px label's character (DejaVu Sans)
	barH        = 14  // one bar's thickness
	barGap      = 3   // between the bars of one label
	groupGap    = 10  // between labels
	maxBars     = 40  // the labels a chart shows: the first ones, the rest counted in a note
	seriesA     = "a" // the CSS classes of the two series
	seriesB     = "b"
	axisBelow   = 16 // from the plot's edge to its tick labels' baseline
	titleBelow  = 34 // from the plot's edge to the axis title's baseline
	chartBottom = 42 // below the plot: tick labels and the axis title
)

// chart is one SVG chart: its shapes and texts, each placed.
type chart struct {
	Title  string
	W, H   float64
	Grid   []gridLine
	Bars   []bar
	Line   string // polyline points "x,y x,y ..."
	Points []point
	Texts  []svgText
	Note   string // labels left out, say
	Legend []legendItem
}

// gridLine is a grid line at one tick of the value axis.
type gridLine struct{ X1, Y1, X2, Y2 float64 }

// bar is one bar; Title is its tooltip.
type bar struct {
	X, Y, W, H float64
	Series     string // the CSS class that colours it
	Title      string
}

// point is one point of a line chart; Title is its tooltip.
type point struct {
	X, Y  float64
	Title string
}

// svgText is one label: a category, a value, a tick or an axis title.
type svgText struct {
	X, Y   float64
	Anchor string // text-anchor: start, middle, end
	Class  string // label, val, axis, title
	Text   string
	Rotate bool // turned a quarter anticlockwise about (X, Y): a vertical axis's title
}

type legendItem struct{ Series, Name string }

// named is a labelled value: a share of 0..1 or a count, as its chart's
// axis says.
type named struct {
	Name  string
	Value float64
	Shown string // the value's label; "" formats Value on its axis
}

// valueAxis is what a chart's values are: shares (0 to 100%) or counts
// (0 to a round number past the largest), and the axis's title.
type valueAxis struct {
	Count bool
	Title string
}

// ticks are the axis's tick values and its top, for values up to top.
func (a valueAxis) ticks(top float64) ([]float64, float64) {
	if !a.Count {
		return []float64{0, 0.25, 0.5, 0.75, 1}, 1
	}
	step := max(1, niceStep(max(top, 1)/4)) // whole counts
	ts := []float64{0}
	for ts[len(ts)-1] < top || len(ts) < 2 {
		ts = append(ts, ts[len(ts)-1]+step)
	}
	return ts, ts[len(ts)-1]
}

// format is a value as its axis shows it.
func (a valueAxis) format(v float64) string {
	if a.Count {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return report.Pct(v)
}

// tick is a tick value as its axis labels it: a whole percentage or a
// count.
func (a valueAxis) tick(v float64) string {
	if a.Count {
		return a.format(v)
	}
	return strconv.FormatFloat(100*v, 'f', -1, 64) + "%"
}

// niceStep is the least of 1, 2 or 5 times a power of ten at least x.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// textW is how wide a label of s is drawn, at most.
func textW(s string) float64 { return fontW * float64(utf8.RuneCountInString(s)) }

func seriesClass(s int) string {
	if s == 0 {
		return seriesA
	}
	return seriesB
}
