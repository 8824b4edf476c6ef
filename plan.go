package blockshuffle

import (
	"fmt"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/transpose"
)

// A Plan is an operator (NewPlan) or a transpose (NewTransposePlan)
// planned once for tensors of one shape and element size: the kernel
// calls that move it, chosen and checked when NewPlan makes it, on the
// tier in use then. An ONNX interpreter makes one per node when it loads
// a model and runs it on every inference; a Plan is immutable, so any
// number of goroutines may run it at once.
//
// The plain functions (DepthToSpace, SpaceToDepthBytes, Transpose, ...)
// keep plans of their own, for the last 1024 sets of parameters, element
// size and tier, evicting the oldest when full; a Plan is for callers who
// know their shapes, or have more of them than that.
type Plan struct {
	r shape.Request // what the plan was made for, for its errors
	c *engine.Prepared
}

// NewPlan validates op on tensors described by p with elements of
// elemSize bytes, and plans it once. It returns the error the op would,
// wrapping a sentinel, for parameters the op rejects. p.Workers bounds the
// goroutines each run uses, as for the plain functions; the run decides
// how many with the GOMAXPROCS of that moment.
func NewPlan(op Op, p Params, elemSize int) (*Plan, error) {
	var r shape.Request
	var dims [5]int
	p.request(&r, &dims, op, elemSize)
	r.Dims = dims[:]
	return newPlan(r, engine.PlanOperator)
}

// NewTransposePlan validates a transpose of a row-major tensor of the
// given shape by perm, with elements of elemSize bytes, and plans it once,
// as Transpose would run it; its errors are Transpose's, ErrRank for more
// than MaxTransposeRank dims and ErrWorkers for workers < 0. workers
// bounds the goroutines each run uses, as Params.Workers does: 0 chooses
// as Transpose does, 1 keeps every run on the caller's goroutine; the run
// decides how many with the GOMAXPROCS of that moment.
func NewTransposePlan(shape, perm []int, elemSize, workers int) (*Plan, error) {
	return newPlan(transposeRequest(shape, perm, elemSize, workers), transpose.Plan)
}

// newPlan plans a request with plan, keeping its own copy of the request.
func newPlan(r shape.Request, plan engine.Planner) (*Plan, error) {
	c, err := engine.Active().Prepare(&r, plan)
	if err != nil {
		return nil, err
	}
	r.Dims, r.Perm = append([]int(nil), r.Dims...), append([]int(nil), r.Perm...)
	return &Plan{r: r, c: c}, nil
}

// Run runs the plan on raw bytes: len(dst) and len(src) must be the
// tensor's size in bytes (N*C*H*W*elemSize, or the product of a
// transpose's shape times elemSize), and they must not overlap. It
// checks only that, never allocates, and leaves dst untouched on error.
func (pl *Plan) Run(dst, src []byte) error {
	if pl == nil || pl.c == nil {
		return errNoPlan
	}
	if !pl.c.Fits(dst, src) {
		return pl.r.Slices(pl.c.Bytes(), 1, len(dst), len(src), engine.Overlap(dst, src))
	}
	pl.c.Run(dst, src)
	return nil
}

// RunPlan runs the plan on typed slices: unsafe.Sizeof of T must be the
// plan's elemSize (else the error wraps ErrElemType), and len(dst) and
// len(src) the tensor's element count (N*C*H*W, or the product of a
// transpose's shape). It checks only that and the overlap, never
// allocates, and leaves dst untouched on error.
func RunPlan[T Element](pl *Plan, dst, src []T) error {
	if pl == nil || pl.c == nil {
		return errNoPlan
	}
	size := int(unsafe.Sizeof(*new(T)))
	if size != pl.r.Elem {
		return fmt.Errorf("blockshuffle: %s: a plan for %d-byte elements, run on %T (%d bytes): %w", pl.r.Subject(), pl.r.Elem, *new(T), size, ErrElemType)
	}
	d, s := engine.Bytes(dst), engine.Bytes(src)
	if !pl.c.Fits(d, s) {
		return pl.r.Slices(pl.c.Bytes(), size, len(dst), len(src), engine.Overlap(d, s))
	}
	pl.c.Run(d, s)
	return nil
}

// errNoPlan is the error of a Plan that NewPlan did not make.
var errNoPlan = fmt.Errorf("blockshuffle: a Plan that NewPlan did not make: %w", ErrOp)

// String names the tier, the plan and the kernel that serve the runs, as
// Describe does.
func (pl *Plan) String() string {
	if pl == nil || pl.c == nil {
		return "a Plan that NewPlan did not make"
	}
	return pl.c.Describe().String()
}
