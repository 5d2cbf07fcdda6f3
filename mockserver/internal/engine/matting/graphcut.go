package matting

// Boykov–Kolmogorov max-flow on a 4-connected pixel grid, used for the
// portrait segmentation. It is sequential, so the cut is deterministic.

const (
	gcNone     = -1 // no parent: free node or orphan
	gcTerminal = 4  // parent is the source or sink itself
	gcInf      = int32(1 << 28)
)

const (
	treeFree int8 = iota
	treeS
	treeT
)

// gridGraph holds residual capacities. Direction d: 0 +x, 1 -x, 2 +y, 3 -y;
// the reverse of d is d^1.
type gridGraph struct {
	w, h   int
	tr     []int32 // terminal residual: >0 from source, <0 to sink
	rcap   []int32 // 4 per node: residual capacity of the arc to the neighbour
	parent []int8
	tree   []int8
	ts     []int32
	dist   []int32
	time   int32
}

func newGridGraph(w, h int) *gridGraph {
	n := w * h
	return &gridGraph{
		w: w, h: h,
		tr:     make([]int32, n),
		rcap:   make([]int32, 4*n),
		parent: make([]int8, n),
		tree:   make([]int8, n),
		ts:     make([]int32, n),
		dist:   make([]int32, n),
	}
}

// neighbour returns the node in direction d of p, or -1 outside the grid.
func (g *gridGraph) neighbour(p, d int) int {
	switch d {
	case 0:
		if p%g.w == g.w-1 {
			return -1
		}
		return p + 1
	case 1:
		if p%g.w == 0 {
			return -1
		}
		return p - 1
	case 2:
		if p+g.w >= g.w*g.h {
			return -1
		}
		return p + g.w
	default:
		if p < g.w {
			return -1
		}
		return p - g.w
	}
}

// maxflow computes the minimum cut; afterwards source-side nodes are those
// in tree S.
func (g *gridGraph) maxflow() {
	n := g.w * g.h
	queue := make([]int32, 0, n)
	inQueue := make([]bool, n)
	push := func(p int) {
		if !inQueue[p] {
			inQueue[p] = true
			queue = append(queue, int32(p))
		}
	}
	for p := 0; p < n; p++ {
		switch {
		case g.tr[p] > 0:
			g.tree[p], g.parent[p] = treeS, gcTerminal
			g.dist[p] = 1
			push(p)
		case g.tr[p] < 0:
			g.tree[p], g.parent[p] = treeT, gcTerminal
			g.dist[p] = 1
			push(p)
		default:
			g.tree[p], g.parent[p] = treeFree, gcNone
		}
	}
	var orphans []int32
	head := 0
	for head < len(queue) {
		p := int(queue[head])
		head++
		inQueue[p] = false
		if g.parent[p] == gcNone {
			continue
		}
		// Compact the queue now and then so it does not grow forever.
		if head > 1<<16 && head*2 > len(queue) {
			queue = append(queue[:0], queue[head:]...)
			head = 0
		}
		found := false
		var a, b, dAB int
		for d := 0; d < 4 && !found; d++ {
			q := g.neighbour(p, d)
			if q < 0 {
				continue
			}
			if g.tree[p] == treeS {
				if g.rcap[4*p+d] <= 0 {
					continue
				}
				switch g.tree[q] {
				case treeFree:
					g.tree[q], g.parent[q] = treeS, int8(d^1)
					g.ts[q], g.dist[q] = g.ts[p], g.dist[p]+1
					push(q)
				case treeT:
					found, a, b, dAB = true, p, q, d
				}
			} else {
				if g.rcap[4*q+(d^1)] <= 0 {
					continue
				}
				switch g.tree[q] {
				case treeFree:
					g.tree[q], g.parent[q] = treeT, int8(d^1)
					g.ts[q], g.dist[q] = g.ts[p], g.dist[p]+1
					push(q)
				case treeS:
					found, a, b, dAB = true, q, p, d^1
				}
			}
		}
		if !found {
			continue
		}
		g.time++
		orphans = g.augment(a, b, dAB, orphans[:0])
		for len(orphans) > 0 {
			o := int(orphans[0])
			orphans = orphans[1:]
			orphans = g.adopt(o, orphans, push)
		}
		// p may still grow; look at it again.
		if g.parent[p] != gcNone {
			push(p)
		}
	}
}

