package shape

import (
	"fmt"
	"slices"
)

// MaxRank is the most dims a Request holds: a transpose's rank (an
// operator's four dims and block size are five).
const MaxRank = 15

// A Request is one call as an entry point receives it, before any check:
// an operator (Op, Order, Layout, Dims) or a transpose (Dims, Perm), on
// elements of Elem bytes, on at most Workers goroutines (0: automatic).
// It is all a prepared call depends on, and the key of the cache of them
// (internal/engine), which takes a Request it has seen for a valid one.
type Request struct {
	Transpose bool
	// Op, Order and Layout are an operator's values as package
	// blockshuffle numbers its Op, Order and Layout: DepthToSpace,
	// SpaceToDepth; DCR, CRD; NCHW, NHWC; any other is an error.
	Op, Order, Layout uint8
	Elem, Workers     int
	// Dims are an operator's input dims N, C, H, W and its block size,
	// or a transpose's shape; Perm is a transpose's perm.
	Dims, Perm []int
}

// The values of an operator's Op, Order and Layout in a Request.
const (
	DepthToSpace, SpaceToDepth = 0, 1
	DCR, CRD                   = 0, 1
	NCHW, NHWC                 = 0, 1
)

// Name is what the request's errors call it: its operator
// (DepthToSpace, SpaceToDepth, or Op(n) for another value), or Transpose.
func (r *Request) Name() string {
	switch {
	case r.Transpose:
		return "Transpose"
	case r.Op == DepthToSpace:
		return "DepthToSpace"
	case r.Op == SpaceToDepth:
		return "SpaceToDepth"
	}
	return fmt.Sprintf("Op(%d)", r.Op)
}

// Subject is what a plan's errors are about: the operator's name, or
// "Transpose: shape [2 3] by perm [1 0]".
func (r *Request) Subject() string {
	if r.Transpose {
		return "Transpose: " + r.tensor(1)
	}
	return r.Name()
}

// Check validates an operator's request, all but its slices, and
// describes it. Its errors wrap ErrOp, ErrBlockSize, ErrOrder, ErrLayout,
// ErrWorkers, ErrElemSize, ErrNegativeDim, ErrNotDivisible or
// ErrOverflow. r.Dims holds five values.
func (r *Request) Check() (Geometry, error) {
	n, c, h, w, b := r.Dims[0], r.Dims[1], r.Dims[2], r.Dims[3], r.Dims[4]
	fail := func(err error, format string, args ...any) (Geometry, error) {
		return Geometry{}, Invalid(r.Name(), err, format, args...)
	}
	switch {
	case r.Transpose || r.Op > SpaceToDepth:
		return fail(ErrOp, "want OpDepthToSpace or OpSpaceToDepth")
	case b < 1:
		return fail(ErrBlockSize, "BlockSize = %d", b)
	case r.Order > CRD:
		return fail(ErrOrder, "Order = %d (want DCR or CRD)", r.Order)
	case r.Layout > NHWC:
		return fail(ErrLayout, "Layout = %d (want NCHW or NHWC)", r.Layout)
	case r.Workers < 0:
		return fail(ErrWorkers, "Workers = %d", r.Workers)
	case r.Elem < 1:
		return fail(ErrElemSize, "elemSize = %d", r.Elem)
	}
	for i, name := range []string{"N", "C", "H", "W"} {
		if r.Dims[i] < 0 {
			return fail(ErrNegativeDim, "%s = %d", name, r.Dims[i])
		}
	}
	g := Geometry{ToDepth: r.Op == SpaceToDepth, CRD: r.Order == CRD, NHWC: r.Layout == NHWC, B: b, Elem: r.Elem, Workers: r.Workers}
	bb, bbOK := mul(b, b)
	if g.ToDepth {
		if h%b != 0 || w%b != 0 {
			return fail(ErrNotDivisible, "H = %d and W = %d must be multiples of BlockSize = %d", h, w, b)
		}
		depthC, ok := mul(c, bb)
		if !ok || (!bbOK && c != 0) {
			return fail(ErrOverflow, "output channels C*BlockSize*BlockSize = %d*%d*%d", c, b, b)
		}
		g.N, g.C, g.H, g.W, g.Cp = n, depthC, h/b, w/b, c
	} else {
		if (!bbOK || c%bb != 0) && c != 0 { // 0 is a multiple of every b*b, even one too big for int
			return fail(ErrNotDivisible, "C = %d is not a multiple of BlockSize*BlockSize = %d*%d", c, b, b)
		}
		if _, ok := mul(h, b); !ok {
			return fail(ErrOverflow, "output height H*BlockSize = %d*%d", h, b)
		}
		if _, ok := mul(w, b); !ok {
			return fail(ErrOverflow, "output width W*BlockSize = %d*%d", w, b)
		}
		g.N, g.C, g.H, g.W = n, c, h, w
		if bbOK {
			g.Cp = c / bb
		}
	}
	if _, ok := Bytes(r.Elem, n, c, h, w); !ok {
		return fail(ErrOverflow, "%s is more than %d bytes", r.tensor(1), MaxBytes)
	}
	return g, nil
}

