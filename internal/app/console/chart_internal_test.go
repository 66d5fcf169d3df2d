package console

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestCountAxisTicksAreWholeAndReachTheLargest: a count axis's ticks are
// whole numbers from 0 to a round number at or past the largest count.
func TestCountAxisTicksAreWholeAndReachTheLargest(t *testing.T) {
	ax := valueAxis{Count: true}
	for _, c := range []struct {
		top  float64
		want []float64
	}{{0, []float64{0, 1}}, {3, []float64{0, 1, 2, 3}}, {6, []float64{0, 2, 4, 6}}, {7, []float64{0, 2, 4, 6, 8}}, {230, []float64{0, 100, 200, 300}}} {
		ticks, top := ax.ticks(c.top)
		if !slices.Equal(ticks, c.want) || top != c.want[len(c.want)-1] {
			t.Errorf("count axis to %v: ticks %v, top %v; want %v", c.top, ticks, top, c.want)
		}
	}
}

// TestBarChartLabelsAreWholeAndInside: a label longer than the chart's
// usual label column widens the chart rather than being cut; counts are
// drawn against the count axis, shares against 100%.
func TestBarChartLabelsAreWholeAndInside(t *testing.T) {
	long := "spider/" + strings.Repeat("student_transcripts_tracking_", 3)
	c := barChart("Outcomes", []named{{Name: long, Value: 2}, {Name: "correct", Value: 6}}, valueAxis{Count: true, Title: "episodes"})
	var labels []svgText
	for _, tx := range c.Texts {
		if tx.Class == "label" {
			labels = append(labels, tx)
		}
	}
	if len(labels) != 2 || labels[0].Text != long || labels[0].X-textW(long) < 0 || c.W <= chartMinW {
		t.Fatalf("labels %+v in a chart %v wide: want %q whole, inside", labels, c.W, long)
	}
	if full, third := c.Bars[1].W, c.Bars[0].W; full <= 0 || math.Abs(third*3-full) > 1e-9 {
		t.Fatalf("bars of 2 and 6 episodes on an axis to 6: %v and %v wide, want one a third of the other", third, full)
	}
	s := barChart("Shares", []named{{Name: "a", Value: 0.5}}, valueAxis{Title: "share"})
	var ticks []string
	for _, tx := range s.Texts {
		if tx.Class == "axis" {
			ticks = append(ticks, tx.Text)
		}
	}
	if !slices.Equal(ticks, []string{"0%", "25%", "50%", "75%", "100%"}) {
		t.Fatalf("a share axis's ticks %q, want 0%% to 100%%", ticks)
	}
}
