// Package public converts parameters between package blockshuffle's API
// and internal/shape, for the packages that stand on both sides: the root
// package itself, generic, the tests and the benchmarks. It cannot import
// the root package, which imports internal/ (layers only point down), so
// it takes the API's Params as a type parameter: the two types have the
// same fields, of the same kinds, at the same offsets (blockshuffle's
// TestInternalTypes holds them so), and a value of one is a value of the
// other.
package public

import (
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Internal is p, the API's Params, as the packages under internal/ take
// it.
func Internal[P any](p P) shape.Params {
	same[P]()
	return *(*shape.Params)(unsafe.Pointer(&p))
}

// Params is p as the API whose Params P is takes it.
func Params[P any](p shape.Params) P {
	same[P]()
	return *(*P)(unsafe.Pointer(&p))
}

// same panics unless P is as large as shape.Params, so that no conversion
// reads or writes past either value whatever P is.
func same[P any]() {
	if unsafe.Sizeof(*new(P)) != unsafe.Sizeof(shape.Params{}) {
		panic("public: a type that is not the API's Params")
	}
}
