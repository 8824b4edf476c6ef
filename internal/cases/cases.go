// Package cases generates the shapes the tests run: fixed edge cases and
// random ones, for both operators, both orders and both layouts, each a
// validated shape.Geometry of 1-byte elements on one goroutine.
package cases

import (
	"math/rand/v2"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Widths are the element sizes every comparison covers: the ONNX widths and
// some that are not powers of two.
var Widths = []int{1, 2, 3, 4, 8, 12, 16}

// All expands one set of depth-side dims (C' output channels, h x w depth
// pixels) into the four order/layout pairs of both operators.
func All(n, cp, h, w, b int) []shape.Geometry {
	var out []shape.Geometry
	for _, crd := range []bool{false, true} {
		for _, nhwc := range []bool{false, true} {
			for _, toDepth := range []bool{false, true} {
				out = append(out, shape.Geometry{ToDepth: toDepth, CRD: crd, NHWC: nhwc, B: b,
					N: n, C: cp * b * b, H: h, W: w, Cp: cp, Elem: 1, Workers: 1})
			}
		}
	}
	return out
}

// Edge is the fixed list: every block size from 1 to 9 with C == b*b,
// C == 2*b*b, N > 1, H or W = 1, and widths that are not multiples of 8 or 32.
func Edge() []shape.Geometry {
	var out []shape.Geometry
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
func Random(rng *rand.Rand, count, maxLen int) []shape.Geometry {
	blocks := []int{1, 2, 2, 2, 3, 3, 4, 4, 5, 6, 7, 8, 8, 9}
	var out []shape.Geometry
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
