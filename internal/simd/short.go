package simd

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/gather"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/stack"
)

// OnePass implements engine.Kernels: the calls that move, in one pass, a
// call whose rows are too short for the row kernels: as stacked rows where
// the table has the kernel and a plan (for a DepthToSpace, where this CPU
// zips its rows faster so, zipStacks), else as bundles, else as a
// gather plan; or nil if none takes the call.
func (t *Kernels) OnePass(g *shape.Geometry) (fmt.Stringer, []engine.Call) {
	space, depth := engine.SpaceSpan(g.Len()*g.Elem), engine.DepthSpan(g.Len()*g.Elem)
	if g.ToDepth || zipStacks(g.W*g.Elem) {
		if f, p := t.StackPlan(g); p != nil {
			return p, []engine.Call{f.Call(StackArgs{Space: space, Depth: depth, Tab: engine.OwnSpan(p.Tab[:]),
				Stacks: p.Stacks, Step: p.Step, Last: p.Last, LastDepth: p.LastDepth, Plane: p.Plane})}
		}
	}
	if f, p := t.BundlePlan(g); f != nil {
		return &p, []engine.Call{f.Call(BundleArgs{Space: space, Depth: depth, N: p.N, Bundles: p.Bundles, Plane: p.Plane,
			Groups: p.Groups, Group: p.Group}, p.Elem)}
	}
	if gather.Pays(g, t.windows) {
		return t.geometryGathered(g, engine.OtherKernels)
	}
	return nil, nil
}

// geometryGathered is the gather plan of a validated call that goes
// ahead of rival, and its calls, or nil.
func (t *Kernels) geometryGathered(g *shape.Geometry, rival engine.Rival) (fmt.Stringer, []engine.Call) {
	n := g.Len() * g.Elem
	dst, src := engine.SpaceSpan(n), engine.DepthSpan(n)
	if g.ToDepth {
		dst, src = src, dst
	}
	size, stride := g.Loops()
	p, units, calls := t.Gathered(dst, src, size[:], stride[:], g.Elem, false, rival)
	if p == nil {
		return nil, nil
	}
	return p, calls(0, units)
}

// Gathered implements engine.Kernels: a gather plan of the move, if t has
// gather kernels and the move a plan that goes ahead of rival.
func (t *Kernels) Gathered(dst, src engine.Span, size, stride []int, elem int, costly bool, rival engine.Rival) (fmt.Stringer, int, func(lo, hi int) []engine.Call) {
	w := t.windows
	if rival != engine.GoLoops {
		w.MaxGroups = min(w.MaxGroups, w.Rivals)
	}
	if rival == engine.TwoPasses {
		w = gather.AheadWindows(w, costly)
	}
	if w.MaxGroups == 0 || t.Gather[t.windows.MaxGroups] == nil {
		return nil, 0, nil
	}
	p, ok := gather.Nest(w, size, stride, elem)
	if !ok || rival == engine.TwoPasses && !p.Ahead(costly) {
		return nil, 0, nil
	}
	return p, p.Units(), func(lo, hi int) []engine.Call { return t.GatherCalls(p, dst, src, lo, hi) }
}

// StackPlan returns the stacked-row kernel of t for a validated call and
// its plan, or a nil plan if t has no kernel for the call's elements or
// the call no plan. The kernel permutes the largest grain that divides the
// element size, 1-byte elements as pairs on ISAs without byte permutes.
func (t *Kernels) StackPlan(g *shape.Geometry) (*StackFunc, *stack.Plan) {
	ks := &t.StackZip
	if g.ToDepth {
		ks = &t.StackUnzip
	}
	for u := MaxStackGrain; u >= 1; u-- {
		if ks[u] == nil || g.Elem%u != 0 {
			continue
		}
		p, _ := stack.New(g, u, u == 1 && t.pairs)
		return ks[u], p
	}
	return nil, nil
}

// zipStacks reports whether a DepthToSpace with depth rows of row bytes
// runs in stacks on this CPU, rather than in the bundles: the stacks of
// SpaceToDepth won at every row the plans take (avx512vbmi: 1.05-1.23
// times the bundles' speed on a Zen 4, 1.10-1.53 on an Intel Xeon) and
// keep them.
func zipStacks(row int) bool {
	most, whole := isa.ZipStackRow()
	return row <= most || whole && (row == stack.Vector || row == stack.Vector/2)
}

// BundlePlan returns the bundle kernel of t for a validated call and its
// plan, or a nil kernel if the call has no plan, or rows too long for the
// bundles (complete: where they stand in for a base's lane kernels, the
// tier's own lane kernels keep the rows they take).
func (t *Kernels) BundlePlan(g *shape.Geometry) (*BundleFunc, stack.Bundles) {
	p, ok := stack.NewBundles(g)
	if !ok {
		return nil, p
	}
	ks, below := &t.BundleZip, &t.bundleBelow[0]
	if g.ToDepth {
		ks, below = &t.BundleUnzip, &t.bundleBelow[1]
	}
	if f := ks[p.Elem]; f != nil && p.N < below[p.Elem] {
		return f, p
	}
	return nil, p
}

// GatherCalls are the calls that move units [lo, hi) of gather plan p
// (gather.Plan.Units) from span src into span dst, both of the tensors'
// length: one per run of tiles of one program, each program checked once
// (GatherProg), in Repeats of the iterations that run alike.
func (t *Kernels) GatherCalls(p *gather.Plan, dst, src engine.Span, lo, hi int) []engine.Call {
	n := src.Len
	checked := map[*gather.Prog]*GatherProg{}
	calls := []engine.Call{}
	p.Walk(n, lo, hi, func(q *gather.Prog, s, d, reps, srcRep int) {
		if q == nil || t.Gather[q.Groups] == nil { // Nest gave every tile of a source of this length a program
			panic(fmt.Sprintf("simd: no gather program or kernel for the tile at source byte %d of %d", s, n))
		}
		c := checked[q]
		if c == nil {
			c = NewGatherProg(q.Offs, q.Idx, q.Steps, q.Groups, t.windows)
			checked[q] = c
		}
		// Spans of what the call reaches, which a Repeat shifts.
		to, _ := around(c.dstEnd, reps, q.Tile)
		from, _ := around(c.srcEnd, reps, srcRep)
		a := GatherArgs{Dst: dst.From(d), Src: src.From(s + q.Origin), Reps: reps, SrcRep: srcRep, DstRep: q.Tile}
		a.Dst.Len, a.Src.Len = min(to, a.Dst.Len), min(from, a.Src.Len) // Call checks the reach
		calls = append(calls, t.Gather[q.Groups].Call(a, c))
	}, func(count, srcStep, dstStep int, body func()) {
		outer := calls
		calls = []engine.Call{}
		body()
		r := &engine.Repeat{N: count, Call: engine.Calls(calls)}
		if len(calls) == 1 {
			r.Call = calls[0]
		}
		if dst.Depth {
			r.DepthStep, r.SpaceStep = dstStep, srcStep
		} else {
			r.SpaceStep, r.DepthStep = dstStep, srcStep
		}
		calls = append(outer, r)
	})
	return calls
}

// GatherPlan builds the gather plan of a validated call for the gather
// kernels of t, whatever gather.Pays says, and its calls, or reports
// false if t has none or the call has no plan: for the kernel tests,
// which run every plan.
func (t *Kernels) GatherPlan(g *shape.Geometry) (*gather.Plan, engine.Calls, bool) {
	p, calls := t.geometryGathered(g, engine.GoLoops)
	if calls == nil {
		return nil, nil, false
	}
	return p.(*gather.Plan), calls, true
}
