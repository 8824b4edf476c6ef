package gorgonia

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/blockshuffle/blockshuffle"
)

// Transpose returns x transposed by perm (no perm reverses the axes, as in
// tensor.Transpose) in a new plain tensor, with the same result as
// tensor.Transpose, for every perm; x may be a view or a pending
// transpose. blockshuffle moves the data (and the mask, if any) of every
// pointer-free dtype, DepthToSpace and SpaceToDepth in disguise with their
// own kernels; tensor.Transpose moves String and UnsafePointer tensors.
// A perm that is not a permutation of x's axes is an error wrapping
// blockshuffle.ErrPerm.
func Transpose(x *tensor.Dense, perm ...int) (*tensor.Dense, error) {
	return transpose(nil, x, perm)
}

// TransposeInto writes x transposed by perm into out, as DepthToSpaceInto
// does.
func TransposeInto(out, x *tensor.Dense, perm ...int) error {
	if out == nil {
		return fmt.Errorf("blockshuffle/gorgonia: Transpose: out is nil")
	}
	_, err := transpose(out, x, perm)
	return err
}

func transpose(out, x *tensor.Dense, perm []int) (*tensor.Dense, error) {
	if x == nil {
		return nil, fmt.Errorf("blockshuffle/gorgonia: Transpose: x is nil")
	}
	s := x.Shape()
	if len(perm) == 0 {
		for i := range s {
			perm = append(perm, len(s)-1-i)
		}
	}
	if !isPermutation(perm, len(s)) {
		return nil, fmt.Errorf("blockshuffle/gorgonia: Transpose: perm %v is not a permutation of the %d axes of %v: %w", perm, len(s), s, blockshuffle.ErrPerm)
	}
	e, err := elemsOf(x)
	if err != nil {
		return nil, err
	}
	if x.IsScalar() || len(s) > blockshuffle.MaxTransposeRank || !e.plannable() && x.Size() > 0 {
		return slowTranspose(out, x, perm)
	}
	shape := make([]int, len(s))
	for k, d := range perm {
		shape[k] = s[d]
	}
	return run(out, x, shape, func(e elems, dst, src any) error {
		_, err := e.transpose(dst, src, s, perm) // handled: the rank is checked above
		return err
	})
}

// isPermutation reports whether perm is a permutation of 0..n-1.
func isPermutation(perm []int, n int) bool {
	if len(perm) != n {
		return false
	}
	seen := make([]bool, n)
	for _, d := range perm {
		if d < 0 || d >= n || seen[d] {
			return false
		}
		seen[d] = true
	}
	return true
}

// slowTranspose is tensor.Transpose on x's logical elements and mask
// (gorgonia leaves a mask in storage order), copied into out if there is one.
func slowTranspose(out, x *tensor.Dense, perm []int) (*tensor.Dense, error) {
	if len(x.Shape()) < 2 { // nothing moves
		perm = nil
	}
	d, err := plainTranspose(x, perm, x.Dtype(), func(e elems) any { return e.logical(x) })
	if err != nil {
		return nil, err
	}
	if x.IsMasked() {
		m, err := plainTranspose(x, perm, tensor.Bool, func(elems) any { return logicalMask(x) })
		if err != nil {
			return nil, err
		}
		d.SetMask(m.Data().([]bool))
	}
	if out == nil {
		return d, nil
	}
	return run(out, d, d.Shape(), func(e elems, dst, src any) error { return e.copy(dst, src) })
}

// plainTranspose transposes the data that logical gives for dtype dt, in
// x's shape, with tensor.Transpose.
func plainTranspose(x *tensor.Dense, perm []int, dt tensor.Dtype, logical func(elems) any) (*tensor.Dense, error) {
	e, ok := dtypes[dt]
	if !ok {
		return nil, fmt.Errorf("blockshuffle/gorgonia: dtype %v is not supported", dt)
	}
	if x.IsScalar() {
		return x.Clone().(*tensor.Dense), nil
	}
	t := tensor.New(tensor.WithShape(x.Shape().Clone()...), tensor.WithBacking(logical(e)))
	if perm == nil {
		return t, nil
	}
	r, err := tensor.Transpose(t, perm...)
	if err != nil {
		return nil, err
	}
	return r.(*tensor.Dense), nil
}
