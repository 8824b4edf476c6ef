package blockshuffle

import (
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
	o, sp, ok := transpose.Match(shape, perm)
	return Op(o), public(sp), ok
}

// Transpose transposes src, a row-major tensor of the given shape, by perm
// into dst, when MatchTranspose recognizes the transpose as DepthToSpace or
// SpaceToDepth; it is the fast path of a host's Transpose kernel:
//
//	if handled, err := blockshuffle.Transpose(dst, src, shape, perm); handled {
//		return err
//	}
//	// the host's own transpose
//
// handled is false, and dst untouched, when the transpose is not one of the
// ops; then err is nil. Otherwise err is what DepthToSpace or SpaceToDepth
// reports, for example ErrLength when len(dst) or len(src) is not the
// element count of shape. The call uses automatic Workers; for another
// value, call MatchTranspose, set p.Workers and call the op.
func Transpose[T Element](dst, src []T, shape, perm []int) (handled bool, err error) {
	op, p, ok := MatchTranspose(shape, perm)
	if !ok {
		return false, nil
	}
	return true, typed(op.internal(), dst, src, p)
}

// TransposeBytes is Transpose on raw elements of elemSize bytes: dst and src
// each hold the element count of shape times elemSize bytes.
func TransposeBytes(dst, src []byte, elemSize int, shape, perm []int) (handled bool, err error) {
	op, p, ok := MatchTranspose(shape, perm)
	if !ok {
		return false, nil
	}
	return true, engine.Active().Do(op.internal(), dst, src, elemSize, p.internal())
}

// ONNXParams turns what an ONNX DepthToSpace or SpaceToDepth node holds
// into Params: dims, the input tensor's shape (4-D, NCHW); blocksize, the
// attribute; mode, the attribute "DCR" or "CRD", or "" when the node has
// none, which means ONNX's default, DCR. Both ops read mode as ONNX defines
// it: DepthToSpace has had it since opset 11, SpaceToDepth since opset 28
// (a node of an older opset has none, so pass ""). Modes are matched
// exactly, case included, as ONNX does; ParseOrder is the lenient reader
// of names for people.
//
// It checks what the op will check, and every int64 against the range of
// int, so that an error names the attribute or dim at fault and wraps
// ErrRank, ErrNegativeDim, ErrOverflow, ErrBlockSize, ErrOrder,
// ErrNotDivisible or ErrOp. The output tensor's dims are
// p.DepthToSpaceDims() or p.SpaceToDepthDims().
func ONNXParams(op Op, dims []int64, blocksize int64, mode string) (Params, error) {
	p, err := shape.ONNX(op.internal(), dims, blocksize, mode)
	return public(p), err
}
