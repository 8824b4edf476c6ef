package gorgonia

import (
	"errors"
	"fmt"
	"slices"

	"gorgonia.org/tensor"

	"github.com/blockshuffle/blockshuffle"
)

// ErrTensor is wrapped by the errors for a tensor the adapter cannot use:
// nil, of a dtype gorgonia.org/tensor does not define, or an out that is
// not a plain tensor. Other errors wrap blockshuffle's sentinels.
var ErrTensor = errors.New("tensor not usable")

// Options are the parameters of a shuffle apart from the dims, which come
// from the tensor's shape: [N, C, H, W] for NCHW, [N, H, W, C] for NHWC.
type Options struct {
	BlockSize int
	Order     blockshuffle.Order  // DCR (the zero value, ONNX's default) or CRD
	Layout    blockshuffle.Layout // NCHW (the zero value) or NHWC
	Workers   int                 // as blockshuffle.Params.Workers
}

// DepthToSpace returns blockshuffle.DepthToSpace of x in a new tensor.
func DepthToSpace(x *tensor.Dense, o Options) (*tensor.Dense, error) {
	return shuffle(blockshuffle.OpDepthToSpace, nil, x, o)
}

// SpaceToDepth returns blockshuffle.SpaceToDepth of x in a new tensor.
func SpaceToDepth(x *tensor.Dense, o Options) (*tensor.Dense, error) {
	return shuffle(blockshuffle.OpSpaceToDepth, nil, x, o)
}

// DepthToSpaceInto writes DepthToSpace of x into out, which must be a
// plain tensor (not a view, a pending transpose or column-major) of the
// result's shape and x's dtype, distinct from x; where the result is a
// scalar, out may have any shape of one element, and becomes a scalar.
// An out of another shape is an error wrapping blockshuffle.ErrLength
// (out is never reshaped), of another dtype blockshuffle.ErrElemType, and
// one that is not plain ErrTensor. On error out is untouched.
func DepthToSpaceInto(out, x *tensor.Dense, o Options) error {
	return into(blockshuffle.OpDepthToSpace, out, x, o)
}

// SpaceToDepthInto is DepthToSpaceInto for SpaceToDepth.
func SpaceToDepthInto(out, x *tensor.Dense, o Options) error {
	return into(blockshuffle.OpSpaceToDepth, out, x, o)
}

func into(op blockshuffle.Op, out, x *tensor.Dense, o Options) error {
	if out == nil {
		return fmt.Errorf("blockshuffle/gorgonia: %v: out is nil: %w", op, ErrTensor)
	}
	_, err := shuffle(op, out, x, o)
	return err
}

// shuffle runs op on x into out, or into a new tensor if out is nil.
func shuffle(op blockshuffle.Op, out, x *tensor.Dense, o Options) (*tensor.Dense, error) {
	if x == nil {
		return nil, fmt.Errorf("blockshuffle/gorgonia: %v: x is nil: %w", op, ErrTensor)
	}
	p, shape, err := params(op, x.Shape(), o)
	if err != nil {
		return nil, err
	}
	return run(out, x, shape, func(e elems, dst, src any) error { return e.move(op, dst, src, p) })
}

// params are the parameters of op on a tensor of shape s, and the output's
// shape.
func params(op blockshuffle.Op, s []int, o Options) (blockshuffle.Params, []int, error) {
	if len(s) != 4 {
		return blockshuffle.Params{}, nil, fmt.Errorf("blockshuffle/gorgonia: %v: x has shape %v, want 4 dims: %w", op, s, blockshuffle.ErrRank)
	}
	p := blockshuffle.Params{N: s[0], C: s[1], H: s[2], W: s[3], BlockSize: o.BlockSize, Order: o.Order, Layout: o.Layout, Workers: o.Workers}
	if o.Layout == blockshuffle.NHWC {
		p.H, p.W, p.C = s[1], s[2], s[3]
	}
	outDims := p.DepthToSpaceDims
	if op == blockshuffle.OpSpaceToDepth {
		outDims = p.SpaceToDepthDims
	}
	dims, err := outDims()
	if err != nil {
		return blockshuffle.Params{}, nil, err
	}
	shape := dims.Shape(p.Layout)
	return p, shape[:], nil
}

// run gives move x's logical elements and mask and a destination of the
// same length, then makes that destination a tensor of the given shape:
// out, which must be usable, or a new tensor if out is nil.
func run(out, x *tensor.Dense, shape []int, move func(e elems, dst, src any) error) (*tensor.Dense, error) {
	e, err := elemsOf(x)
	if err != nil {
		return nil, err
	}
	if out != nil {
		if err := usable(out, x, shape); err != nil {
			return nil, err
		}
	}
	if x.Size() == 0 {
		return empty(out, x.Dtype(), shape)
	}
	var dst any
	if out != nil {
		dst = out.Data()
	} else {
		dst = e.make(x.Size())
	}
	if err := move(e, dst, e.logical(x)); err != nil {
		return nil, err
	}
	var mask []bool
	if m := logicalMask(x); m != nil {
		mask = make([]bool, len(m))
		if err := move(dtypes[tensor.Bool], mask, m); err != nil {
			return nil, err // unreachable: the data moved with the same parameters
		}
	}
	t := out
	if t != nil {
		if err := t.Reshape(shape...); err != nil { // a scalar's out of one element; else its own shape
			return nil, err // unreachable: usable checked the shape
		}
	} else {
		t = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(dst))
	}
	t.SetMask(mask)
	return t, nil
}

// empty is the result of shape when it has no elements: out, or a new
// tensor of dtype dt. Nothing moves, and nothing may call Data, which
// panics on a tensor without elements in gorgonia.org/tensor v0.9.24.
func empty(out *tensor.Dense, dt tensor.Dtype, shape []int) (*tensor.Dense, error) {
	if out == nil {
		return tensor.New(tensor.Of(dt), tensor.WithShape(shape...)), nil
	}
	return out, nil
}

// usable checks out, for a result of the given shape from x, before
// anything is written to it.
func usable(out, x *tensor.Dense, shape []int) error {
	switch {
	case out.Dtype() != x.Dtype():
		return fmt.Errorf("blockshuffle/gorgonia: out has dtype %v, x %v: %w", out.Dtype(), x.Dtype(), blockshuffle.ErrElemType)
	case out.IsScalar() || out.IsMaterializable() || out.DataOrder().IsColMajor():
		return fmt.Errorf("blockshuffle/gorgonia: out is a scalar, a view, a pending transpose or column-major: pass a plain tensor: %w", ErrTensor)
	case len(shape) == 0 && !out.Shape().IsScalarEquiv(), len(shape) > 0 && !slices.Equal(out.Shape(), shape):
		return fmt.Errorf("blockshuffle/gorgonia: out has shape %v, the result %v: %w", out.Shape(), tensor.Shape(shape), blockshuffle.ErrLength)
	case out.DataSize() != x.Size():
		return fmt.Errorf("blockshuffle/gorgonia: out holds %d elements, x %d: %w", out.DataSize(), x.Size(), blockshuffle.ErrLength)
	}
	return nil
}
