// Package generic runs blockshuffle's operators on any element type,
// including those that hold pointers (string, structs with pointers), which
// must be moved by Go code so that the garbage collector sees them.
//
// Its functions behave exactly like those of package blockshuffle (the same
// Params, the same errors, the same results) with pure Go alone: they run
// the generic tier's row loops, split into an outer loop nest and inner
// loops specialized by layout, order and the common block sizes, with no
// division per element, and spread large calls over goroutines as
// Params.Workers allows. The generic tier is also what every SIMD tier
// falls back to, and the only tier of the purego build.
package generic

import (
	"github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/loops"
	"github.com/blockshuffle/blockshuffle/internal/public"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// DepthToSpace moves src (input dims p.N, p.C, p.H, p.W) into dst (dims N,
// C/(b*b), H*b, W*b) as blockshuffle.DepthToSpace does, for any element type.
func DepthToSpace[T any](dst, src []T, p blockshuffle.Params) error {
	return typed(shape.DepthToSpace, dst, src, p)
}

// SpaceToDepth moves src (input dims p.N, p.C, p.H, p.W) into dst (dims N,
// C*b*b, H/b, W/b) as blockshuffle.SpaceToDepth does, for any element type.
func SpaceToDepth[T any](dst, src []T, p blockshuffle.Params) error {
	return typed(shape.SpaceToDepth, dst, src, p)
}

// DepthToSpaceBytes is DepthToSpace on raw elements of elemSize bytes.
func DepthToSpaceBytes(dst, src []byte, elemSize int, p blockshuffle.Params) error {
	return loops.Tier.Do(shape.DepthToSpace, dst, src, elemSize, public.Internal(p))
}

// SpaceToDepthBytes is SpaceToDepth on raw elements of elemSize bytes.
func SpaceToDepthBytes(dst, src []byte, elemSize int, p blockshuffle.Params) error {
	return loops.Tier.Do(shape.SpaceToDepth, dst, src, elemSize, public.Internal(p))
}

func typed[T any](op shape.Op, dst, src []T, p blockshuffle.Params) error {
	g, err := shape.Validate(op, public.Internal(p), 1, len(dst), len(src), shape.Overlap(dst, src))
	if err != nil {
		return err
	}
	engine.Execute(loops.Any[T]{}, &g, dst, src)
	return nil
}
