package simd

import (
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/stack"
)

// RowUnits returns a function that runs a call with a row-unit kernel
// (internal/stack's Rows), of this table or its base, or nil if none takes
// the call's elements or the call has no plan. With r set it also
// describes the call into r.
func (t *Table) RowUnits(g *shape.Geometry, r *engine.Route) func(dst, src []byte, b *engine.Binder) {
	f, p := t.UnitPlan(g)
	if f == nil {
		return nil
	}
	return onePass(g.Op, &p, r, func(space, depth []byte, report func(string), b *engine.Binder) {
		f.Run(&UnitArgs{Space: space, Depth: depth, N: p.N, Units: p.Units, Plane: p.Plane, Groups: p.Groups, Group: p.Group, Report: report, Bind: b}, p.Elem)
	})
}

// UnitPlan returns the row-unit kernel of t (or of its base) for a
// validated call and its plan, or a nil kernel if the call has no plan or
// the first of t and its base with a row-unit or a lane kernel for the
// call's rows has only the lane kernel. The row units stand in for the
// lane kernels of AVX2 and NEON; AVX-512's own lane kernels moved rows of
// 65 to 128 bytes as fast or faster on a Zen 5 (1x16x64x64 2-byte
// SpaceToDepth: 0.88 of copy() against 0.70), so they keep those rows.
func (t *Table) UnitPlan(g *shape.Geometry) (UnitFunc, stack.Rows) {
	p, ok := stack.NewRows(g)
	if !ok {
		return nil, p
	}
	unzip := g.Op == shape.SpaceToDepth
	for s := t; s != nil; s = s.Base {
		ks := &s.UnitZip
		if unzip {
			ks = &s.UnitUnzip
		}
		if f := ks[p.Elem]; f != nil {
			return f, p
		}
		if k := s.lookup(key{unzip: unzip, w: p.Elem, b: 2}, false); k.F != nil && p.N >= k.MinN {
			return nil, p
		}
	}
	return nil, p
}