// augment pushes the bottleneck flow along source→…→a→b→…→sink.
func (g *gridGraph) augment(a, b, dAB int, orphans []int32) []int32 {
	bn := g.rcap[4*a+dAB]
	for x := a; g.parent[x] != gcTerminal; {
		d := int(g.parent[x])
		y := g.neighbour(x, d)
		bn = min(bn, g.rcap[4*y+(d^1)])
		x = y
		if g.parent[x] == gcTerminal {
			bn = min(bn, g.tr[x])
		}
	}
	if g.parent[a] == gcTerminal {
		bn = min(bn, g.tr[a])
	}
	for x := b; g.parent[x] != gcTerminal; {
		d := int(g.parent[x])
		bn = min(bn, g.rcap[4*x+d])
		x = g.neighbour(x, d)
		if g.parent[x] == gcTerminal {
			bn = min(bn, -g.tr[x])
		}
	}
	if g.parent[b] == gcTerminal {
		bn = min(bn, -g.tr[b])
	}
	g.rcap[4*a+dAB] -= bn
	g.rcap[4*b+(dAB^1)] += bn
	for x := a; ; {
		if g.parent[x] == gcTerminal {
			g.tr[x] -= bn
			if g.tr[x] == 0 {
				g.parent[x] = gcNone
				orphans = append(orphans, int32(x))
			}
			break
		}
		d := int(g.parent[x])
		y := g.neighbour(x, d)
		g.rcap[4*y+(d^1)] -= bn
		g.rcap[4*x+d] += bn
		if g.rcap[4*y+(d^1)] == 0 {
			g.parent[x] = gcNone
			orphans = append(orphans, int32(x))
		}
		x = y
	}
	for x := b; ; {
		if g.parent[x] == gcTerminal {
			g.tr[x] += bn
			if g.tr[x] == 0 {
				g.parent[x] = gcNone
				orphans = append(orphans, int32(x))
			}
			break
		}
		d := int(g.parent[x])
		y := g.neighbour(x, d)
		g.rcap[4*x+d] -= bn
		g.rcap[4*y+(d^1)] += bn
		if g.rcap[4*x+d] == 0 {
			g.parent[x] = gcNone
			orphans = append(orphans, int32(x))
		}
		x = y
	}
	return orphans
}

// adopt finds a new parent for orphan p in its own tree, or frees it.
func (g *gridGraph) adopt(p int, orphans []int32, push func(int)) []int32 {
	t := g.tree[p]
	best := -1
	bestDist := int32(1 << 30)
	for d := 0; d < 4; d++ {
		q := g.neighbour(p, d)
		if q < 0 || g.tree[q] != t || g.parent[q] == gcNone {
			continue
		}
		if t == treeS && g.rcap[4*q+(d^1)] <= 0 || t == treeT && g.rcap[4*p+d] <= 0 {
			continue
		}
		// Does q still reach its terminal? Walk up, using timestamps.
		dd := int32(0)
		j := q
		ok := false
		for {
			if g.ts[j] == g.time {
				dd += g.dist[j]
				ok = true
				break
			}
			dd++
			if g.parent[j] == gcTerminal {
				g.ts[j], g.dist[j] = g.time, 1
				ok = true
				break
			}
			if g.parent[j] == gcNone {
				break
			}
			j = g.neighbour(j, int(g.parent[j]))
		}
		if !ok {
			continue
		}
		if dd < bestDist {
			best, bestDist = d, dd
		}
		for j, k := q, dd; g.ts[j] != g.time; k-- {
			g.ts[j], g.dist[j] = g.time, k
			j = g.neighbour(j, int(g.parent[j]))
		}
	}
	if best >= 0 {
		g.parent[p] = int8(best)
		g.ts[p], g.dist[p] = g.time, bestDist+1
		return orphans
	}
	// No parent: p becomes free; its neighbours may need to regrow or are
	// orphaned in turn.
	for d := 0; d < 4; d++ {
		q := g.neighbour(p, d)
		if q < 0 || g.tree[q] != t {
			continue
		}
		if g.parent[q] != gcNone {
			if t == treeS && g.rcap[4*q+(d^1)] > 0 || t == treeT && g.rcap[4*p+d] > 0 {
				push(q)
			}
			if g.parent[q] != gcTerminal && g.neighbour(q, int(g.parent[q])) == p {
				g.parent[q] = gcNone
				orphans = append(orphans, int32(q))
			}
		}
	}
	g.tree[p] = treeFree
	return orphans
}
