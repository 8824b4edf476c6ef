// Package generic is blockshuffle's pure-Go implementation: the fallback of
// every SIMD tier, the only tier with the purego build tag, and the one to
// use for element types that hold pointers (string, structs with pointers),
// which must be moved by Go code so that the garbage collector sees them.
//
// Its functions behave exactly like those of the root package (same
// parameters, same errors, same results) for any element type. They are not
// naive: a call is split into an outer loop nest and inner row loops
// specialized by layout, order and the common block sizes, with no division
// per element, and large calls are spread over goroutines as Params.Workers
// allows.
//
// The row loops of this package are also the generic tier of package
// dispatch, which every SIMD tier falls back to for what it has no kernel
// for; they reach it through the module's internal engine, not through
// this package's API.
package generic

import (
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Params is blockshuffle.Params: the input dims, block size, order, layout
// and worker limit of one call.
type Params = shape.Params

// DepthToSpace moves src (input dims p.N, p.C, p.H, p.W) into dst (dims N,
// C/(b*b), H*b, W*b) as blockshuffle.DepthToSpace does, for any element type.
func DepthToSpace[T any](dst, src []T, p Params) error {
	return typed(shape.DepthToSpace, dst, src, p)
}

// SpaceToDepth moves src (input dims p.N, p.C, p.H, p.W) into dst (dims N,
// C*b*b, H/b, W/b) as blockshuffle.SpaceToDepth does, for any element type.
func SpaceToDepth[T any](dst, src []T, p Params) error {
	return typed(shape.SpaceToDepth, dst, src, p)
}

// DepthToSpaceBytes is DepthToSpace on raw elements of elemSize bytes.
func DepthToSpaceBytes(dst, src []byte, elemSize int, p Params) error {
	return tier.Do(shape.DepthToSpace, dst, src, elemSize, p)
}

// SpaceToDepthBytes is SpaceToDepth on raw elements of elemSize bytes.
func SpaceToDepthBytes(dst, src []byte, elemSize int, p Params) error {
	return tier.Do(shape.SpaceToDepth, dst, src, elemSize, p)
}

func typed[T any](op shape.Op, dst, src []T, p Params) error {
	g, err := shape.Validate(op, p, 1, len(dst), len(src), shape.Overlap(dst, src))
	if err != nil {
		return err
	}
	engine.Execute(anyKernels[T]{}, &g, dst, src)
	return nil
}

// tier is the generic tier: word kernels for the fixed widths, and the
// unit-by-unit kernels for every other element size.
var tier = &engine.Impl{
	Tier:  isa.Generic,
	W1:    wordKernels[uint8]{},
	W2:    wordKernels[uint16]{},
	W4:    wordKernels[uint32]{},
	W8:    wordKernels[uint64]{},
	W16:   wordKernels[[2]uint64]{},
	Units: anyKernels[byte]{},
}

func init() { engine.Register(tier) }
