package transpose

import (
	"strings"

	"github.com/blockshuffle/blockshuffle/internal/engine"
)

// For the tests of tiers' kernels, which import the kernels and so cannot
// be in this package.
var (
	CheckGeneral          = checkGeneral
	RandomTranspose       = randomTranspose
	RandomMatrixTranspose = randomMatrixTranspose
	ThinSide              = thinSide
	NaiveBytes            = naiveBytes
)

// SetChunkBytes sets the size two-pass transposes' chunks aim at, and
// returns a function that restores it; both forget the prepared calls
// made with the setting before.
func SetChunkBytes(n int) (restore func()) {
	old := chunkBytes
	chunkBytes = n
	engine.Forget()
	return func() { chunkBytes = old; engine.Forget() }
}

// TwoPass reports whether a prepared call moves in two passes.
func TwoPass(c *engine.Prepared) bool { return strings.Contains(c.Describe().Plan, "two passes") }

// TwoPassLayout names the buffer layout of a transpose's two passes on
// kernels k, or is "" where it has none.
func TwoPassLayout(k engine.Kernels, size, perm []int, elem int) string {
	n := elem
	for _, d := range size {
		n *= d
	}
	f := newWordForm(size, perm, elem, engine.Word(elem, engine.MaxTileWord), 1, k)
	if f.call != nil {
		return ""
	}
	p := twoPassOf(size, perm, elem, f.word, n, f.runs, k)
	if p == nil {
		return ""
	}
	return [...]string{innerLast: "innerLast", innerFirst: "innerFirst", unzipFirst: "unzipFirst", nextLast: "nextLast"}[p.layout]
}

// TwoPassBuffers is the bytes of the buffer of a transpose's two passes
// on kernels k, as the passes' data take it (want) and as the plan sizes
// it, its rows padded (padded); zero where it has none.
func TwoPassBuffers(k engine.Kernels, size, perm []int, elem int) (want, padded int) {
	n := elem
	for _, d := range size {
		n *= d
	}
	f := newWordForm(size, perm, elem, engine.Word(elem, engine.MaxTileWord), 1, k)
	if f.call != nil {
		return 0, 0
	}
	p := twoPassOf(size, perm, elem, f.word, n, f.runs, k)
	if p == nil {
		return 0, 0
	}
	return p.buf, p.staged().Buf
}
