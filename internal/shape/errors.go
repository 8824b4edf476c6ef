// Package shape validates what the entry points receive and describes it
// as the internal packages take it: a Request is a call as it arrives,
// before any check; Check turns an operator's into a Geometry, its one
// description below the root package, and CheckTranspose checks a
// transpose's. The errors every call may return wrap the sentinels here.
//
// The root package defines the types users see (Params, Order, Layout, Op,
// Dims); nothing here mirrors them. A Request carries their values as the
// root package numbers them (Order 0 is DCR, 1 is CRD, and so on), and a
// Geometry says what the internal packages need to know as booleans.
package shape

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the module returns wraps exactly one of them
// (test with errors.Is) and names the offending values in its message.
var (
	ErrBlockSize    = errors.New("block size must be at least 1")
	ErrNegativeDim  = errors.New("negative dimension")
	ErrNotDivisible = errors.New("shape not divisible by the block size")
	ErrOverflow     = errors.New("size out of range")
	ErrLength       = errors.New("slice length does not match the shape")
	ErrOverlap      = errors.New("dst and src share memory")
	ErrOrder        = errors.New("unknown order")
	ErrLayout       = errors.New("unknown layout")
	ErrElemSize     = errors.New("element size must be at least 1")
	ErrWorkers      = errors.New("worker count must not be negative")
	ErrOp           = errors.New("unknown operator")
	ErrRank         = errors.New("unsupported rank")
	ErrPerm         = errors.New("perm is not a permutation of the dims")
	ErrElemType     = errors.New("element type does not match the plan")
)

// Invalid is every validation error: what the call is, what is wrong with
// which value, and the sentinel it wraps.
func Invalid(call string, err error, format string, args ...any) error {
	return fmt.Errorf("blockshuffle: %s: %s: %w", call, fmt.Sprintf(format, args...), err)
}
