package console

import (
	"fmt"
	"strings"
)

// line chart geometry: the value axis runs up the left side.
const (
	lineW, lineH = chartMinW, 260
	linePadL     = 64 // the rotated axis title and the tick labels
	linePadT     = 18 // room for the top point's value
	linePadR     = 24
	lineInset    = 24 // the first and last points from the plot's sides: their values clear the tick labels
)

// lineChart draws shares at evenly spaced labels (pass@k at each k),
// the value axis a share axis titled yTitle, the labels' axis xTitle.
// A value is written over its point where the points are far enough
// apart for it; each point's tooltip has it always.
func lineChart(title string, vals []named, yTitle, xTitle string) chart {
	c := chart{Title: title, W: lineW, H: lineH}
	plotW, plotH := float64(lineW-linePadL-linePadR), float64(lineH-linePadT-chartBottom)
	yOf := func(v float64) float64 { return linePadT + plotH*(1-max(0, min(1, v))) }
	ax := valueAxis{Title: yTitle}
	ticks, _ := ax.ticks(1)
	for _, t := range ticks {
		c.Grid = append(c.Grid, gridLine{X1: linePadL, Y1: yOf(t), X2: linePadL + plotW, Y2: yOf(t)})
		c.Texts = append(c.Texts, svgText{X: linePadL - 6, Y: yOf(t) + 4, Anchor: "end", Class: "axis", Text: ax.tick(t)})
	}
	c.Texts = append(c.Texts,
		svgText{X: 14, Y: linePadT + plotH/2, Anchor: "middle", Class: "title", Text: yTitle, Rotate: true},
		svgText{X: linePadL + plotW/2, Y: linePadT + plotH + titleBelow, Anchor: "middle", Class: "title", Text: xTitle})
	if len(vals) == 0 {
		c.Note = "no data"
		return c
	}
	step := (plotW - 2*lineInset) / float64(max(1, len(vals)-1))
	var pts []string
	for i, v := range vals {
		x := linePadL + lineInset + step*float64(i)
		if len(vals) == 1 {
			x = linePadL + plotW/2
		}
		shown := ax.format(v.Value)
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, yOf(v.Value)))
		c.Points = append(c.Points, point{X: x, Y: yOf(v.Value), Title: v.Name + ": " + shown})
		c.Texts = append(c.Texts, svgText{X: x, Y: linePadT + plotH + axisBelow, Anchor: "middle", Class: "axis", Text: v.Name})
		if len(vals) == 1 || step >= textW(shown)+6 {
			c.Texts = append(c.Texts, svgText{X: x, Y: yOf(v.Value) - 8, Anchor: "middle", Class: "val", Text: shown})
		}
	}
	c.Line = strings.Join(pts, " ")
	return c
}
