package harness

import (
	"unsafe"

	bs "github.com/blockshuffle/blockshuffle"
)

// Typical is DepthToSpace or SpaceToDepth as Go tensor libraries and ONNX
// interpreters write it today, the baseline the report measures the gain
// against: it allocates the output, walks it in nested loops and computes
// each element's source index with division and modulo.
func Typical[T any](c Case, in []T) []T {
	p := c.Params()
	b, crd, nhwc := p.BlockSize, c.Order == bs.CRD, c.Layout == bs.NHWC
	dims, _ := p.DepthToSpaceDims()
	if c.Op == bs.OpSpaceToDepth {
		dims, _ = p.SpaceToDepthDims()
	}
	index := func(n, ch, h, w, C, H, W int) int {
		if nhwc {
			return ((n*H+h)*W+w)*C + ch
		}
		return ((n*C+ch)*H+h)*W + w
	}
	out := make([]T, len(in))
	mem := dims.Shape(c.Layout) // the output dims in memory order
	o := 0
	for d0 := range mem[0] {
		for d1 := range mem[1] {
			for d2 := range mem[2] {
				for d3 := range mem[3] {
					n, ch, h, w := d0, d1, d2, d3
					if nhwc {
						ch, h, w = d3, d1, d2
					}
					var s int
					if c.Op == bs.OpDepthToSpace { // DepthToSpace: out[n, ch, h, w] = in[n, k, h/b, w/b]
						i, j := h%b, w%b
						k := (i*b+j)*dims.C + ch
						if crd {
							k = ch*b*b + i*b + j
						}
						s = index(n, k, h/b, w/b, p.C, p.H, p.W)
					} else { // SpaceToDepth: out[n, ch, h, w] = in[n, sc, h*b+i, w*b+j]
						sc, i, j := ch%p.C, ch/p.C/b, ch/p.C%b
						if crd {
							sc, i, j = ch/(b*b), ch/b%b, ch%b
						}
						s = index(n, sc, h*b+i, w*b+j, p.C, p.H, p.W)
					}
					out[o] = in[s]
					o++
				}
			}
		}
	}
	return out
}

// Typical returns a function that performs the case once with the
// package-level Typical on elements of the case's width (elemsOf).
func (b *Buffers) Typical() func() { typical, _ := byWidth[b.c.Width].baselines(b); return typical }

// Loop returns a function that performs the case once with Loop on
// elements of the case's width (elemsOf), into the case's output.
func (b *Buffers) Loop() func() { _, loop := byWidth[b.c.Width].baselines(b); return loop }

// elemFuncs are the baselines on elements of one width.
type elemFuncs struct {
	baselines     func(*Buffers) (typical, loop func())
	transposeLoop func(*TransposeBuffers) func()
}

// elemsOf are the baselines on elements of type T.
func elemsOf[T any]() elemFuncs { return elemFuncs{baselinesOn[T], transposeLoopOn[T]} }

// byWidth are the baselines of each element width the cases take (1 to
// MaxWidth bytes) on a Go type that size: uint8, uint16, uint32
// (float32's size), uint64, complex128, and arrays of bytes for the
// others (a 3-byte RGB pixel).
var byWidth = [MaxWidth + 1]elemFuncs{
	1: elemsOf[uint8](), 2: elemsOf[uint16](), 3: elemsOf[[3]byte](), 4: elemsOf[uint32](),
	5: elemsOf[[5]byte](), 6: elemsOf[[6]byte](), 7: elemsOf[[7]byte](), 8: elemsOf[uint64](),
	9: elemsOf[[9]byte](), 10: elemsOf[[10]byte](), 11: elemsOf[[11]byte](), 12: elemsOf[[12]byte](),
	13: elemsOf[[13]byte](), 14: elemsOf[[14]byte](), 15: elemsOf[[15]byte](), 16: elemsOf[complex128](),
}

func baselinesOn[T any](b *Buffers) (typical, loop func()) {
	dst, src := cast[T](b.dst), cast[T](b.src)
	return func() { Typical(b.c, src) }, func() { Loop(b.c, dst, src) }
}

// cast views b as elements of type U; len(b) is a multiple of U's size.
func cast[U any](b []byte) []U {
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b))/unsafe.Sizeof(*new(U)))
}
