package simd

import (
	"fmt"
	"slices"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/gather"
	"github.com/blockshuffle/blockshuffle/internal/memo"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// gather returns a function that runs a call as a gather plan
// (internal/gather) with the gather kernels of t or of its base, or nil if
// the call's rows are too long to gain or it has no plan. With r set it
// also describes the call into r.
func (t *Table) gather(g *shape.Geometry, r *engine.Route) func(dst, src []byte) {
	t = t.gatherer()
	if t == nil || !gather.Short(g, t.windows) {
		return nil
	}
	p := gather.Cached(t.windows, g)
	if p == nil {
		return nil
	}
	if r != nil {
		r.Workers = 1
		r.Plan = p.String()
		r.Kernel = name(t.Gather[p.Fwd.Groups])
	}
	return t.checked(p).run
}

// A checkedPlan is a gather plan with a checked copy of each of its
// programs (GatherProg), for the table whose kernels run it.
type checkedPlan struct {
	t       *Table
	plan    *gather.Plan
	progs   []*gather.Prog // the plan's programs
	checked []*GatherProg  // and their copies
}

type checkedKey struct {
	t *Table
	p *gather.Plan
}

// checkedPlans holds the cached plans' checked copies; its keys keep the
// plans alive, so no other plan can take a key's address.
var checkedPlans memo.Cache[checkedKey, *checkedPlan]

// checked returns the checked copy of a cached plan of t's.
func (t *Table) checked(p *gather.Plan) *checkedPlan {
	return checkedPlans.Get(checkedKey{t, p}, func() *checkedPlan { return t.check(p) })
}

// check copies and checks the programs of p for t's kernels.
func (t *Table) check(p *gather.Plan) *checkedPlan {
	c := &checkedPlan{t: t, plan: p, progs: p.Progs()}
	for _, q := range c.progs {
		c.checked = append(c.checked, NewGatherProg(q.Offs, q.Idx, q.Steps, q.Groups, t.windows))
	}
	return c
}

func (c *checkedPlan) run(dst, src []byte) { c.plan.Run(c.runProg, dst, src) }

// runProg is a gather.Kernel: it runs tiles of one of the plan's programs
// with the table's kernel for its groups.
func (c *checkedPlan) runProg(p *gather.Prog, dst, src []byte, reps, srcRep, dstRep int) {
	i := slices.Index(c.progs, p)
	f := c.t.Gather[p.Groups]
	if i < 0 || f == nil {
		panic(fmt.Sprintf("simd: a gather program of %d groups: %d in the plan, no kernel: %v", p.Groups, i, f == nil))
	}
	f.Run(&GatherArgs{Dst: dst, Src: src, Reps: reps, SrcRep: srcRep, DstRep: dstRep}, c.checked[i])
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
	t.gatherer().check(p).run(dst, src)
}

// gatherer is the table whose gather kernels t uses: t, its base, or nil
// for none.
func (t *Table) gatherer() *Table {
	for t != nil && t.Gather[1] == nil {
		t = t.Base
	}
	return t
}
