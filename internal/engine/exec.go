// Package engine plans and runs validated calls, and holds the tiers.
//
// A call is planned once into a Prepared call: the kernel calls that move
// it, each with its arguments checked and its slices as spans of the two
// tensors. Row calls come from a plan of outer loops around groups of
// rows (plan.go), each handed to the tier's kernels (Kernels.Row) or, where
// the tier has none, to the generic tier's loops; a call whose rows are too
// short for row kernels may instead be one pass of the tier's own
// (Kernels.OnePass). Prepared.Run makes the kernel calls in one loop, on the
// caller's goroutine or spread over several for large tensors.
//
// The tiers register here at init (Register): internal/loops the generic
// tier, package kernels one per ISA this build has. Package dispatch
// chooses the one calls use (Activate); the tests and benchmarks of the
// module run each by its name (Lookup). This is the one registry of tiers.
package engine

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Kernels are a tier's kernels, as the engine plans calls for them.
type Kernels interface {
	// Row returns the call that moves one row call of kind on spans
	// space and depth (from the depth side to the space side, or the
	// reverse where toDepth is set), whose words are w bytes (1, 2, 4, 8
	// or 16; an element is a.Words words), or nil if the tier has no
	// kernel for it. It must check that the call stays inside the spans.
	Row(toDepth bool, kind Kind, space, depth Span, a *Args, w int) Call
	// OnePass returns the calls that move a validated call in one pass where
	// its rows are too short for row calls, and a description of their
	// plan; or nil calls where the tier has none for it. It is asked only
	// for calls on one goroutine without streaming stores.
	OnePass(g *shape.Geometry) (fmt.Stringer, []Call)
	// Matrix returns the call that transposes matrix m of w-byte words
	// from span src into span dst, or nil where the tier has no kernel for
	// it. It must check that the call stays inside the spans.
	Matrix(dst, src Span, m Matrix, w int) Call
	// TransposeRuns returns the call that copies runs r from span src into span
	// dst, or nil where the tier has no kernel for them. It must check
	// that the call stays inside the spans.
	TransposeRuns(dst, src Span, r TransposeRuns) Call
}

// A Matrix is Groups groups of Reps 2-D transposes of words, the innermost
// work of a general transpose's plan (internal/transpose): in matrix i of
// group g, word (r, c), for r < Rows and c < Cols, moves from byte
// g*SrcGroup + i*SrcRep + r*SrcRow + c*w of src to g*DstGroup + i*DstRep +
// c*DstRow + r*w of dst. Streaming asks for non-temporal stores where the
// kernels have them and dst's lines allow.
type Matrix struct {
	Rows, Cols, SrcRow, DstRow int
	Reps, SrcRep, DstRep       int
	Groups, SrcGroup, DstGroup int
	Streaming                  bool
}

// TransposeRuns are the innermost work of a general transpose's plan whose last
// dim stays last: in each of Groups groups of Rows rows of Count runs,
// run x of row r of group g, Len bytes, moves from byte g*SrcGroup +
// r*SrcRow + x*SrcX of src to g*DstGroup + r*DstRow + x*DstX of dst.
// Streaming asks for non-temporal stores where the kernels have them and
// dst's lines allow.
type TransposeRuns struct {
	Len, Count, SrcX, DstX, Rows, SrcRow, DstRow, Groups, SrcGroup, DstGroup int
	Streaming                                                                bool
}

// A Tier is a tier's kernels.
type Tier struct {
	Name    string // as isa.All spells it
	Kernels Kernels
	id      uint8 // its index in isa.All, in the cache's keys
}

var (
	tiers   = map[string]*Tier{}
	generic *Tier // every tier's fallback
	active  *Tier // the tier calls use
)

// Register makes t the implementation of its tier. It is called from the
// init functions of internal/loops and package kernels.
func Register(t *Tier) {
	for i := range isa.All {
		if isa.All[i].Tier == t.Name {
			t.id = uint8(i)
		}
	}
	if t.Name == isa.Generic {
		generic = t
	}
	tiers[t.Name] = t
}

// Generic returns the generic tier, every tier's fallback.
func Generic() *Tier { return generic }

// Lookup returns the named tier, or nil if this build has none. It does
// not check that this CPU can run it: see isa.ISA.Supported.
func Lookup(name string) *Tier { return tiers[name] }

// Activate makes t the tier calls use. Package dispatch calls it once, at
// init, with the tier it chose.
func Activate(t *Tier) { active = t }

// Active returns the tier calls use.
func Active() *Tier { return active }

// Operator plans a validated operator call on bytes (g.Elem bytes an
// element).
func (t *Tier) Operator(g *shape.Geometry) *Prepared {
	n := g.Len() * g.Elem
	want := WantOf(g.Workers, Rows)
	c := &Prepared{toDepth: g.ToDepth, bytes: n, want: want, tier: t.Name, plan: Text("an empty tensor")}
	if n == 0 {
		return c
	}
	stream, split := Streams(Rows, n), want.Splits(n)
	if !stream {
		if plan, calls := t.Kernels.OnePass(g); calls != nil {
			if !split {
				c.calls, c.plan = calls, plan
				return c
			}
			c.whole, c.wholePlan = calls, plan
		}
	}
	w := Word(g.Elem, MaxWord)
	p := newPlan(g, g.Elem/w)
	finer := split && p.total() < n/minWorkerBytes
	if finer {
		p.rowsApart()
	}
	p.args.Streaming = stream
	emit := newEmitter(&p, w, func(a *Args, so, do int) Call { return t.row(g.ToDepth, p.kind, a, so, do, w) })
	total := p.total()
	pieces := 1
	if split {
		pieces = Pieces(total, n)
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
	return c
}

// row returns the call of a row call: the tier's kernel, or the generic
// tier's loop where it has none. Offsets and strides count words of w
// bytes.
func (t *Tier) row(toDepth bool, kind Kind, a *Args, so, do, w int) Call {
	sn, dn := a.spans()
	space, depth := Span{Off: so * w, Len: sn * w}, Span{Off: do * w, Len: dn * w, Depth: true}
	if k := t.Kernels.Row(toDepth, kind, space, depth, a, w); k != nil {
		return k
	}
	if k := generic.Kernels.Row(toDepth, kind, space, depth, a, w); k != nil {
		return k
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
			sn, dn := a.spans()
			k.Run(g.ToDepth, p.kind, space[so:so+sn], depth[do:do+dn], a)
		})
	}
	bytes := g.Len() * int(unsafe.Sizeof(*new(T)))
	n := WantOf(g.Workers, Rows).Workers(bytes, total)
	var wg sync.WaitGroup
	bound := func(i int) int { return Share(i, n, total) }
	for i := 1; i < n; i++ {
		wg.Go(func() { run(bound(i), bound(i+1)) })
	}
	run(0, bound(1))
	wg.Wait()
}

// Bytes views a slice of pointer-free elements as its bytes: the typed
// entry points hand the kernels bytes.
func Bytes[T any](s []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(*new(T)))
}
