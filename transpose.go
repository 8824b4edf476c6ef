package blockshuffle

import (
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/transpose"
)

// MatchTranspose reports whether transposing a row-major tensor of the given
// shape by perm (out dim k = in dim perm[k]) moves every element exactly as
// op with p does on the same flat data; if so it returns them.
//
// Graphs without a DepthToSpace or SpaceToDepth node write the op as
// Reshape, Transpose, Reshape: ONNX's own function definitions, PyTorch's
// export of pixel_shuffle and pixel_unshuffle, TensorFlow's depth_to_space
// and space_to_depth by hand. MatchTranspose recognizes the Transpose of all
// eight (op, order, layout) combinations, at rank 6, at rank 5 with N left
// out, with dims of size 1 anywhere, and with any dim split into adjacent
// factors; the sizes written in a rank-6 or rank-5 form come back in p.
//
// It never reports a false match: two transposes move data alike exactly
// when they agree after dropping dims of size 1 and merging dims that stay
// adjacent, and that equality is what it checks. An identity permutation
// (after dropping dims of size 1) matches with BlockSize 1, a plain copy,
// and so does any transpose of an empty tensor. Invalid input (perm not a
// permutation of 0..len(shape)-1, a negative dim, more elements than an int
// counts) does not match. p.Workers is 0.
func MatchTranspose(shape, perm []int) (op Op, p Params, ok bool) {
	g, ok := transpose.Match(shape, perm)
	if !ok {
		return 0, Params{}, false
	}
	var dims [5]int
	r := g.RequestIn(&dims)
	op, p = paramsOf(&r)
	return op, p, true
}

// MaxTransposeRank is the highest rank Transpose, TransposeBytes and
// NewTransposePlan take.
const MaxTransposeRank = shape.MaxRank

// Transpose transposes src, a row-major tensor of the given shape, by perm
// into dst: output dim k is input dim perm[k], as ONNX's Transpose and
// numpy.transpose have it. Every permutation of rank 0 to MaxTransposeRank
// is handled: a transpose that MatchTranspose recognizes as DepthToSpace
// or SpaceToDepth of more than one block runs as that op, with automatic
// Workers; any other drops its dims of size 1, merges the dims that stay
// adjacent, and copies runs where the last dim stays last, or transposes
// the matrix between the two dims contiguous in src and in dst in SIMD
// tiles, large tensors on several goroutines as Params.Workers = 0
// chooses. A host's
// Transpose kernel calls it first:
//
//	if handled, err := blockshuffle.Transpose(dst, src, shape, perm); handled {
//		return err
//	}
//	// the host's own transpose, for ranks above MaxTransposeRank
//
// handled is false, with err nil and dst untouched, only for ranks above
// MaxTransposeRank. Invalid input is handled: err wraps ErrPerm,
// ErrNegativeDim, ErrOverflow, ErrLength (len(dst) or len(src) is not the
// element count of shape) or ErrOverlap, and dst is untouched. A shape
// and perm seen lately are matched and planned once, and their calls
// allocate nothing; a plan made once (NewTransposePlan) also saves the
// checks and the cache's lookup on every call.
func Transpose[T Element](dst, src []T, shape, perm []int) (handled bool, err error) {
	if len(shape) > MaxTransposeRank {
		return false, nil
	}
	size := int(unsafe.Sizeof(*new(T)))
	return true, runTranspose(engine.Bytes(dst), engine.Bytes(src), shape, perm, size, size)
}

// TransposeBytes is Transpose on raw elements of elemSize bytes: dst and src
// each hold the element count of shape times elemSize bytes. An elemSize
// below 1 is an error wrapping ErrElemSize.
func TransposeBytes(dst, src []byte, elemSize int, shape, perm []int) (handled bool, err error) {
	if len(shape) > MaxTransposeRank {
		return false, nil
	}
	return true, runTranspose(dst, src, shape, perm, elemSize, 1)
}

// runTranspose makes a transpose call on the bytes of dst and src,
// elements of elem bytes, whose lengths count slice elements of sliceElem
// bytes.
func runTranspose(dst, src []byte, dims, perm []int, elem, sliceElem int) error {
	var r shape.Request
	r.Transpose, r.Elem, r.Dims, r.Perm = true, elem, dims, perm
	return engine.Active().Do(&r, transpose.Plan, sliceElem, dst, src)
}

// transposeRequest is the request of a transpose, for a plan.
func transposeRequest(dims, perm []int, elem, workers int) shape.Request {
	return shape.Request{Transpose: true, Elem: elem, Workers: workers, Dims: dims, Perm: perm}
}
