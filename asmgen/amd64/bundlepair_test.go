package amd64

import (
	"testing"

	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

// TestPairMasks runs the table's masks as the kernels do, on windows of
// numbered bytes, for every row length and element width the bundle pairs
// take: each plane's register must hold its bundles of row a, then of row b.
func TestPairMasks(t *testing.T) {
	const lane = vec.LaneBytes
	for _, w := range []int{1, 2} {
		for n := pairMin; n <= pairMax; n++ {
			if n%w != 0 {
				continue
			}
			masks := pairMasksOf(n, w)
			// Bytes are numbered by row (a: 0, b: 1) and offset: 100*row + offset.
			byteOf := func(row, off int) int { return 100*row + off }
			var x, y [2 * lane]int
			for q := range lane {
				x[q], x[lane+q] = byteOf(0, q), byteOf(1, q)
				y[q], y[lane+q] = byteOf(0, lane+q), byteOf(1, lane+q)
				if masks[2*pairWindows][q] >= 0x80 { // the blend takes the load 2n+16 bytes after a
					y[q] = byteOf(1, q-(2*n-lane))
				}
			}
			shuffle := func(v [2 * lane]int, m [2 * lane]byte) (out [2 * lane]int) {
				for k := range out {
					out[k] = -1 // zero
					if m[k] < 0x80 {
						out[k] = v[k/lane*lane+int(m[k]&0xf)]
					}
				}
				return out
			}
			for j := range 2 {
				sx, sy := shuffle(x, masks[j*pairWindows]), shuffle(y, masks[j*pairWindows+1])
				for k := range 2 * n {
					row, at := k/n, k%n
					want := byteOf(row, (2*(at/w)+j)*w+at%w)
					if sx[k] >= 0 && sy[k] >= 0 || max(sx[k], sy[k]) != want {
						t.Fatalf("w %d n %d plane half %d byte %d: x gives %d, y %d, want %d", w, n, j, k, sx[k], sy[k], want)
					}
				}
			}
			need := pairNeeds(n)
			if slop := 2*lane - 2*n; need < 2 || (need-1)*n < slop {
				t.Errorf("n %d: need %d leaves slop %d past the rows after the pair", n, need, slop)
			}
		}
	}
}
