package reward

import "testing"

func TestTransport(t *testing.T) {
	tests := []struct {
		name   string
		supply []int
		arcs   [][]arcTo
		take   []int
		want   bool
	}{
		{"nothing to ship", nil, nil, []int{0}, true},
		{"one source, room enough", []int{2}, [][]arcTo{{{0, 3}}}, []int{2}, true},
		{"an arc too narrow", []int{2}, [][]arcTo{{{0, 1}}}, []int{2}, false},
		{"a segment too small", []int{2}, [][]arcTo{{{0, 2}}}, []int{1}, false},
		{"split over two segments", []int{2}, [][]arcTo{{{0, 1}, {1, 1}}}, []int{1, 1}, true},
		// a must go to 1 so that b can have 0: a path through a reverse arc.
		{"rerouted", []int{1, 1}, [][]arcTo{{{0, 1}, {1, 1}}, {{0, 1}}}, []int{1, 1}, true},
		{"two sources want one segment", []int{1, 1}, [][]arcTo{{{0, 1}}, {{0, 1}}}, []int{1, 5}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := budget{1000}
			if got := transport(tt.supply, tt.arcs, tt.take, work.spend); got != tt.want {
				t.Errorf("transport = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestTransportBudget: a flow past its budget reports no match.
func TestTransportBudget(t *testing.T) {
	supply, arcs := make([]int, 50), make([][]arcTo, 50)
	for i := range supply {
		supply[i], arcs[i] = 1, []arcTo{{0, 1}}
	}
	for _, tt := range []struct {
		work int
		want bool
	}{{1 << 20, true}, {20, false}} {
		work := budget{tt.work}
		if got := transport(supply, arcs, []int{50}, work.spend); got != tt.want {
			t.Errorf("budget %d: transport = %v, want %v", tt.work, got, tt.want)
		}
	}
}
