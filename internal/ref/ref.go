// Package ref is the naive reference the tests compare everything against:
// one loop over the output, each source index computed from docs/spec.md's
// formulas with division and modulo. It is slow on purpose, so that it is
// obviously right; it takes calls already validated.
package ref

import "github.com/blockshuffle/blockshuffle/internal/shape"

// Pairs calls move(dstIndex, srcIndex) once for every output element of
// the validated call g, in output order. Indices count elements.
func Pairs(g *shape.Geometry, move func(dst, src int)) {
	if g.Len() == 0 { // the other dims may be huge
		return
	}
	b := g.B
	in, out := g.Input(), g.Output()
	for n := 0; n < out[0]; n++ {
		for c := 0; c < out[1]; c++ {
			for h := 0; h < out[2]; h++ {
				for w := 0; w < out[3]; w++ {
					var ic, ih, iw int
					if !g.ToDepth {
						// out[n, c, h*b+i, w*b+j] = in[n, k, h, w]
						i, j := h%b, w%b
						ih, iw = h/b, w/b
						if !g.CRD {
							ic = (i*b+j)*out[1] + c
						} else {
							ic = c*b*b + i*b + j
						}
					} else {
						// out[n, k, h, w] = in[n, c, h*b+i, w*b+j]
						var i, j int
						if !g.CRD { // k = (i*b + j)*C + c
							ic, i, j = c%in[1], c/in[1]/b, c/in[1]%b
						} else { // k = c*b*b + i*b + j
							ic, i, j = c/(b*b), c/b%b, c%b
						}
						ih, iw = h*b+i, w*b+j
					}
					move(index(g.NHWC, out, n, c, h, w), index(g.NHWC, in, n, ic, ih, iw))
				}
			}
		}
	}
}

// index is docs/spec.md's address of element [n, c, h, w] of a tensor of
// dims d (N, C, H, W).
func index(nhwc bool, d [4]int, n, c, h, w int) int {
	if nhwc {
		return ((n*d[2]+h)*d[3]+w)*d[1] + c
	}
	return ((n*d[1]+c)*d[2]+h)*d[3] + w
}

// Run moves the elements of the validated call g between typed slices,
// one at a time, whatever g.Elem says.
func Run[T any](g *shape.Geometry, dst, src []T) {
	Pairs(g, func(d, s int) { dst[d] = src[s] })
}

// RunBytes is Run on elements of g.Elem bytes.
func RunBytes(g *shape.Geometry, dst, src []byte) {
	e := g.Elem
	Pairs(g, func(d, s int) { copy(dst[d*e:(d+1)*e], src[s*e:]) })
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
