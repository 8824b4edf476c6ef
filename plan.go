package blockshuffle

import (
	"fmt"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// A Plan is an operator (NewPlan) or a transpose (NewTransposePlan)
// planned once for tensors of one shape and element size: the kernel calls that move it, chosen and checked when NewPlan
// makes it, on the tier in use then. An ONNX interpreter makes one per
// node when it loads a model and runs it on every inference; a Plan is
// immutable, so any number of goroutines may run it at once.
//
// The plain functions (DepthToSpace, SpaceToDepthBytes, ...) keep plans of
// their own, for the last 1024 sets of parameters and element size per
// tier, evicting the oldest when full; a Plan is for callers who know
// their shapes, or have more of them than that.
type Plan struct {
	op   Op
	p    Params
	elem int
	c    *engine.Prepared
	// transpose describes a transpose's shape and perm for its errors;
	// empty for an op's plan.
	transpose string
}

// NewPlan validates op on tensors described by p with elements of
// elemSize bytes, and plans it once. It returns the error the op would,
// wrapping a sentinel, for parameters the op rejects. p.Workers bounds the
// goroutines each run uses, as for the plain functions; the run decides
// how many with the GOMAXPROCS of that moment.
func NewPlan(op Op, p Params, elemSize int) (*Plan, error) {
	g, err := shape.Check(op.internal(), p.internal(), elemSize)
	if err != nil {
		return nil, err
	}
	return &Plan{op: op, p: p, elem: elemSize, c: engine.Active().Prepare(&g)}, nil
}

// Run runs the plan on raw bytes: len(dst) and len(src) must be the
// tensor's size in bytes (N*C*H*W*elemSize, or the product of a
// transpose's shape times elemSize), and they must not overlap. It
// checks only that, never allocates, and leaves dst untouched on error.
func (pl *Plan) Run(dst, src []byte) error {
	if err := pl.check(1, len(dst), len(src), shape.Overlap(dst, src)); err != nil {
		return err
	}
	pl.run(dst, src)
	return nil
}

// RunPlan runs the plan on typed slices: unsafe.Sizeof of T must be the
// plan's elemSize (else the error wraps ErrElemType), and len(dst) and
// len(src) the tensor's element count (N*C*H*W, or the product of a
// transpose's shape). It checks only that and
// the overlap, never allocates, and leaves dst untouched on error.
func RunPlan[T Element](pl *Plan, dst, src []T) error {
	size := int(unsafe.Sizeof(*new(T)))
	if pl != nil && pl.c != nil && size != pl.elem {
		what := pl.op.String()
		if pl.transpose != "" {
			what = "Transpose: " + pl.transpose
		}
		return fmt.Errorf("blockshuffle: %s: a plan for %d-byte elements, run on %T (%d bytes): %w", what, pl.elem, *new(T), size, ErrElemType)
	}
	if err := pl.check(size, len(dst), len(src), shape.Overlap(dst, src)); err != nil {
		return err
	}
	pl.run(engine.Bytes(dst), engine.Bytes(src))
	return nil
}

// run runs a checked plan.
func (pl *Plan) run(dst, src []byte) { pl.c.Run(dst, src) }

// check checks a run's slices, whose lengths count elements of size bytes.
func (pl *Plan) check(size, dstLen, srcLen int, overlap bool) error {
	switch {
	case pl == nil || pl.c == nil:
		return fmt.Errorf("blockshuffle: a Plan that NewPlan did not make: %w", ErrOp)
	case pl.transpose != "":
		return shape.Lengths("Transpose", pl.c.Bytes()/size, dstLen, srcLen, overlap, func() string { return pl.transpose })
	}
	return shape.Slices(pl.op.internal(), pl.p.internal(), pl.elem/size, pl.c.Bytes()/size, dstLen, srcLen, overlap)
}

// String names the tier, the plan and the kernel that serve the runs, as
// Describe does.
func (pl *Plan) String() string {
	if pl == nil || pl.c == nil {
		return "a Plan that NewPlan did not make"
	}
	return pl.c.Describe().String()
}
