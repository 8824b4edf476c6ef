package generic

// NHWC CRD rows: in depth, a pixel's channels for block row i are laid out
// [Cp][B] with channel stride CS = B*B; in space they become [B][Cp].

func transposeRows[T any](space, depth []T, a *Args) {
	blk := a.B * a.Cp
	for r := 0; r < a.Rows; r++ {
		s, d := space[r*a.SpaceStride:][:a.W*blk], depth[r*a.DepthStride:]
		for x := 0; x < a.W; x++ {
			sx, dx := s[x*blk:][:blk], d[x*a.XS:]
			for c := 0; c < a.Cp; c++ {
				for j, v := range dx[c*a.CS:][:a.B] {
					sx[j*a.Cp+c] = v
				}
			}
		}
	}
}

func untransposeRows[T any](space, depth []T, a *Args) {
	blk := a.B * a.Cp
	for r := 0; r < a.Rows; r++ {
		s, d := space[r*a.SpaceStride:][:a.W*blk], depth[r*a.DepthStride:]
		for x := 0; x < a.W; x++ {
			sx, dx := s[x*blk:][:blk], d[x*a.XS:]
			for c := 0; c < a.Cp; c++ {
				dc := dx[c*a.CS:][:a.B]
				for j := range dc {
					dc[j] = sx[j*a.Cp+c]
				}
			}
		}
	}
}
