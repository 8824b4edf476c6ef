// Package gorgonia runs blockshuffle's DepthToSpace, SpaceToDepth and
// Transpose on gorgonia.org/tensor's *tensor.Dense: Transpose has
// tensor.Transpose's result for every perm, its data moved by
// blockshuffle's SIMD kernels for every pointer-free dtype.
//
// It reads a tensor as its logical, row-major elements whatever gorgonia
// does underneath. A *tensor.Dense can hold its data otherwise: a view
// (Slice), a pending transpose (T is lazy: after x.T(0, 1, 3, 2), IsView
// is false and Data still holds the untransposed storage), column-major
// storage (AsFortran), or a mask. Where RequiresIterator, IsMaterializable
// or the data order say so, the elements and the mask are gathered in
// logical order first (gorgonia's own Materialize leaves a mask in storage
// order, so the adapter does not use it); a plain tensor goes straight to
// the SIMD kernels. The result is always a plain row-major tensor, masked
// when the input is, with the mask moved like the data.
//
// Every dtype gorgonia defines works: the fixed-size ones through the
// SIMD path, String and UnsafePointer through blockshuffle/generic. A
// tensor with a zero dim gives an empty tensor of the result's shape
// (gorgonia's own Data, Transpose and Clone panic on one), and invalid
// parameters give the error they give any other tensor.
//
// NewPlan plans an op, and NewTransposePlan a transpose, once for tensors
// of one shape and dtype, which a model's node then applies on every
// inference (Plan.Apply, ApplyInto).
//
// The Into forms write into a tensor the caller keeps from call to call,
// which must already have the result's shape: it is never reshaped, and
// an out of another shape is an error wrapping blockshuffle.ErrLength.
// Allocating the result costs more than the shuffle (docs/benchmark-log.md in
// the repository has figures), so a model run in a loop should reuse its
// outputs. Every error wraps a sentinel: blockshuffle's, or ErrTensor
// for a nil tensor, an unknown dtype or an out that is not plain.
//
// gorgonia.org/tensor v0.9.24 imports go4.org/unsafe/assume-no-moving-gc,
// whose versions before v0.0.0-20231121144256-b99613f794b6 panic at start-up
// under Go 1.22 and later; this module requires that version.
//
// An image becomes a model's input with blockshuffle's imagetensor
// package, written straight into the tensor's backing slice, which this
// package then takes like any other:
//
//	x := tensor.New(tensor.WithShape(1, 3, h, w), tensor.Of(tensor.Float32))
//	err := imagetensor.FromImage(x.Data().([]float32), img, imagetensor.Options{Mean: mean, Std: std})
package gorgonia
