// Package ref is the naive reference the tests compare everything against:
// one loop over the output, each source index computed from docs/spec.md's
// formulas with division and modulo. It is slow on purpose, so that it is
// obviously right; it never checks its arguments beyond what shape.Validate does.
package ref

import "github.com/blockshuffle/blockshuffle/internal/shape"

// Pairs calls move(dstIndex, srcIndex) once for every output element of the
// validated call g, in output order. Indices count elements.
func Pairs(g shape.Geometry, move func(dst, src int)) {
	if g.Len() == 0 { // the other dims may be huge
		return
	}
	b := g.B
	in, out := g.Depth, g.Space
	if g.Op == shape.SpaceToDepth {
		in, out = g.Space, g.Depth
	}
	for n := 0; n < out.N; n++ {
		for c := 0; c < out.C; c++ {
			for h := 0; h < out.H; h++ {
				for w := 0; w < out.W; w++ {
					var ic, ih, iw int
					if g.Op == shape.DepthToSpace {
						// out[n, c, h*b+i, w*b+j] = in[n, k, h, w]
						i, j := h%b, w%b
						ih, iw = h/b, w/b
						if g.Order == shape.DCR {
							ic = (i*b+j)*out.C + c
						} else {
							ic = c*b*b + i*b + j
						}
					} else {
						// out[n, k, h, w] = in[n, c, h*b+i, w*b+j]
						var i, j int
						if g.Order == shape.DCR { // k = (i*b + j)*C + c
							ic, i, j = c%in.C, c/in.C/b, c/in.C%b
						} else { // k = c*b*b + i*b + j
							ic, i, j = c/(b*b), c/b%b, c%b
						}
						ih, iw = h*b+i, w*b+j
					}
					move(index(g.Layout, out, n, c, h, w), index(g.Layout, in, n, ic, ih, iw))
				}
			}
		}
	}
}

// index is docs/spec.md's address of element [n, c, h, w] of a tensor of dims d.
func index(l shape.Layout, d shape.Dims, n, c, h, w int) int {
	if l == shape.NHWC {
		return ((n*d.H+h)*d.W+w)*d.C + c
	}
	return ((n*d.C+c)*d.H+h)*d.W + w
}

// Run validates like every entry point, then moves elements of any type one
// at a time.
func Run[T any](op shape.Op, dst, src []T, p shape.Params) error {
	g, err := shape.Validate(op, p, 1, len(dst), len(src), shape.Overlap(dst, src))
	if err != nil {
		return err
	}
	Pairs(g, func(d, s int) { dst[d] = src[s] })
	return nil
}

// RunBytes is Run for elements of elemSize bytes.
func RunBytes(op shape.Op, dst, src []byte, elemSize int, p shape.Params) error {
	g, err := shape.Validate(op, p, elemSize, len(dst), len(src), shape.Overlap(dst, src))
	if err != nil {
		return err
	}
	Pairs(g, func(d, s int) { copy(dst[d*elemSize:(d+1)*elemSize], src[s*elemSize:]) })
	return nil
}

// Transpose transposes src, a row-major tensor of the given shape, by perm
// (output dim k is input dim perm[k]) into dst, one element at a time: the
// meaning of a Transpose node, for checking MatchTranspose and the adapters.
// shape and perm must be valid and the slices hold the element count.
func Transpose[T any](dst, src []T, shape, perm []int) {
	stride := make([]int, len(shape))
	for i, st := len(shape)-1, 1; i >= 0; i-- {
		stride[i], st = st, st*shape[i]
	}
	idx := make([]int, len(shape)) // output multi-index, counted in row-major order
	for k := range dst {
		from := 0
		for d, i := range idx {
			from += i * stride[perm[d]]
		}
		dst[k] = src[from]
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[perm[d]] {
				break
			}
			idx[d] = 0
		}
	}
}
