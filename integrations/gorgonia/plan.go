package gorgonia

import (
	"fmt"
	"slices"

	"gorgonia.org/tensor"

	"github.com/blockshuffle/blockshuffle"
)

// A Plan is DepthToSpace, SpaceToDepth (NewPlan) or a transpose
// (NewTransposePlan) planned once for tensors of one shape and dtype, and
// applied to many: a model's node, applied on every inference. The
// fixed-size dtypes run a blockshuffle.Plan, so that an application checks
// only the tensor and its slices; String and UnsafePointer tensors go
// through blockshuffle/generic or tensor.Transpose, as with the plain
// functions. A Plan is immutable and safe for concurrent use.
type Plan struct {
	name      string // DepthToSpace, SpaceToDepth or Transpose, for errors
	op        blockshuffle.Op
	p         blockshuffle.Params
	transpose bool
	perm      []int        // a transpose's (empty for a scalar)
	shape     tensor.Shape // of the input
	dtype     tensor.Dtype
	out       []int              // the output's shape
	plan      *blockshuffle.Plan // nil where the dtype holds pointers
}

// NewPlan plans op on tensors of the given shape (4 dims: [N, C, H, W] for
// NCHW, [N, H, W, C] for NHWC) and dtype, with the rest of the parameters
// from o. It returns the error DepthToSpace or SpaceToDepth would for such
// a tensor.
func NewPlan(op blockshuffle.Op, shape []int, dt tensor.Dtype, o Options) (*Plan, error) {
	e, ok := dtypes[dt]
	if !ok {
		return nil, fmt.Errorf("blockshuffle/gorgonia: dtype %v is not supported: %w", dt, ErrTensor)
	}
	if op != blockshuffle.OpDepthToSpace && op != blockshuffle.OpSpaceToDepth {
		return nil, fmt.Errorf("blockshuffle/gorgonia: %v: %w", op, blockshuffle.ErrOp)
	}
	p, out, err := params(op, shape, o)
	if err != nil {
		return nil, err
	}
	if o.Workers < 0 { // checked here for the dtypes that hold pointers, whose runs make no blockshuffle.Plan
		return nil, fmt.Errorf("blockshuffle/gorgonia: %v: Workers = %d: %w", op, o.Workers, blockshuffle.ErrWorkers)
	}
	pl := &Plan{name: op.String(), op: op, p: p, shape: slices.Clone(shape), dtype: dt, out: out}
	if e.plannable() {
		if pl.plan, err = blockshuffle.NewPlan(op, p, int(dt.Size())); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// NewTransposePlan plans the transpose by perm (no perm reverses the
// axes) of tensors of the given shape and dtype, on at most workers
// goroutines a run (0: automatic, as blockshuffle.Params.Workers). It
// returns the error Transpose would for such a tensor.
func NewTransposePlan(shape, perm []int, dt tensor.Dtype, workers int) (*Plan, error) {
	e, ok := dtypes[dt]
	if !ok {
		return nil, fmt.Errorf("blockshuffle/gorgonia: dtype %v is not supported: %w", dt, ErrTensor)
	}
	perm, err := checkPerm(shape, slices.Clone(perm))
	if err != nil {
		return nil, err
	}
	if workers < 0 {
		return nil, fmt.Errorf("blockshuffle/gorgonia: Transpose: workers = %d: %w", workers, blockshuffle.ErrWorkers)
	}
	pl := &Plan{name: "Transpose", transpose: true, perm: perm, shape: slices.Clone(shape), dtype: dt, out: permuted(shape, perm)}
	if e.plannable() && len(shape) > 0 && len(shape) <= blockshuffle.MaxTransposeRank {
		if pl.plan, err = blockshuffle.NewTransposePlan(shape, perm, int(dt.Size()), workers); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// Apply returns the plan applied to x in a new tensor, as DepthToSpace,
// SpaceToDepth or Transpose would; x must have the plan's shape and dtype.
func (pl *Plan) Apply(x *tensor.Dense) (*tensor.Dense, error) { return pl.apply(nil, x) }

// ApplyInto writes the plan applied to x into out, as DepthToSpaceInto,
// SpaceToDepthInto or TransposeInto would.
func (pl *Plan) ApplyInto(out, x *tensor.Dense) error {
	if out == nil {
		return fmt.Errorf("blockshuffle/gorgonia: %s: out is nil: %w", pl.name, ErrTensor)
	}
	_, err := pl.apply(out, x)
	return err
}

func (pl *Plan) apply(out, x *tensor.Dense) (*tensor.Dense, error) {
	switch {
	case x == nil:
		return nil, fmt.Errorf("blockshuffle/gorgonia: %s: x is nil: %w", pl.name, ErrTensor)
	case x.Dtype() != pl.dtype:
		return nil, fmt.Errorf("blockshuffle/gorgonia: %s: x is %v %v, the plan is for %v %v: %w",
			pl.name, x.Dtype(), x.Shape(), pl.dtype, pl.shape, blockshuffle.ErrElemType)
	case !slices.Equal(x.Shape(), pl.shape):
		return nil, fmt.Errorf("blockshuffle/gorgonia: %s: x is %v %v, the plan is for %v %v: %w",
			pl.name, x.Dtype(), x.Shape(), pl.dtype, pl.shape, blockshuffle.ErrLength)
	case pl.transpose:
		return transposeRun(out, x, pl.perm, pl.plan)
	}
	return run(out, x, pl.out, func(e elems, dst, src any) error {
		if _, mask := dst.([]bool); pl.plan == nil || mask && pl.dtype != tensor.Bool {
			return e.move(pl.op, dst, src, pl.p) // pointers, or the mask of a wider dtype
		}
		return e.run(pl.plan, dst, src)
	})
}
