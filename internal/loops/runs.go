package loops

import "github.com/blockshuffle/blockshuffle/internal/engine"

// NHWC rows: every pixel moves whole runs of contiguous elements.

// shortRun is the run length below which an element loop beats a call to
// the runtime's memmove.
const shortRun = 8

// runs moves, in every row of a group, one run of B*Cp elements per pixel:
// contiguous and back to back in space, XS apart in depth.
func runs[T any](d2s bool, space, depth []T, a *engine.Args) {
	run := a.B * a.Cp * a.Words
	rowLen := a.W * run
	for r := 0; r < a.Rows; r++ {
		s, d := space[r*a.SpaceStride:][:rowLen], depth[r*a.DepthStride:]
		for x := 0; x < a.W; x++ {
			to, from := s[x*run:][:run], d[x*a.XS:][:run]
			if !d2s {
				to, from = from, to
			}
			if run < shortRun {
				for t := range to {
					to[t] = from[t]
				}
			} else {
				copy(to, from)
			}
		}
	}
}
