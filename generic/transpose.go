package generic

// NHWC CRD rows: in depth, a pixel's channels for block row i are laid out
// [Cp][B] with channel stride CS = B*B; in space they become [B][Cp].
//
// The innermost loop is the longer of the channel loop and the pixel loop,
// so that short channel counts (RGB: Cp = 3) do not pay loop overhead per
// element.

func transposeRows[T any](space, depth []T, a *Args) {
	blk := a.B * a.Cp
	for r := 0; r < a.Rows; r++ {
		s, d := space[r*a.SpaceStride:][:a.W*blk], depth[r*a.DepthStride:]
		if a.Cp >= a.W {
			for x := 0; x < a.W; x++ {
				for j := 0; j < a.B; j++ {
					to, from := s[(x*a.B+j)*a.Cp:][:a.Cp], d[x*a.XS+j:]
					for c := range to {
						to[c] = from[c*a.CS]
					}
				}
			}
			continue
		}
		for j := 0; j < a.B; j++ {
			for c := 0; c < a.Cp; c++ {
				to, from := s[j*a.Cp+c:], d[c*a.CS+j:]
				for x := 0; x < a.W; x++ {
					to[x*blk] = from[x*a.XS]
				}
			}
		}
	}
}

func untransposeRows[T any](space, depth []T, a *Args) {
	blk := a.B * a.Cp
	for r := 0; r < a.Rows; r++ {
		s, d := space[r*a.SpaceStride:][:a.W*blk], depth[r*a.DepthStride:]
		if a.Cp >= a.W {
			for x := 0; x < a.W; x++ {
				for j := 0; j < a.B; j++ {
					from, to := s[(x*a.B+j)*a.Cp:][:a.Cp], d[x*a.XS+j:]
					for c, v := range from {
						to[c*a.CS] = v
					}
				}
			}
			continue
		}
		for j := 0; j < a.B; j++ {
			for c := 0; c < a.Cp; c++ {
				from, to := s[j*a.Cp+c:], d[c*a.CS+j:]
				for x := 0; x < a.W; x++ {
					to[x*a.XS] = from[x*blk]
				}
			}
		}
	}
}
