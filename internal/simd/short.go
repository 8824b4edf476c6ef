package simd

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/gather"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/stack"
)

// OnePass implements engine.Kernels: the calls that move, in one pass, a
// call whose rows are too short for the row kernels: as stacked rows where
// the table has the kernel and a plan, else as bundles, else as a
// gather plan; or nil if none takes the call.
func (t *Kernels) OnePass(g *shape.Geometry) (fmt.Stringer, []engine.Call) {
	space, depth := engine.SpaceSpan(g.Len()*g.Elem), engine.DepthSpan(g.Len()*g.Elem)
	if f, p := t.StackPlan(g); p != nil {
		return p, []engine.Call{f.Call(StackArgs{Space: space, Depth: depth, Tab: engine.OwnSpan(p.Tab[:]),
			Stacks: p.Stacks, Step: p.Step, Last: p.Last, LastDepth: p.LastDepth, Plane: p.Plane})}
	}
	if f, p := t.BundlePlan(g); f != nil {
		return &p, []engine.Call{f.Call(BundleArgs{Space: space, Depth: depth, N: p.N, Bundles: p.Bundles, Plane: p.Plane,
			Groups: p.Groups, Group: p.Group}, p.Elem)}
	}
	if t.Gather[1] != nil && gather.Pays(g, t.windows) {
		if p, ok := gather.New(t.windows, g); ok {
			return p, t.GatherCalls(p, g)
		}
	}
	return nil, nil
}

// zipStackRow is the longest depth row, in bytes, that a DepthToSpace
// runs in stacks, three rows a register or more, but for rows that fill
// a register exactly (32 and 64 bytes). Other rows go to the bundles,
// which zipped them faster on a Zen 4, one goroutine, two alternated
// runs: stacks of two rows a register (1x12x26x26, 26-byte rows) at
// 0.74-0.82 of the bundles' speed, of one (1x48x48x48, 48 bytes) at
// 0.81-0.88, where stacks of three (1x48x20x20, 20 bytes) ran 1.05-1.13
// times as fast, of four or more up to 1.3, and rows of 32 and 64 bytes
// 1.02-1.04. On issue 49's Cascade Lake the avx512bw tier's YOLO
// DepthToSpace of 1 and 2 bytes ran below avx2's too. The stacks of
// SpaceToDepth won at every row the plans take (avx512vbmi: 1.05-1.23
// times the bundles' speed) and keep them.
const zipStackRow = stack.Vector / 3

// StackPlan returns the stacked-row kernel of t for a validated call and
// its plan, or a nil plan if t has no kernel for the call's elements or
// the call no plan. The kernel permutes the largest grain that divides the
// element size, 1-byte elements as pairs on ISAs without byte permutes.
func (t *Kernels) StackPlan(g *shape.Geometry) (*StackFunc, *stack.Plan) {
	ks := &t.StackZip
	if g.ToDepth {
		ks = &t.StackUnzip
	} else if row := g.W * g.Elem; row > zipStackRow && stack.Vector%row != 0 {
		return nil, nil
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

// GatherCalls are the calls of a gather plan of a validated call, with
// the table's gather kernels: one per run of tiles of one program, each
// program checked once (GatherProg).
func (t *Kernels) GatherCalls(p *gather.Plan, g *shape.Geometry) []engine.Call {
	n := g.Len() * g.Elem
	dst, src := engine.SpaceSpan(n), engine.DepthSpan(n)
	if g.ToDepth {
		dst, src = engine.DepthSpan(n), engine.SpaceSpan(n)
	}
	checked := map[*gather.Prog]*GatherProg{}
	var calls []engine.Call
	p.Each(n, func(q *gather.Prog, s, d, reps, srcRep int) {
		if q == nil || t.Gather[q.Groups] == nil { // New gave every tile of a source of this length a program
			panic(fmt.Sprintf("simd: no gather program or kernel for the tile at source byte %d of %d", s, n))
		}
		c := checked[q]
		if c == nil {
			c = NewGatherProg(q.Offs, q.Idx, q.Steps, q.Groups, t.windows)
			checked[q] = c
		}
		calls = append(calls, t.Gather[q.Groups].Call(GatherArgs{Dst: dst.From(d), Src: src.From(s + q.Origin),
			Reps: reps, SrcRep: srcRep, DstRep: p.Fwd.Tile}, c))
	})
	return calls
}

// GatherPlan builds the gather plan of a validated call for the gather
// kernels of t, whatever gather.Pays says, and its calls, or reports
// false if t has none or the call has no plan: for the kernel tests,
// which run every plan.
func (t *Kernels) GatherPlan(g *shape.Geometry) (*gather.Plan, engine.Calls, bool) {
	if t.Gather[1] == nil {
		return nil, nil, false
	}
	p, ok := gather.New(t.windows, g)
	if !ok {
		return nil, nil, false
	}
	return p, t.GatherCalls(p, g), true
}
