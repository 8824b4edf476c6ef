package simd

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/memo"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/stack"
)

// short returns a function that runs, in one pass, a call whose rows are
// too short for the row kernels: as stacked rows where the table has the
// kernel and a plan, else as row units, else as a gather plan; or nil if
// none takes the call. With r set it also describes the call into r.
func (t *Table) short(g shape.Geometry, r *engine.Route) func(dst, src []byte, b *engine.Binder) {
	if f := t.stacked(&g, r); f != nil {
		return f
	}
	if f := t.RowUnits(&g, r); f != nil {
		return f
	}
	if f := t.gather(&g, r); f != nil {
		return func(dst, src []byte, _ *engine.Binder) { f(dst, src) } // its kernel calls are many
	}
	return nil
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

// stacked returns a function that runs a call with the table's
// stacked-row kernels, or nil if the table has none for the call's
// elements or the call has no plan. With r set it also describes the call
// into r.
func (t *Table) stacked(g *shape.Geometry, r *engine.Route) func(dst, src []byte, b *engine.Binder) {
	f, p := t.StackPlan(g, true)
	if p == nil {
		return nil
	}
	return onePass(g.Op, p, r, func(space, depth []byte, report func(string), b *engine.Binder) {
		f.Run(&StackArgs{Space: space, Depth: depth, Tab: p.Tab[:], Units: p.Units, Step: p.Step, Last: p.Last, LastDepth: p.LastDepth, Plane: p.Plane, Report: report, Bind: b})
	})
}

// onePass turns run, a one-pass kernel's call on the space and depth sides
// of a call of op (a dry run that names its kernel to report, where
// report is set; bound to b, where b is set), into the function short
// returns: with r set, it first describes the call into r, plan p on one
// goroutine.
func onePass(op shape.Op, p fmt.Stringer, r *engine.Route, run func(space, depth []byte, report func(string), b *engine.Binder)) func(dst, src []byte, b *engine.Binder) {
	if r != nil {
		r.Workers, r.Plan = 1, p.String()
		run(nil, nil, func(k string) { r.Kernel = k }, nil)
	}
	if op == shape.SpaceToDepth {
		return func(dst, src []byte, b *engine.Binder) { run(src, dst, nil, b) }
	}
	return func(dst, src []byte, b *engine.Binder) { run(dst, src, nil, b) }
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
