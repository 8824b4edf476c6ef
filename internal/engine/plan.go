package engine

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// A plan is the outer loop nest of one call: up to three outer loops, each
// moving both the space and the depth offset, around kernel calls that each
// walk groups of args.Rows rows. The groups of all outer iterations, taken in
// order, number total(); any range of them can be run on its own, which is
// how calls are split across goroutines.
type plan struct {
	kind  Kind
	args  Args // Groups is the number of groups per outer iteration
	outer [3]loop
}

type loop struct{ n, space, depth int }

// groupedBlocks is the largest block size whose NCHW kernels take all b
// block rows of a group in one call: with b = 4 and 8, reading b*b planes
// at once was up to 7x slower than one block row per pass
// (BenchmarkShuffle), where with b = 2 it writes large outputs faster.
const groupedBlocks = 3

// smallBlock is the size, in bytes, of the b*b planes of one output
// channel up to which every block size takes all b block rows in one
// kernel call, as b <= groupedBlocks do: planes this small cannot fight
// over the L1 sets, and a call per block row of a few short rows costs
// more than its rows (1x64x6x6 b = 4 of bytes on a Zen 4: 0.41 µs
// grouped, 1.1 not).
const smallBlock = 16 << 10

// newPlan builds the loop nest of a validated, non-empty call. Strides count
// words; every element is words words long.
func newPlan(g *shape.Geometry, words int) plan {
	b, d, cp := g.B, g, g.Cp
	p := plan{outer: [3]loop{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}}}
	a := &p.args
	a.B, a.W, a.Cp, a.Words = b, d.W, 1, 1
	switch {
	case !g.NHWC && b == 1: // a copy, as contiguous runs
		p.kind = Runs
		a.Rows, a.SpaceStride, a.DepthStride = 1, d.W, d.W
		a.Groups, a.GroupSpace, a.GroupDepth = d.N*d.C*d.H, d.W, d.W
		a.XS, a.JS, a.CS = 1, 1, 1
	case !g.NHWC:
		// Space row h*b+i of output plane c zips row h of the b depth
		// planes holding (c, i, j) for j < b.
		plane, wb := d.H*d.W, d.W*b
		lane, istep, cstep := cp*plane, b*cp*plane, plane // DCR: channel (i*b+j)*C' + c
		if g.CRD {
			lane, istep, cstep = plane, b*plane, b*b*plane // CRD: channel c*b*b + i*b + j
		}
		p.kind = Interleave
		a.XS, a.JS, a.CS = 1, lane, 1
		a.Groups, a.GroupSpace, a.GroupDepth = d.H, b*wb, d.W
		a.Rows, a.SpaceStride, a.DepthStride = 1, wb, istep
		p.outer[0] = loop{d.N, d.C * plane, d.C * plane}
		grouped := b <= groupedBlocks || b*b*plane*g.Elem <= smallBlock
		switch {
		case grouped && cstep == b*b*plane && cp > d.H:
			// CRD, where the planes of one output channel lie b*b
			// planes after the last's on both sides: with more
			// channels than rows (YOLO's 13x13 maps of 64), a call
			// per block row i takes every row h of every channel,
			// the channels as groups: b kernel calls where a call
			// per row h made H. (The rows' stride does not continue
			// the channels' on the depth side, so only one of the
			// two loops can be the groups.) YOLO's 8-byte
			// DepthToSpace on a Zen 5: 0.52 of copy(), 0.38 per row h.
			a.Rows, a.SpaceStride, a.DepthStride = d.H, b*wb, d.W
			a.Groups, a.GroupSpace, a.GroupDepth = cp, b*b*plane, cstep
			p.outer[1] = loop{b, wb, istep}
		case grouped:
			// Rows i < b of a group are consecutive space rows, so
			// space is written in order while b*b planes are read.
			a.Rows = b
			p.outer[1] = loop{cp, b * b * plane, cstep}
		default:
			// One i per pass: b planes read at once, not b*b, which
			// for b = 8 and planes of 4 KiB or more (1x64x64x64)
			// would all fight over the same L1 sets.
			p.outer[1] = loop{b, wb, istep}
			p.outer[2] = loop{cp, b * b * plane, cstep}
		}
	default: // NHWC
		// Space rows (n, h*b+i), i < b, form a group; row i takes, from
		// every pixel of depth row (n, h), the b*C' channels of block row i.
		rowLen := d.W * b * cp
		p.kind, a.Cp, a.XS = Runs, cp, d.C
		a.JS, a.CS = cp, 1 // DCR: channel (i*b + j)*C' + c, contiguous in (j, c)
		istep := b * cp
		if g.CRD && cp > 1 && b > 1 { // b = 1: a copy, as DCR
			p.kind = Regroup // CRD: channel c*b*b + i*b + j
			a.JS, a.CS = 1, b*b
			istep = b
		}
		a.Rows, a.SpaceStride, a.DepthStride = b, rowLen, istep
		a.Groups, a.GroupSpace, a.GroupDepth = d.N*d.H, b*rowLen, d.W*d.C
	}
	a.XS, a.JS, a.CS = a.XS*words, a.JS*words, a.CS*words
	a.SpaceStride, a.DepthStride, a.Words = a.SpaceStride*words, a.DepthStride*words, words
	a.GroupSpace, a.GroupDepth = a.GroupSpace*words, a.GroupDepth*words
	for i := range p.outer {
		p.outer[i].space *= words
		p.outer[i].depth *= words
	}
	p.coalesce()
	return p
}

