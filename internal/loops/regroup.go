package loops

import "github.com/blockshuffle/blockshuffle/internal/engine"

// NHWC CRD rows: in depth, a pixel's channels for block row i are laid out
// [Cp][B] with channel stride CS = B*B; in space they become [B][Cp].
//
// The innermost loop is the longer of the channel loop and the pixel loop,
// so that short channel counts (RGB: Cp = 3) do not pay loop overhead per
// element.
func regroupRows[T any](d2s bool, space, depth []T, a *engine.Args) {
	blk := a.B * a.Cp
	move := func(s, d []T, n, ss, ds int) {
		if d2s {
			strided(s, d, n, ss, ds)
		} else {
			strided(d, s, n, ds, ss)
		}
	}
	for r := 0; r < a.Rows; r++ {
		s, d := space[r*a.SpaceStride:][:a.W*blk], depth[r*a.DepthStride:]
		if a.Cp >= a.W {
			for x := 0; x < a.W; x++ {
				for j := 0; j < a.B; j++ {
					move(s[(x*a.B+j)*a.Cp:], d[x*a.XS+j:], a.Cp, 1, a.CS)
				}
			}
			continue
		}
		for j := 0; j < a.B; j++ {
			for c := 0; c < a.Cp; c++ {
				move(s[j*a.Cp+c:], d[c*a.CS+j:], a.W, blk, a.XS)
			}
		}
	}
}

// strided copies n elements: to[k*ts] = from[k*fs].
func strided[T any](to, from []T, n, ts, fs int) {
	if n == 0 {
		return
	}
	to, from = to[:(n-1)*ts+1], from[:(n-1)*fs+1]
	for k := 0; k < n; k++ {
		to[k*ts] = from[k*fs]
	}
}
