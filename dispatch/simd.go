//go:build !purego && (amd64 || arm64)

package dispatch

import (
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
	switch {
	case a.Unit != 1:
	case kind == generic.Zip && k.zip(op, space, depth, &a):
		return
	case kind == generic.Runs && !a.Contiguous() && k.runs(op, space, depth, &a):
		return
	case kind == generic.Transpose && k.transpose(op, space, depth, &a):
		return
	}
	generic.Bits[T]{}.Run(op, kind, space, depth, a)
}

// zip runs a Zip call with a kernel of the set, if one fits.
func (k simd[T]) zip(op shape.Op, space, depth []T, a *generic.Args) bool {
	w := int(unsafe.Sizeof(*new(T)))
	return k.set.Interleave(op == shape.SpaceToDepth, a.Streaming, w, a.B, ptr(space), ptr(depth), a.W*w,
		a.Rows, a.SpaceStride*w, a.DepthStride*w, a.JS*w, a.Groups, a.GroupSpace*w, a.GroupDepth*w)
}

// runs runs a Runs call with kernels of the set, if its runs suit them. A
// group holding all b block rows is a zip in disguise: the depth row
// interleaves, pixel by pixel, the runs of the b space rows. Short runs of a
// power-of-two size therefore go to the zip kernels with runs as elements
// and the roles of the two sides swapped; runs of 16 bytes or more are
// copied with vector moves.
func (k simd[T]) runs(op shape.Op, space, depth []T, a *generic.Args) bool {
	w := int(unsafe.Sizeof(*new(T)))
	e := a.B * a.Cp * w // bytes per run
	if e <= 16 && a.Rows == a.B && a.DepthStride == a.B*a.Cp && a.XS == a.B*a.B*a.Cp &&
		k.set.Interleave(op == shape.DepthToSpace, a.Streaming, e, a.B, ptr(depth), ptr(space), a.W*e,
			1, 0, 0, a.SpaceStride*w, a.Groups, a.GroupDepth*w, a.GroupSpace*w) {
		return true
	}
	if e < 16 {
		return false
	}
	dst, src := ptr(space), ptr(depth)
	dstX, srcX, dstRow, srcRow, dstGroup, srcGroup := e, a.XS*w, a.SpaceStride*w, a.DepthStride*w, a.GroupSpace*w, a.GroupDepth*w
	if op == shape.SpaceToDepth {
		dst, src = src, dst
		dstX, srcX, dstRow, srcRow, dstGroup, srcGroup = srcX, dstX, srcRow, dstRow, srcGroup, dstGroup
	}
	k.set.Copy(a.Streaming, dst, src, e, a.W, dstX, srcX, a.Rows, dstRow, srcRow, a.Groups, dstGroup, srcGroup)
	return true
}

// transpose runs a Transpose call (NHWC CRD). Small pixels have kernels of
// their own, whose lanes are the b space rows of a group and whose
// interleaved side is its depth row. With b = 2 and C' elements of 16 bytes
// or more per pixel and block row, every depth
// pixel is an unzip (zip for SpaceToDepth) by 4: its channels c*4 + i*2 + j
// are 4 interleaved lanes of C' elements, lane (i, j) going to space row i
// at j*C', and each pixel is one kernel row.
func (k simd[T]) transpose(op shape.Op, space, depth []T, a *generic.Args) bool {
	if a.Rows != a.B || a.B > kernels.MaxBlock {
		return false
	}
	w := int(unsafe.Sizeof(*new(T)))
	d2s, cpw := op == shape.DepthToSpace, a.Cp*w
	// BenchmarkShuffle: with b = 2, the unzip by 4 wins from 16 bytes.
	if (a.B != 2 || cpw < 16) && k.set.Call(d2s, a.B, a.Cp, w, ptr(depth), ptr(space), a.W*a.B*cpw,
		1, 0, 0, a.SpaceStride*w, k.set.Split[a.B]*a.SpaceStride*w, a.Groups, a.GroupDepth*w, a.GroupSpace*w) {
		return true
	}
	return a.B == 2 && k.set.Interleave2(d2s, a.Streaming, w, 4, ptr(depth), ptr(space), cpw, a.W, a.XS*w, 2*cpw, cpw,
		a.SpaceStride*w, a.Groups, a.GroupDepth*w, a.GroupSpace*w)
}

func ptr[T any](s []T) *byte { return (*byte)(unsafe.Pointer(&s[0])) }

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
