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
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/loops"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// DepthToSpace moves src (input dims p.N, p.C, p.H, p.W) into dst (dims N,
// C/(b*b), H*b, W*b) as blockshuffle.DepthToSpace does, for any element type.
func DepthToSpace[T any](dst, src []T, p blockshuffle.Params) error {
	return typed(blockshuffle.OpDepthToSpace, dst, src, p)
}

// SpaceToDepth moves src (input dims p.N, p.C, p.H, p.W) into dst (dims N,
// C*b*b, H/b, W/b) as blockshuffle.SpaceToDepth does, for any element type.
func SpaceToDepth[T any](dst, src []T, p blockshuffle.Params) error {
	return typed(blockshuffle.OpSpaceToDepth, dst, src, p)
}

// DepthToSpaceBytes is DepthToSpace on raw elements of elemSize bytes.
func DepthToSpaceBytes(dst, src []byte, elemSize int, p blockshuffle.Params) error {
	r := request(blockshuffle.OpDepthToSpace, p, elemSize)
	return engine.Lookup(isa.Generic).Do(&r, engine.PlanOperator, 1, dst, src)
}

// SpaceToDepthBytes is SpaceToDepth on raw elements of elemSize bytes.
func SpaceToDepthBytes(dst, src []byte, elemSize int, p blockshuffle.Params) error {
	r := request(blockshuffle.OpSpaceToDepth, p, elemSize)
	return engine.Lookup(isa.Generic).Do(&r, engine.PlanOperator, 1, dst, src)
}

// request is the request of op with p on elements of elem bytes.
func request(op blockshuffle.Op, p blockshuffle.Params, elem int) shape.Request {
	return shape.Request{Op: uint8(op), Order: uint8(p.Order), Layout: uint8(p.Layout), Elem: elem, Workers: p.Workers,
		Dims: []int{p.N, p.C, p.H, p.W, p.BlockSize}}
}

func typed[T any](op blockshuffle.Op, dst, src []T, p blockshuffle.Params) error {
	r := request(op, p, 1)
	g, err := r.Check()
	if err != nil {
		return err
	}
	if err := r.Slices(g.Len(), 1, len(dst), len(src), engine.Overlap(dst, src)); err != nil {
		return err
	}
	engine.Execute(loops.Any[T]{}, &g, dst, src)
	return nil
}
