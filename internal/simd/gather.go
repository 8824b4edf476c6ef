package simd

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/gather"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// gather runs a call as a gather plan (internal/gather) with the gather
// kernels of t or of its base, if the call's rows are short enough to gain
// and a plan exists, and reports whether it did. With r set it only
// describes the call into r.
func (t *Table) gather(g shape.Geometry, dst, src []byte, r *engine.Route) bool {
	t = t.gatherer()
	if t == nil || !gather.Short(&g, t.windows) {
		return false
	}
	p := gather.Cached(t.windows, &g)
	if p == nil {
		return false
	}
	if r != nil {
		r.Workers = 1
		r.Plan = p.String()
		r.Kernel = name(t.Gather[p.Fwd.Groups])
		return true
	}
	p.Run(t.runProg, dst, src)
	return true
}

// runProg is a gather.Kernel: it runs tiles of one program with the
// table's kernel for its groups.
func (t *Table) runProg(p *gather.Prog, dst, src []byte, reps, srcRep, dstRep int) {
	f := t.Gather[p.Groups]
	if f == nil {
		panic(fmt.Sprintf("simd: no gather kernel of %d groups", p.Groups))
	}
	f.Run(&GatherArgs{
		Dst: dst, Src: src, Offs: engine.Bytes(p.Offs), Idx: p.Idx,
		Steps: p.Steps, Reps: reps, SrcRep: srcRep, DstRep: dstRep,
	}, t.windows, p.Groups)
}

// GatherPlan builds, uncached, the gather plan of a validated call for the
// gather kernels of t or of its base, whatever gather.Short says, or
// reports false if they have none or the call has no plan: for the kernel
// tests, which run every plan.
func (t *Table) GatherPlan(g *shape.Geometry) (*gather.Plan, bool) {
	t = t.gatherer()
	if t == nil {
		return nil, false
	}
	return gather.New(t.windows, g)
}

// RunPlan runs a plan of GatherPlan with the table's gather kernels.
func (t *Table) RunPlan(p *gather.Plan, dst, src []byte) {
	p.Run(t.gatherer().runProg, dst, src)
}

// gatherer is the table whose gather kernels t uses: t, its base, or nil
// for none.
func (t *Table) gatherer() *Table {
	for t != nil && t.Gather[1] == nil {
		t = t.Base
	}
	return t
}