// coalesce folds inner outer loops into the groups when they continue the
// groups' strides on both sides, so that kernels get fewer, longer calls.
func (p *plan) coalesce() {
	a := &p.args
	for i := len(p.outer) - 1; i >= 0; i-- {
		l := &p.outer[i]
		if l.n == 1 {
			continue
		}
		if l.space != a.Groups*a.GroupSpace || l.depth != a.Groups*a.GroupDepth {
			return
		}
		a.Groups *= l.n
		*l = loop{1, 0, 0}
	}
}

func (p *plan) total() int {
	return p.outer[0].n * p.outer[1].n * p.outer[2].n * p.args.Groups
}

// each calls f for every kernel call of groups [lo, hi) of the plan: its
// arguments, and the offsets of its space and depth sides in the tensors.
func (p *plan) each(lo, hi int, f func(a *Args, so, do int)) {
	a, groups := p.args, p.args.Groups
	// The outer loops' indexes of group lo, and its place r in its kernel
	// call, are divided out once; later calls step the indexes like an
	// odometer.
	var at [len(p.outer)]int
	r := 0
	if lo > 0 {
		o := lo / groups
		r = lo % groups
		for i := len(p.outer) - 1; i >= 0; i-- {
			at[i] = o % p.outer[i].n
			o /= p.outer[i].n
		}
	}
	for lo < hi {
		a.Groups = min(groups-r, hi-lo)
		so, do := r*a.GroupSpace, r*a.GroupDepth
		for i, l := range p.outer {
			so += at[i] * l.space
			do += at[i] * l.depth
		}
		f(&a, so, do)
		lo += a.Groups
		r = 0
		for i := len(p.outer) - 1; i >= 0; i-- {
			if at[i]++; at[i] < p.outer[i].n {
				break
			}
			at[i] = 0
		}
	}
}

// rowText describes a plan of row calls, as Describe reports it.
type rowText struct {
	kind                   Kind
	groups, rows, w, b, cp int
	elem, calls            int
}

func (t rowText) String() string {
	return fmt.Sprintf("%v, %s of %s of %s of %d×%d %d-byte elements in %s",
		t.kind, count(t.groups, "group"), count(t.rows, "row"), count(t.w, "pixel"), t.b, t.cp, t.elem, count(t.calls, "kernel call"))
}
