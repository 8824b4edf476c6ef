package generic

import (
	"encoding/binary"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Word is the element types of the fixed widths: no pointers, so their
// bytes may be moved in any grouping.
type Word interface {
	uint8 | uint16 | uint32 | uint64 | [2]uint64
}

// Bits is the pure-Go kernel set for pointer-free elements: Pure, plus
// short runs moved as whole words. It is the generic tier's set for every
// fixed width and the fallback of the SIMD tiers.
type Bits[T Word] struct{}

// Run implements Kernels.
func (Bits[T]) Run(op shape.Op, kind Kind, space, depth []T, a Args) {
	size := int(unsafe.Sizeof(*new(T)))
	if run := a.B * a.Cp * a.Unit * size; kind == Runs && !a.Contiguous() && (run == 4 || run == 8 || run == 16) {
		forGroups(space, depth, &a, func(space, depth []T) {
			wordRuns(op == shape.DepthToSpace, asBytes(space), asBytes(depth), &a, size)
		})
		return
	}
	Pure[T]{}.Run(op, kind, space, depth, a)
}

func asBytes[T Word](s []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(*new(T)))
}

var le = binary.LittleEndian

// wordRuns moves runs of exactly 4, 8 or 16 bytes with one or two loads and
// stores each; a call to memmove costs more than that.
func wordRuns(d2s bool, space, depth []byte, a *Args, size int) {
	run, xs := a.B*a.Cp*a.Unit*size, a.XS*size // bytes
	for r := 0; r < a.Rows; r++ {
		to, from := space[r*a.SpaceStride*size:][:a.W*run], depth[r*a.DepthStride*size:]
		ts, fs := run, xs
		if !d2s {
			to, from, ts, fs = from, to, fs, ts
		}
		switch run {
		case 4:
			for x := 0; x < a.W; x++ {
				le.PutUint32(to[x*ts:], le.Uint32(from[x*fs:]))
			}
		case 8:
			for x := 0; x < a.W; x++ {
				le.PutUint64(to[x*ts:], le.Uint64(from[x*fs:]))
			}
		default:
			for x := 0; x < a.W; x++ {
				t, f := to[x*ts:][:16], from[x*fs:][:16]
				le.PutUint64(t, le.Uint64(f))
				le.PutUint64(t[8:], le.Uint64(f[8:]))
			}
		}
	}
}
