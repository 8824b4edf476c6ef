package blockshuffle

import "github.com/blockshuffle/blockshuffle/internal/shape"

// Errors. Every error the package returns wraps one of these (test with
// errors.Is) and names the offending values; dst is untouched whenever an
// error is returned.
var (
	// ErrBlockSize: BlockSize < 1.
	ErrBlockSize = shape.ErrBlockSize
	// ErrNegativeDim: N, C, H or W < 0.
	ErrNegativeDim = shape.ErrNegativeDim
	// ErrNotDivisible: DepthToSpace with C not a multiple of BlockSize²,
	// or SpaceToDepth with H or W not a multiple of BlockSize.
	ErrNotDivisible = shape.ErrNotDivisible
	// ErrOverflow: an element count, byte count or output dim does not fit
	// in int, or a tensor is larger than 2^57 - 1 bytes (on 64-bit
	// platforms; no kernel addresses more).
	ErrOverflow = shape.ErrOverflow
	// ErrLength: len(dst) or len(src) is not the tensor's element count
	// (times elemSize for the byte API).
	ErrLength = shape.ErrLength
	// ErrOverlap: dst and src share memory; in-place shuffles are not supported.
	ErrOverlap = shape.ErrOverlap
	// ErrOrder: an Order other than DCR and CRD, or an unknown order name.
	ErrOrder = shape.ErrOrder
	// ErrLayout: a Layout other than NCHW and NHWC, or an unknown layout name.
	ErrLayout = shape.ErrLayout
	// ErrElemSize: elemSize < 1 in the byte API.
	ErrElemSize = shape.ErrElemSize
	// ErrWorkers: Workers < 0.
	ErrWorkers = shape.ErrWorkers
	// ErrOp: an Op other than OpDepthToSpace and OpSpaceToDepth.
	ErrOp = shape.ErrOp
	// ErrRank: ONNXParams was given dims of a tensor that is not 4-D, or
	// NewTransposePlan a shape of more than MaxTransposeRank dims.
	ErrRank = shape.ErrRank
	// ErrPerm: a transpose's perm is not a permutation of 0..len(shape)-1.
	ErrPerm = shape.ErrPerm
	// ErrElemType: RunPlan's element type is not the size the plan was
	// made for.
	ErrElemType = shape.ErrElemType
)
