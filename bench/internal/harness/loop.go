package harness

import (
	bs "github.com/blockshuffle/blockshuffle"
)

// Loop is DepthToSpace or SpaceToDepth as a Go programmer writes it by
// hand into an output kept from call to call: six nested loops, the
// depth tensor's channel from strides set once for the order, each index
// from multiplications and additions, no division, no allocation. It is
// the fair baseline: a user who cares about speed writes this, not
// Typical. DepthToSpace walks its output in order, SpaceToDepth its input.
func Loop[T any](c Case, dst, src []T) {
	p := c.Params()
	N, C, H, W, b := p.N, p.C, p.H, p.W, p.BlockSize
	nhwc := c.Layout == bs.NHWC
	// The depth tensor's channel of block (i, j) and space channel c is
	// i*si + j*sj + c*sc: (i*b + j)*C' + c for DCR, c*b*b + i*b + j for CRD.
	cp := C // the space tensor's channels
	if c.Op == bs.OpDepthToSpace {
		cp = C / (b * b)
	}
	si, sj, sc := b*cp, cp, 1
	if c.Order == bs.CRD {
		si, sj, sc = b, 1, b*b
	}
	if c.Op == bs.OpDepthToSpace { // input [N, C, H, W], output [N, C', H*b, W*b]
		o := 0
		for n := range N {
			if nhwc {
				for h := range H {
					for i := range b {
						for w := range W {
							for j := range b {
								at := ((n*H+h)*W+w)*C + i*si + j*sj
								for c := range cp {
									dst[o] = src[at+c*sc]
									o++
								}
							}
						}
					}
				}
				continue
			}
			for c := range cp {
				for h := range H {
					for i := range b {
						for w := range W {
							for j := range b {
								dst[o] = src[((n*C+i*si+j*sj+c*sc)*H+h)*W+w]
								o++
							}
						}
					}
				}
			}
		}
		return
	}
	// SpaceToDepth: input [N, C, H, W], output [N, C*b*b, H/b, W/b].
	oh, ow, co, s := H/b, W/b, C*b*b, 0
	for n := range N {
		if nhwc {
			for y := range oh {
				for i := range b {
					for x := range ow {
						for j := range b {
							at := ((n*oh+y)*ow+x)*co + i*si + j*sj
							for c := range C {
								dst[at+c*sc] = src[s]
								s++
							}
						}
					}
				}
			}
			continue
		}
		for c := range C {
			for y := range oh {
				for i := range b {
					for x := range ow {
						for j := range b {
							dst[((n*co+i*si+j*sj+c*sc)*oh+y)*ow+x] = src[s]
							s++
						}
					}
				}
			}
		}
	}
}

// TransposeLoop is a transpose as a Go programmer writes it by hand into
// an output kept from call to call: a loop per dim, in output order, the
// source offset stepped by that dim's stride, no division; a 2-D matrix
// in blocks of 32x32 elements, so that the rows it reads and writes stay
// in cache. It is the transposes' fair baseline, as Loop is the ops'.
func TransposeLoop[T any](dst, src []T, shape, perm []int) {
	if len(shape) == 2 && perm[0] == 1 {
		rows, cols := shape[0], shape[1]
		for r0 := 0; r0 < rows; r0 += 32 {
			for c0 := 0; c0 < cols; c0 += 32 {
				for r := r0; r < min(r0+32, rows); r++ {
					for c := c0; c < min(c0+32, cols); c++ {
						dst[c*rows+r] = src[r*cols+c]
					}
				}
			}
		}
		return
	}
	stride := make([]int, len(shape))
	for j, s := len(shape)-1, 1; j >= 0; j-- {
		stride[j], s = s, s*shape[j]
	}
	last := len(perm) - 1
	var walk func(k, s, o int) int
	walk = func(k, s, o int) int {
		n, step := shape[perm[k]], stride[perm[k]]
		if k == last {
			for range n {
				dst[o] = src[s]
				o, s = o+1, s+step
			}
			return o
		}
		for range n {
			o = walk(k+1, s, o)
			s += step
		}
		return o
	}
	if len(shape) > 0 {
		walk(0, 0, 0)
	}
}
