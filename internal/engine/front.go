package engine

import (
	"slices"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// The front door: every call of every entry point, operator or
// transpose, comes to Do or Prepare as a shape.Request, and is looked up
// in the one cache (cache.go). A request seen lately runs its prepared
// call after a check of its slices' lengths and overlap, nothing more:
// no check of the request, no lock, no allocation. A request never seen
// is checked and planned by its Planner, kept, and run.

// A Planner checks a request and plans it on a tier: PlanOperator for the
// operators, internal/transpose's Plan for transposes.
type Planner func(k *Kit, r *shape.Request) (*Prepared, error)

// PlanOperator is the Planner of the operators.
func PlanOperator(k *Kit, r *shape.Request) (*Prepared, error) {
	g, err := r.Check()
	if err != nil {
		return nil, err
	}
	return k.Operator(&g), nil
}

// Do runs request r on dst and src, the bytes of the caller's slices,
// whose lengths count slice elements of sliceElem bytes (1 for bytes, the
// element size for typed slices), so that errors count what the caller's
// lengths count. dst is untouched on error.
func (k *Kit) Do(r *shape.Request, plan Planner, sliceElem int, dst, src []byte) error {
	head := headOf(k.id, r)
	h := hash(head, r)
	if c := cached(head, h, k.id, r); c != nil && c.Fits(dst, src) {
		c.Run(dst, src)
		return nil
	}
	return k.miss(head, h, r, plan, sliceElem, dst, src)
}

// miss is Do for a request that is not in the cache, or whose slices do
// not fit its prepared call.
func (k *Kit) miss(head, h uint64, r *shape.Request, plan Planner, sliceElem int, dst, src []byte) error {
	c := cached(head, h, k.id, r)
	if c == nil {
		var err error
		if c, err = k.prepare(h, r, plan); err != nil {
			return err
		}
	}
	if err := r.Slices(c.bytes, sliceElem, len(dst)/sliceElem, len(src)/sliceElem, Overlap(dst, src)); err != nil {
		return err
	}
	c.Run(dst, src)
	return nil
}

// Prepare returns the prepared call of request r: from the cache, or
// checked and planned by plan, and kept.
func (k *Kit) Prepare(r *shape.Request, plan Planner) (*Prepared, error) {
	head := headOf(k.id, r)
	h := hash(head, r)
	if c := cached(head, h, k.id, r); c != nil {
		return c, nil
	}
	return k.prepare(h, r, plan)
}

// prepare checks and plans a request whose hash is h, and keeps it. The
// planner gets a copy of the request: r and its slices stay where the
// caller has them, on its stack as like as not.
func (k *Kit) prepare(h uint64, r *shape.Request, plan Planner) (*Prepared, error) {
	own := shape.Request{Transpose: r.Transpose, Op: r.Op, Order: r.Order, Layout: r.Layout, Elem: r.Elem, Workers: r.Workers,
		Dims: slices.Clone(r.Dims), Perm: slices.Clone(r.Perm)} // field by field, so that r's slices do not escape
	c, err := plan(k, &own)
	if err != nil {
		return nil, err
	}
	c.key, _ = keyOf(k.id, &own) // a request that passed its check fits a key
	keep(h, c)
	return c, nil
}

// Fits reports whether dst and src are tensors the call runs on: each
// c.Bytes() long, not overlapping.
func (c *Prepared) Fits(dst, src []byte) bool {
	return len(dst) == c.bytes && len(src) == c.bytes && !Overlap(dst, src)
}

// Overlap reports whether a and b share any byte of memory.
func Overlap[T any](a, b []T) bool {
	size := unsafe.Sizeof(*new(T))
	if len(a) == 0 || len(b) == 0 || size == 0 {
		return false
	}
	pa := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
	pb := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b))*size && pb < pa+uintptr(len(a))*size
}
