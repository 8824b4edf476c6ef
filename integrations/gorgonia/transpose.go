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
// does: out must have the transposed shape.
func TransposeInto(out, x *tensor.Dense, perm ...int) error {
	if out == nil {
		return fmt.Errorf("blockshuffle/gorgonia: Transpose: out is nil: %w", ErrTensor)
	}
	_, err := transpose(out, x, perm)
	return err
}

func transpose(out, x *tensor.Dense, perm []int) (*tensor.Dense, error) {
	if x == nil {
		return nil, fmt.Errorf("blockshuffle/gorgonia: Transpose: x is nil: %w", ErrTensor)
	}
	perm, err := checkPerm(x.Shape(), perm)
	if err != nil {
		return nil, err
	}
	return transposeRun(out, x, perm, nil)
}

// checkPerm returns perm, or the reversal of s's axes if perm is empty, or
// an error if it is not a permutation of them.
func checkPerm(s []int, perm []int) ([]int, error) {
	if len(perm) == 0 {
		for i := range s {
			perm = append(perm, len(s)-1-i)
		}
	}
	if !isPermutation(perm, len(s)) {
		return nil, fmt.Errorf("blockshuffle/gorgonia: Transpose: perm %v is not a permutation of the %d axes of %v: %w", perm, len(s), s, blockshuffle.ErrPerm)
	}
	return perm, nil
}

// transposeRun transposes x by a checked perm into out (nil: a new
// tensor), its data moved by pl, a plan for x's shape and dtype, or
// without one by blockshuffle.Transpose; the mask of a dtype other than
// Bool, and the dtypes that hold pointers, as Transpose moves them.
func transposeRun(out, x *tensor.Dense, perm []int, pl *blockshuffle.Plan) (*tensor.Dense, error) {
	e, err := elemsOf(x)
	if err != nil {
		return nil, err
	}
	s := x.Shape()
	if x.IsScalar() || len(s) > blockshuffle.MaxTransposeRank || !e.plannable() && x.Size() > 0 {
		return slowTranspose(out, x, perm)
	}
	return run(out, x, permuted(s, perm), func(e elems, dst, src any) error {
		if _, mask := dst.([]bool); pl != nil && (!mask || x.Dtype() == tensor.Bool) {
			return e.run(pl, dst, src)
		}
		_, err := e.transpose(dst, src, s, perm) // handled: the rank is checked above
		return err
	})
}

// permuted is shape s transposed by perm: dim k is s[perm[k]].
func permuted(s, perm []int) []int {
	out := make([]int, len(s))
	for k, d := range perm {
		out[k] = s[d]
	}
	return out
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
		return nil, fmt.Errorf("blockshuffle/gorgonia: dtype %v is not supported: %w", dt, ErrTensor)
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
