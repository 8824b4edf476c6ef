package engine

import (
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Kind is the shape of the rows a plan hands to kernels: which layout and
// order produced them, and so how a row's elements are addressed.
type Kind uint8

const (
	// Interleave (NCHW, both orders, b > 1): each space row interleaves
	// B depth rows that lie JS units apart, element by element. Cp = 1
	// and XS = Unit.
	Interleave Kind = iota
	// Runs (NHWC DCR, NHWC CRD with C' = 1, and every b = 1 call): each
	// pixel moves one contiguous run of B*Cp elements. JS = Cp*Unit and
	// CS = Unit.
	Runs
	// Transpose (NHWC CRD, C' > 1): each pixel's [Cp][B] depth block
	// (channel stride B*B) becomes a [B][Cp] space block. JS = Unit and
	// CS = B*B*Unit.
	Transpose
)

// String returns "interleave", "runs" or "transpose".
func (k Kind) String() string {
	switch k {
	case Interleave:
		return "interleave"
	case Runs:
		return "runs"
	}
	return "transpose"
}

// Args describe one call of a kernel: Groups groups of Rows rows each,
// every row of W pixels. All strides are in units of the slice element
// type; Unit is the number of units per tensor element (1 everywhere but on
// the byte path for element sizes without kernels of their own).
//
// In row r of group g, element (x, j, c) for x < W, j < B, c < Cp is at
//
//	space[g*GroupSpace + r*SpaceStride + ((x*B + j)*Cp + c)*Unit]
//	depth[g*GroupDepth + r*DepthStride + x*XS + j*JS + c*CS]
//
// DepthToSpace copies depth to space, SpaceToDepth space to depth, one whole
// element (Unit units) at a time. The rows of a group are the B block rows
// of one row of depth pixels, so a call writes space in order. The slices a
// kernel receives end exactly after the last unit it may touch.
type Args struct {
	B, W, Cp    int
	Rows        int
	SpaceStride int
	DepthStride int
	Groups      int
	GroupSpace  int
	GroupDepth  int
	XS, JS, CS  int
	Unit        int

	// Streaming says the call belongs to a tensor too large to stay in
	// cache: kernels may write with non-temporal stores.
	Streaming bool

	// Report, if not nil, makes the call a dry run: the kernels move
	// nothing and touch no memory (the slices may be nil), but report the
	// name of the kernel or loop that would serve the call. Describe is
	// built on it, so that it names what a call really runs.
	Report func(kernel string)

	// Bind, if not nil, asks the kernel that serves the call to hand it
	// the call, bound (see Binder).
	Bind *Binder
}

// Contiguous reports whether a Runs call's rows form one block on both
// sides, so that the whole call is a single copy.
func (a *Args) Contiguous() bool {
	run := a.B * a.Cp * a.Unit
	rowLen := a.W * run
	groupLen := a.Rows * rowLen
	return a.XS == run && (a.Rows == 1 || a.SpaceStride == rowLen && a.DepthStride == rowLen) &&
		a.GroupSpace == groupLen && a.GroupDepth == groupLen
}

// spans returns how many units of space and depth a call touches.
func (a *Args) spans() (space, depth int) {
	if a.Groups == 0 || a.Rows == 0 || a.W == 0 {
		return 0, 0
	}
	base := func(g, r int) int { return (a.Groups-1)*g + (a.Rows-1)*r }
	space = base(a.GroupSpace, a.SpaceStride) + a.W*a.B*a.Cp*a.Unit
	depth = base(a.GroupDepth, a.DepthStride) + (a.W-1)*a.XS + (a.B-1)*a.JS + (a.Cp-1)*a.CS + a.Unit
	return space, depth
}

// A Binder collects, from the one kernel call of a prepared call, that
// call bound to its arguments: a function that repeats it on other tensors
// of the same sizes, its arguments checked once. A kernel hands it over
// with Set after checking its call; its slices' places are kept as Refs
// into the call's tensors. Repeated calls of a small tensor then skip the
// plan's loop, the kernel's choice and its checks (a 16-byte NHWC call on
// a Zen 4: 105 -> 55 ns).
type Binder struct {
	space, depth []byte // the tensors of the call being bound
	run          func(space, depth []byte)
	calls        int
}

// Set hands b the call, bound; a call of a plan that sets it more than
// once is not bound.
func (b *Binder) Set(run func(space, depth []byte)) {
	b.run = run
	b.calls++
}

// bound returns the bound call of op, or nil if no kernel or more than
// one set it.
func (b *Binder) bound(op shape.Op) func(dst, src []byte) {
	if b.calls != 1 {
		return nil
	}
	run := b.run
	return func(dst, src []byte) { run(sides(op, dst, src)) }
}

// newBinder returns a Binder for a call of op on dst and src.
func newBinder(op shape.Op, dst, src []byte) *Binder {
	b := &Binder{}
	b.space, b.depth = sides(op, dst, src)
	return b
}

// A Ref is where a kernel's slice lies in the tensors of a bound call, or
// the slice itself where it is not in them but memory of the kernel's
// own (a table or a program of a cached plan, which no call changes).
type Ref struct {
	depth  bool
	off, n int
	own    []byte
}

// Ref returns the place of s in the tensors of the call being bound, or
// s itself if it lies in neither.
func (b *Binder) Ref(s []byte) Ref {
	if off, ok := within(s, b.space); ok {
		return Ref{off: off, n: len(s)}
	}
	if off, ok := within(s, b.depth); ok {
		return Ref{depth: true, off: off, n: len(s)}
	}
	return Ref{own: s}
}

// within reports whether s lies in t, and where.
func within(s, t []byte) (int, bool) {
	p, base := uintptr(unsafe.Pointer(unsafe.SliceData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(t)))
	off := p - base
	return int(off), len(s) > 0 && p >= base && off <= uintptr(len(t)) && uintptr(len(s)) <= uintptr(len(t))-off
}

// In returns the slice at r in the tensors of a later call, which are as
// long as those of the call bound.
func (r Ref) In(space, depth []byte) []byte {
	switch {
	case r.own != nil:
		return r.own
	case r.depth:
		return depth[r.off : r.off+r.n]
	}
	return space[r.off : r.off+r.n]
}

// Word is the element types of the fixed widths with kernels of their
// own: no pointers, so their bytes may be moved in any grouping.
type Word interface {
	uint8 | uint16 | uint32 | uint64 | [2]uint64
}