// CheckTranspose validates a transpose's request, all but its slices: a
// row-major tensor of shape r.Dims, of rank at most MaxRank, transposed
// by r.Perm (output dim k is input dim perm[k]). It returns the tensor's
// size in bytes. Its errors wrap ErrRank, ErrElemSize, ErrWorkers,
// ErrPerm, ErrNegativeDim or ErrOverflow.
func (r *Request) CheckTranspose() (bytes int, err error) {
	fail := func(sentinel error, format string, args ...any) (int, error) {
		return 0, Invalid("Transpose of "+r.tensor(1), sentinel, format, args...)
	}
	switch {
	case len(r.Dims) > MaxRank:
		return fail(ErrRank, "%d dims, at most %d", len(r.Dims), MaxRank)
	case r.Elem < 1:
		return fail(ErrElemSize, "elemSize = %d", r.Elem)
	case r.Workers < 0:
		return fail(ErrWorkers, "Workers = %d", r.Workers)
	case len(r.Perm) != len(r.Dims):
		return fail(ErrPerm, "%d dims in perm, %d in shape", len(r.Perm), len(r.Dims))
	case !IsPermutation(r.Perm):
		return fail(ErrPerm, "not a permutation of 0..%d", len(r.Perm)-1)
	case slices.ContainsFunc(r.Dims, func(d int) bool { return d < 0 }):
		return fail(ErrNegativeDim, "a dim below 0")
	}
	bytes, ok := Bytes(r.Elem, r.Dims...)
	if !ok {
		return fail(ErrOverflow, "more than %d bytes", MaxBytes)
	}
	return bytes, nil
}

// IsPermutation reports whether perm, of at most MaxRank entries, is a
// permutation of 0..len(perm)-1.
func IsPermutation(perm []int) bool {
	if len(perm) > MaxRank {
		return false
	}
	var seen [MaxRank]bool
	for _, d := range perm {
		if d < 0 || d >= len(perm) || seen[d] {
			return false
		}
		seen[d] = true
	}
	return true
}

// Slices checks the slices of a call whose request passed its check and
// whose tensors are bytes long each: both lengths, which count slice
// elements of sliceElem bytes, must be bytes/sliceElem, and the slices
// must not overlap.
func (r *Request) Slices(bytes, sliceElem, dstLen, srcLen int, overlap bool) error {
	want := bytes / sliceElem
	switch {
	case srcLen != want:
		return fmt.Errorf("blockshuffle: %s: len(src) = %d, want %d for %s: %w", r.Name(), srcLen, want, r.tensor(sliceElem), ErrLength)
	case dstLen != want:
		return fmt.Errorf("blockshuffle: %s: len(dst) = %d, want %d for %s: %w", r.Name(), dstLen, want, r.tensor(sliceElem), ErrLength)
	case overlap:
		return fmt.Errorf("blockshuffle: %s: %w (in place is not supported)", r.Name(), ErrOverlap)
	}
	return nil
}

// tensor describes the request's tensors in an error whose lengths count
// slice elements of sliceElem bytes: "N=1 C=8 H=2 W=2", with the element
// size where a slice element is not one tensor element, or "shape [2 3]
// by perm [1 0]". It copies the request's slices, so that
// formatting them leaves the caller's on its stack.
func (r *Request) tensor(sliceElem int) string {
	if r.Transpose {
		return fmt.Sprintf("shape %v by perm %v", slices.Clone(r.Dims), slices.Clone(r.Perm))
	}
	s := fmt.Sprintf("N=%d C=%d H=%d W=%d", r.Dims[0], r.Dims[1], r.Dims[2], r.Dims[3])
	if e := r.Elem / sliceElem; e != 1 {
		s += fmt.Sprintf(" elemSize=%d", e)
	}
	return s
}
