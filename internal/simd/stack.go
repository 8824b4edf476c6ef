package simd

import (
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/memo"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/stack"
)

// short runs, in one pass, a call whose rows are too short for the row
// kernels: as stacked rows where the table has the kernel and a plan,
// else as row units, else as a gather plan. It reports whether it did;
// with r set it only describes the call into r.
func (t *Table) short(g shape.Geometry, dst, src []byte, r *engine.Route) bool {
	return t.stacked(g, dst, src, r) || t.RowUnits(&g, dst, src, r) || t.gather(g, dst, src, r)
}

// stackKey is what a stacked-row plan depends on.
type stackKey struct {
	op     shape.Op
	order  shape.Order
	layout shape.Layout
	b      int
	elem   int
	unit   int
	paired bool
	depth  shape.Dims
}

var stackPlans memo.Cache[stackKey, *stack.Plan]

// stacked runs a call with the table's stacked-row kernels, if it has one
// for the call's elements and the call has a plan, and reports whether it
// did.
func (t *Table) stacked(g shape.Geometry, dst, src []byte, r *engine.Route) bool {
	f, p := t.StackPlan(&g, true)
	if p == nil {
		return false
	}
	a := &StackArgs{Space: dst, Depth: src, Tab: p.Tab[:], Units: p.Units, Step: p.Step, Last: p.Last, LastDepth: p.LastDepth, Plane: p.Plane}
	if g.Op == shape.SpaceToDepth {
		a.Space, a.Depth = src, dst
	}
	if r != nil {
		r.Workers = 1
		r.Plan = p.String()
		a.Report = func(k string) { r.Kernel = k }
	}
	f.Run(a)
	return true
}

// StackPlan returns the stacked-row kernel of t for a validated call and
// its plan (cached if cached is set), or a nil plan if t has no kernel
// for the call's elements or the call no plan. The kernel moves the
// largest unit that divides the element size, 1-byte elements as pairs on
// tables without byte permutes.
func (t *Table) StackPlan(g *shape.Geometry, cached bool) (StackFunc, *stack.Plan) {
	ks := &t.StackZip
	if g.Op == shape.SpaceToDepth {
		ks = &t.StackUnzip
	}
	for u := MaxStackUnit; u >= 1; u-- {
		if ks[u] == nil || g.Elem%u != 0 {
			continue
		}
		paired := u == 1 && !t.bytePermutes
		build := func() *stack.Plan {
			p, _ := stack.New(g, u, paired)
			return p
		}
		if !cached {
			return ks[u], build()
		}
		return ks[u], stackPlans.Get(stackKey{g.Op, g.Order, g.Layout, g.B, g.Elem, u, paired, g.Depth}, build)
	}
	return nil, nil
}
