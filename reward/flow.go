package reward

// network is a flow network with integer capacities, solved by Dinic's
// algorithm: the transport problems of matching against an Answer (which
// rows of a prediction each segment of tied rows supplies).
type network struct {
	arcs  [][]int // per node, the indexes of the arcs leaving it
	to    []int   // per arc, its head
	cap   []int   // per arc, its residual capacity; arc i^1 is arc i's reverse
	level []int   // per node, its distance from the source in this phase
	next  []int   // per node, the first of its arcs not yet spent in this phase
	spend func(n int) bool
}

// newNetwork returns a network of n nodes and no arcs, whose work (arcs
// visited) is charged to spend.
func newNetwork(n int, spend func(n int) bool) *network {
	return &network{arcs: make([][]int, n), level: make([]int, n), next: make([]int, n), spend: spend}
}

// node adds a node and returns it.
func (f *network) node() int {
	f.arcs = append(f.arcs, nil)
	f.level = append(f.level, 0)
	f.next = append(f.next, 0)
	return len(f.arcs) - 1
}

// arc adds an arc from u to v of capacity c, and its reverse.
func (f *network) arc(u, v, c int) {
	f.arcs[u] = append(f.arcs[u], len(f.to))
	f.to, f.cap = append(f.to, v), append(f.cap, c)
	f.arcs[v] = append(f.arcs[v], len(f.to))
	f.to, f.cap = append(f.to, u), append(f.cap, 0)
}

// maxFlow returns the most that can flow from s to t; ok is false when the
// work ran out first.
func (f *network) maxFlow(s, t int) (flow int, ok bool) {
	for f.levels(s, t) {
		clear(f.next)
		for {
			pushed := f.push(s, t, int(^uint(0)>>1))
			if pushed == 0 {
				break
			}
			flow += pushed
		}
	}
	return flow, f.spend(0)
}

// levels numbers the nodes by their distance from s over arcs with room
// left, and reports whether t is reached.
func (f *network) levels(s, t int) bool {
	for i := range f.level {
		f.level[i] = -1
	}
	f.level[s] = 0
	queue := []int{s}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if !f.spend(len(f.arcs[u])) {
			return false
		}
		for _, e := range f.arcs[u] {
			if v := f.to[e]; f.cap[e] > 0 && f.level[v] < 0 {
				f.level[v] = f.level[u] + 1
				queue = append(queue, v)
			}
		}
	}
	return f.level[t] >= 0
}

// push sends at most limit from u towards t along arcs that go one level
// down, and returns what it sent.
func (f *network) push(u, t, limit int) int {
	if u == t {
		return limit
	}
	for ; f.next[u] < len(f.arcs[u]); f.next[u]++ {
		if !f.spend(1) {
			return 0
		}
		e := f.arcs[u][f.next[u]]
		v := f.to[e]
		if f.cap[e] == 0 || f.level[v] != f.level[u]+1 {
			continue
		}
		if got := f.push(v, t, min(limit, f.cap[e])); got > 0 {
			f.cap[e] -= got
			f.cap[e^1] += got
			return got
		}
	}
	return 0
}

// arcTo is an arc of a transport problem: to a segment, of a capacity.
type arcTo struct{ seg, cap int }

// transport reports whether every supply can be shipped in full: source v
// ships supply[v], at most a.cap of it along each of arcs[v] to segment
// a.seg, and segment i receives at most take[i].
func transport(supply []int, arcs [][]arcTo, take []int, spend func(int) bool) bool {
	total := 0
	f := newNetwork(2+len(supply)+len(take), spend)
	for v, n := range supply {
		total += n
		f.arc(0, 2+v, n)
		for _, a := range arcs[v] {
			f.arc(2+v, 2+len(supply)+a.seg, a.cap)
		}
	}
	for i, n := range take {
		f.arc(2+len(supply)+i, 1, n)
	}
	flow, ok := f.maxFlow(0, 1)
	return ok && flow == total
}
