// Package cases generates the shapes the tests run: fixed edge cases and
// random ones, for both operators, both orders and both layouts.
package cases

import (
	"fmt"
	"math/rand/v2"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Widths are the element sizes every comparison covers: the ONNX widths and
// some that are not powers of two.
var Widths = []int{1, 2, 3, 4, 8, 12, 16}

// Case is one call to make.
type Case struct {
	Op shape.Op
	P  shape.Params
}

// String names the case by op, order, layout, block size and input dims.
func (c Case) String() string {
	return fmt.Sprintf("%v/%v/%v/b%d/%dx%dx%dx%d", c.Op, c.P.Order, c.P.Layout, c.P.BlockSize, c.P.N, c.P.C, c.P.H, c.P.W)
}

// Len is the element count of the call's tensors.
func (c Case) Len() int { return c.P.Dims().Len() }

// All expands one set of depth-side dims (C' output channels, h x w depth
// pixels) into the four order/layout pairs of both operators.
func All(n, cp, h, w, b int) []Case {
	var out []Case
	for _, order := range []shape.Order{shape.DCR, shape.CRD} {
		for _, layout := range []shape.Layout{shape.NCHW, shape.NHWC} {
			d2s := shape.Params{N: n, C: cp * b * b, H: h, W: w, BlockSize: b, Order: order, Layout: layout, Workers: 1}
			s2d := shape.Params{N: n, C: cp, H: h * b, W: w * b, BlockSize: b, Order: order, Layout: layout, Workers: 1}
			out = append(out, Case{shape.DepthToSpace, d2s}, Case{shape.SpaceToDepth, s2d})
		}
	}
	return out
}

// Edge is the fixed list: every block size from 1 to 9 with C == b*b,
// C == 2*b*b, N > 1, H or W = 1, and widths that are not multiples of 8 or 32.
func Edge() []Case {
	var out []Case
	for b := 1; b <= 9; b++ {
		for _, d := range [][4]int{ // n, C', h, w on the depth side
			{1, 1, 1, 1}, {1, 1, 2, 3}, {1, 2, 2, 3}, {2, 3, 1, 5}, {1, 1, 5, 1},
			{3, 2, 3, 7}, {1, 3, 2, 33}, {2, 1, 1, 65}, {1, 5, 4, 9},
		} {
			out = append(out, All(d[0], d[1], d[2], d[3], b)...)
		}
	}
	return out
}

// Random returns count random cases of at most about maxLen elements, with
// block sizes from 1 to 9 weighted to the common 2, 3, 4 and 8.
func Random(rng *rand.Rand, count, maxLen int) []Case {
	blocks := []int{1, 2, 2, 2, 3, 3, 4, 4, 5, 6, 7, 8, 8, 9}
	var out []Case
	for len(out) < count {
		b := blocks[rng.IntN(len(blocks))]
		dim := func(max int) int { // often 1, sometimes large and odd
			switch rng.IntN(4) {
			case 0:
				return 1
			case 1:
				return 1 + rng.IntN(4)
			}
			return 1 + rng.IntN(max)
		}
		n, cp, h, w := dim(3), dim(6), dim(9), dim(70)
		if n*cp*b*b*h*w > maxLen {
			continue
		}
		all := All(n, cp, h, w, b)
		out = append(out, all[rng.IntN(len(all))])
	}
	return out
}
