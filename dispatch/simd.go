//go:build !purego && (amd64 || arm64)

package dispatch

import (
	"math/bits"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/generic"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/kernels"
)

// simd is the kernel set of one SIMD tier for elements of type T: calls its
// assembly has kernels for go there, everything else to generic.Bits.
type simd[T generic.Word] struct{ set *kernels.Set }

// Run implements generic.Kernels.
func (k simd[T]) Run(op shape.Op, kind generic.Kind, space, depth []T, a generic.Args) {
	if kind == generic.Zip && a.Unit == 1 && k.zip(op, space, depth, &a) {
		return
	}
	generic.Bits[T]{}.Run(op, kind, space, depth, a)
}

// zip runs a Zip call with a kernel of the set, if one fits.
func (k simd[T]) zip(op shape.Op, space, depth []T, a *generic.Args) bool {
	w := int(unsafe.Sizeof(*new(T)))
	n := a.W * w // bytes per depth row
	if n < 4 {
		return false
	}
	s, d := (*byte)(unsafe.Pointer(&space[0])), (*byte)(unsafe.Pointer(&depth[0]))
	ss, ds, lane := a.SpaceStride*w, a.DepthStride*w, a.JS*w
	gs, gd := a.GroupSpace*w, a.GroupDepth*w
	if w == 16 {
		f := k.set.ZipN
		if op == shape.SpaceToDepth {
			f = k.set.UnzipN
		}
		f(s, d, n, a.Rows, ss, ds, lane, a.Groups, gs, gd, a.B)
		return true
	}
	if a.B > kernels.MaxBlock {
		return false
	}
	f := k.set.Zip[a.B][bits.TrailingZeros(uint(w))]
	if op == shape.SpaceToDepth {
		f = k.set.Unzip[a.B][bits.TrailingZeros(uint(w))]
	}
	if f == nil {
		return false
	}
	f(s, d, n, a.Rows, ss, ds, lane, a.Groups, gs, gd)
	return true
}

// sets wraps one ISA's kernels for every fixed width.
func sets(set *kernels.Set) *generic.Sets {
	return &generic.Sets{
		W1:  simd[uint8]{set},
		W2:  simd[uint16]{set},
		W4:  simd[uint32]{set},
		W8:  simd[uint64]{set},
		W16: simd[[2]uint64]{set},
	}
}
