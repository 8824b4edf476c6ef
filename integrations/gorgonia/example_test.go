package gorgonia_test

import (
	"errors"
	"fmt"

	"gorgonia.org/tensor"

	"github.com/blockshuffle/blockshuffle"
	bsg "github.com/blockshuffle/blockshuffle/integrations/gorgonia"
)

// A lazily transposed tensor keeps its old storage in Data; the adapter
// reads its logical elements, so the result is right.
func ExampleDepthToSpace() {
	x := tensor.New(tensor.WithShape(1, 4, 2, 2), tensor.WithBacking([]float32{
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}))
	_ = x.T(0, 1, 3, 2) // pending: IsView() is false, Data() is unchanged
	y, err := bsg.DepthToSpace(x, bsg.Options{BlockSize: 2})
	if err != nil {
		panic(err)
	}
	fmt.Println(y.Shape(), y.Data())
	// Output:
	// (1, 1, 4, 4) [1 5 3 7 9 13 11 15 2 6 4 8 10 14 12 16]
}

// A model run in a loop keeps its output tensor: nothing is allocated per
// call, and a masked input gives a masked output.
func ExampleSpaceToDepthInto() {
	x := tensor.New(tensor.WithShape(1, 1, 2, 2), tensor.WithBacking([]int16{1, 2, 3, 4}),
		tensor.WithMask([]bool{false, true, false, false}))
	out := tensor.New(tensor.WithShape(1, 4, 1, 1), tensor.Of(tensor.Int16)) // the result's shape, reused from call to call
	for range 2 {
		if err := bsg.SpaceToDepthInto(out, x, bsg.Options{BlockSize: 2, Order: blockshuffle.CRD}); err != nil {
			panic(err)
		}
	}
	fmt.Println(out.Shape(), out.Data(), out.Mask())
	// Output:
	// (1, 4, 1, 1) [1 2 3 4] [false true false false]
}

// Transpose takes the SIMD path for the Reshape/Transpose/Reshape idiom of
// PyTorch's pixel_unshuffle export, and tensor.Transpose's for the rest.
func ExampleTranspose() {
	x := tensor.New(tensor.WithShape(1, 1, 2, 2, 2, 2), tensor.WithBacking([]string{
		"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"}))
	y, err := bsg.Transpose(x, 0, 1, 3, 5, 2, 4) // SpaceToDepth, CRD: strings via package generic
	if err != nil {
		panic(err)
	}
	fmt.Println(y.Shape(), y.Data())
	z, err := bsg.Transpose(tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{1, 2, 3, 4, 5, 6})))
	if err != nil {
		panic(err)
	}
	fmt.Println(z.Shape(), z.Data())
	// Output:
	// (1, 1, 2, 2, 2, 2) [a c i k b d j l e g m o f h n p]
	// (3, 2) [1 4 2 5 3 6]
}

// An ONNX interpreter plans each Transpose node once and applies the plan
// on every run; the output keeps its shape.
func ExampleNewTransposePlan() {
	pl, err := bsg.NewTransposePlan([]int{2, 3}, []int{1, 0}, tensor.Float32, 0)
	if err != nil {
		panic(err)
	}
	x := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float32{1, 2, 3, 4, 5, 6}))
	out := tensor.New(tensor.WithShape(3, 2), tensor.Of(tensor.Float32))
	if err := pl.ApplyInto(out, x); err != nil {
		panic(err)
	}
	fmt.Println(out.Shape(), out.Data())
	wrong := tensor.New(tensor.WithShape(6), tensor.Of(tensor.Float32))
	fmt.Println(errors.Is(pl.ApplyInto(wrong, x), blockshuffle.ErrLength))
	// Output:
	// (3, 2) [1 4 2 5 3 6]
	// true
}
