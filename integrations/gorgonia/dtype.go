package gorgonia

import (
	"fmt"
	"unsafe"

	"gorgonia.org/tensor"

	"github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/generic"
)

// elems is what the adapter does with a tensor's data, per element type.
type elems interface {
	// logical returns x's elements in logical row-major order: its data
	// when that is so already, else a gathered copy.
	logical(x *tensor.Dense) any
	// move runs op with p from src to dst, both of the type of logical.
	move(op blockshuffle.Op, dst, src any, p blockshuffle.Params) error
	// run runs plan pl from src to dst, both of the type of logical.
	run(pl *blockshuffle.Plan, dst, src any) error
	// plannable reports whether the dtype has plans: only the
	// pointer-free ones have.
	plannable() bool
	// transpose transposes src, of the given shape, by perm into dst,
	// both of the type of logical, where the dtype is pointer-free
	// (plannable); handled is false for ranks beyond
	// blockshuffle.MaxTransposeRank.
	transpose(dst, src any, shape, perm []int) (handled bool, err error)
	// copy copies src to dst, both of the type of logical.
	copy(dst, src any) error
	// make allocates n elements.
	make(n int) any
}

// slice is elems for []T, moved by the given DepthToSpace and SpaceToDepth,
// and plans and transposes by runPlan and transposeT (nil where T holds
// pointers).
type slice[T any] struct {
	d2s, s2d   func(dst, src []T, p blockshuffle.Params) error
	runPlan    func(pl *blockshuffle.Plan, dst, src []T) error
	transposeT func(dst, src []T, shape, perm []int) (bool, error)
}

// simd moves fixed-size elements with blockshuffle's kernels.
func simd[T blockshuffle.Element]() elems {
	return slice[T]{blockshuffle.DepthToSpace[T], blockshuffle.SpaceToDepth[T], blockshuffle.RunPlan[T], blockshuffle.Transpose[T]}
}

// assign moves elements that hold pointers with Go assignments.
func assign[T any]() elems {
	return slice[T]{generic.DepthToSpace[T], generic.SpaceToDepth[T], nil, nil}
}

func (slice[T]) logical(x *tensor.Dense) any { return logical[T](x) }
func (slice[T]) make(n int) any              { return make([]T, n) }
func (slice[T]) copy(dst, src any) error     { copy(dst.([]T), src.([]T)); return nil }
func (e slice[T]) plannable() bool           { return e.runPlan != nil }
func (e slice[T]) transpose(dst, src any, shape, perm []int) (bool, error) {
	return e.transposeT(dst.([]T), src.([]T), shape, perm)
}
func (e slice[T]) run(pl *blockshuffle.Plan, dst, src any) error {
	return e.runPlan(pl, dst.([]T), src.([]T))
}
func (e slice[T]) move(op blockshuffle.Op, dst, src any, p blockshuffle.Params) error {
	if op == blockshuffle.OpDepthToSpace {
		return e.d2s(dst.([]T), src.([]T), p)
	}
	return e.s2d(dst.([]T), src.([]T), p)
}

// dtypes covers every dtype gorgonia.org/tensor defines.
var dtypes = map[tensor.Dtype]elems{
	tensor.Bool:          simd[bool](),
	tensor.Int:           simd[int](),
	tensor.Int8:          simd[int8](),
	tensor.Int16:         simd[int16](),
	tensor.Int32:         simd[int32](),
	tensor.Int64:         simd[int64](),
	tensor.Uint:          simd[uint](),
	tensor.Uint8:         simd[uint8](),
	tensor.Uint16:        simd[uint16](),
	tensor.Uint32:        simd[uint32](),
	tensor.Uint64:        simd[uint64](),
	tensor.Uintptr:       simd[uintptr](),
	tensor.Float32:       simd[float32](),
	tensor.Float64:       simd[float64](),
	tensor.Complex64:     simd[complex64](),
	tensor.Complex128:    simd[complex128](),
	tensor.String:        assign[string](),
	tensor.UnsafePointer: assign[unsafe.Pointer](),
}

func elemsOf(x *tensor.Dense) (elems, error) {
	if e, ok := dtypes[x.Dtype()]; ok {
		return e, nil
	}
	return nil, fmt.Errorf("blockshuffle/gorgonia: dtype %v is not supported: %w", x.Dtype(), ErrTensor)
}

// plain reports whether x's Data is its elements in logical row-major
// order, one for one. RequiresIterator alone does not tell: it is false for
// column-major storage, and true for a masked tensor whose data is plain.
func plain(x *tensor.Dense) bool {
	return !x.IsMaterializable() && !x.DataOrder().IsColMajor() && x.DataSize() == x.Size()
}

// logical returns x's elements in logical row-major order, gathering them
// with x's iterator when x is not plain. The Data of a scalar, and of a
// view of one element, is the element itself.
func logical[T any](x *tensor.Dense) []T {
	if x.IsScalar() {
		return []T{x.Data().(T)}
	}
	data := x.Data().([]T)
	if plain(x) {
		return data
	}
	return gather(x, data)
}

// gather reads data, x's storage or a slice indexed like it (its mask), in
// x's logical order.
func gather[T any](x *tensor.Dense, data []T) []T {
	out := make([]T, 0, x.Size())
	it := x.Iterator()
	for i, err := it.Start(); err == nil; i, err = it.Next() {
		out = append(out, data[i])
	}
	return out
}

// logicalMask returns x's mask in logical order, or nil if x has none.
func logicalMask(x *tensor.Dense) []bool {
	switch {
	case !x.IsMasked():
		return nil
	case plain(x):
		return x.Mask()
	}
	return gather(x, x.Mask())
}
