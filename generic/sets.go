package generic

import (
	"runtime"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Sets holds one kernel set per element width that has one: this is what a
// tier supplies. Widths without a set here (3, 5, 12, ...) always take
// Pure[byte] with a unit of the element size.
type Sets struct {
	W1  Kernels[uint8]
	W2  Kernels[uint16]
	W4  Kernels[uint32]
	W8  Kernels[uint64]
	W16 Kernels[[2]uint64]
}

// PureSets is the pure-Go tier: the reference the SIMD tiers are tested
// against and their fallback.
var PureSets = &Sets{Bits[uint8]{}, Bits[uint16]{}, Bits[uint32]{}, Bits[uint64]{}, Bits[[2]uint64]{}}

// Do validates one byte-level call and runs it with these kernels.
func (s *Sets) Do(op shape.Op, dst, src []byte, elemSize int, p shape.Params) error {
	g, err := shape.Validate(op, p, elemSize, len(dst), len(src), shape.Overlap(dst, src))
	if err != nil {
		return err
	}
	s.Exec(&g, dst, src)
	return nil
}

// Exec runs a call that shape.Validate accepted, choosing the kernels by
// element width.
func (s *Sets) Exec(g *shape.Geometry, dst, src []byte) {
	n := len(dst)
	switch es := g.Elem; {
	case es == 1:
		execute(s.W1, g, 1, dst, src, n)
	case !aligned(dst, src, es):
		execute(Pure[byte]{}, g, es, dst, src, n)
	case es == 2:
		execute(s.W2, g, 1, cast[uint16](dst), cast[uint16](src), n)
	case es == 4:
		execute(s.W4, g, 1, cast[uint32](dst), cast[uint32](src), n)
	case es == 8:
		execute(s.W8, g, 1, cast[uint64](dst), cast[uint64](src), n)
	case es == 16:
		execute(s.W16, g, 1, cast[[2]uint64](dst), cast[[2]uint64](src), n)
	default:
		execute(Pure[byte]{}, g, es, dst, src, n)
	}
}

// unalignedOK lists the targets whose loads and stores of any width work at
// any address; elsewhere misaligned byte slices take the byte-wise path.
const unalignedOK = runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" ||
	runtime.GOARCH == "386" || runtime.GOARCH == "ppc64le" || runtime.GOARCH == "ppc64" ||
	runtime.GOARCH == "s390x"

func aligned(dst, src []byte, es int) bool {
	if unalignedOK {
		return true
	}
	mask := uintptr(min(es, 8) - 1)
	return (uintptr(unsafe.Pointer(unsafe.SliceData(dst)))|uintptr(unsafe.Pointer(unsafe.SliceData(src))))&mask == 0
}

// cast views b as elements of type U; len(b) is a multiple of U's size.
func cast[U any](b []byte) []U {
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b))/unsafe.Sizeof(*new(U)))
}
