package engine

import (
	"fmt"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// AsTranspose, which internal/transpose sets, plans operator g on tier k
// as its rank-6 transpose where k's kernels take that form (as runs, as
// matrices, or in two passes), else returns nil.
var AsTranspose func(k *Kit, g *shape.Geometry) *Prepared

// Operator plans a validated operator call on bytes (g.Elem bytes an
// element): by its rows, unless a row call has no kernel of the tier,
// where its rank-6 transpose goes to the kernels that AsTranspose finds,
// if any (b = 1 is a copy, which the rows already do whole). The lane
// kernels take only some pixels (C' and b of their tables; elements of
// several words only where they zip runs of that size); the transposes'
// lane kernels, two passes and gather plans take any. On a Zen 4, NCHW
// DepthToSpace b = 2 of 3-byte elements ran at 0.05 of copy() in Go
// loops, 0.58-1.15 in two passes; on an Intel Xeon, NHWC CRD b = 3 of
// C' = 5 at 0.02-0.13 of a non-streaming copy in Go loops, 0.24-0.92 as
// transposes.
func (k *Kit) Operator(g *shape.Geometry) *Prepared {
	c, looped := k.operator(g)
	if looped && AsTranspose != nil && g.B > 1 {
		if t := AsTranspose(k, g); t != nil {
			return t
		}
	}
	return c
}

// operator is Operator by rows, and whether a row call fell to the
// generic tier's loops.
func (k *Kit) operator(g *shape.Geometry) (c *Prepared, looped bool) {
	n := g.Len() * g.Elem
	want := WantOf(g.Workers, Rows)
	c = &Prepared{toDepth: g.ToDepth, bytes: n, want: want, tier: k.Name, plan: Text("an empty tensor")}
	if n == 0 {
		return c, false
	}
	stream, split := Streams(Rows, n), want.Splits(n)
	if !stream {
		if plan, calls := k.Kernels.OnePass(g); calls != nil {
			if !split {
				c.calls, c.plan = calls, plan
				return c, false
			}
			c.whole, c.wholePlan = calls, plan
		}
	}
	w := Word(g.Elem, MaxWord)
	p := newPlan(g, g.Elem/w)
	p.args.Streaming = stream
	emit := newEmitter(&p, w, func(a *Args, so, do int) Call {
		c, own := k.row(g.ToDepth, p.kind, a, so, do, w)
		looped = looped || !own
		return c
	})
	total := p.total()
	pieces := 1
	if split {
		pieces = want.Pieces(total, n)
		c.pieces = make([]int, 0, pieces)
	}
	kernels := 0
	for i := range pieces {
		lo, hi := Share(i, pieces, total), Share(i+1, pieces, total)
		if split {
			c.pieces = append(c.pieces, len(c.calls))
		}
		kernels += kernelCalls(lo, hi, p.args.Groups)
		c.calls = append(c.calls, emit.calls(lo, hi)...)
	}
	a := p.args
	c.plan = rowText{kind: p.kind, groups: total, rows: a.Rows, w: a.W, b: a.B, cp: a.Cp, elem: g.Elem, calls: kernels}
	return c, looped
}

// row returns the call of a row call: the tier's kernel (own), or the
// generic tier's loop where it has none. Offsets and strides count words
// of w bytes.
func (k *Kit) row(toDepth bool, kind Kind, a *Args, so, do, w int) (c Call, own bool) {
	sn, dn := a.Spans()
	space, depth := Span{Off: so * w, Len: sn * w}, Span{Off: do * w, Len: dn * w, Depth: true}
	if c := k.Kernels.Row(toDepth, kind, space, depth, a, w); c != nil {
		return c, true
	}
	if c := generic.Kernels.Row(toDepth, kind, space, depth, a, w); c != nil {
		return c, k == generic
	}
	panic(fmt.Sprintf("engine: no kernel for a %v call of %d-byte words: %+v", kind, w, *a))
}

// RowLoops are pure-Go row loops for elements of any type T, pointers
// included, that package generic runs on typed slices.
type RowLoops[T any] interface {
	Run(toDepth bool, kind Kind, space, depth []T, a *Args)
}

// Execute runs a validated call on typed slices, whose lengths count
// elements, with loops k alone: package generic's path for any T. Like a
// prepared call it spreads large calls over goroutines.
func Execute[T any](k RowLoops[T], g *shape.Geometry, dst, src []T) {
	if g.Len() == 0 {
		return
	}
	p := newPlan(g, 1)
	space, depth := sides(g.ToDepth, dst, src)
	total := p.total()
	run := func(lo, hi int) {
		p.each(lo, hi, func(a *Args, so, do int) {
			sn, dn := a.Spans()
			k.Run(g.ToDepth, p.kind, space[so:so+sn], depth[do:do+dn], a)
		})
	}
	Spread(WantOf(g.Workers, Rows), g.Len()*int(unsafe.Sizeof(*new(T))), total, run)
}

// Spread runs run over the units [0, total) of a call that moves bytes,
// in ranges, on as many goroutines as want grants (the caller's alone, or
// a crew taking the ranges in order as each is free): the parallel loop of
// work that is no prepared call (package generic's operators, images).
func Spread(want Want, bytes, total int, run func(lo, hi int)) {
	n := want.Workers(bytes, total)
	w := (*crew)(nil)
	if n > 1 {
		w = takeCrew()
	}
	if w == nil {
		run(0, total)
		return
	}
	pieces := want.Pieces(total, bytes)
	w.work = func(i int) { run(Share(i, pieces, total), Share(i+1, pieces, total)) }
	w.share(pieces, n)
}

// Bytes views a slice of pointer-free elements as its bytes: the typed
// entry points hand the kernels bytes.
func Bytes[T any](s []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(*new(T)))
}
