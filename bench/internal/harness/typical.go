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
// package-level Typical on elements of the case's width: uint8, uint16,
// uint32 (float32's size), uint64 or complex128. It returns nil for other
// widths.
func (b *Buffers) Typical() func() { typical, _ := b.baselines(); return typical }

// Loop returns a function that performs the case once with Loop on
// elements of the case's width, into the case's output; nil for widths
// other than 1, 2, 4, 8 and 16.
func (b *Buffers) Loop() func() { _, loop := b.baselines(); return loop }

// baselines are Typical and Loop on elements of the case's width.
func (b *Buffers) baselines() (typical, loop func()) {
	switch b.c.Width {
	case 1:
		return baselinesOn[uint8](b)
	case 2:
		return baselinesOn[uint16](b)
	case 4:
		return baselinesOn[uint32](b)
	case 8:
		return baselinesOn[uint64](b)
	case 16:
		return baselinesOn[complex128](b)
	}
	return nil, nil
}

func baselinesOn[T any](b *Buffers) (typical, loop func()) {
	dst, src := cast[T](b.dst), cast[T](b.src)
	return func() { Typical(b.c, src) }, func() { Loop(b.c, dst, src) }
}

// cast views b as elements of type U; len(b) is a multiple of U's size.
func cast[U any](b []byte) []U {
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b))/unsafe.Sizeof(*new(U)))
}
