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
	p := twoPassFor(k, size, perm, elem)
	if p == nil {
		return ""
	}
	return [...]string{innerLast: "innerLast", innerFirst: "innerFirst", unzipFirst: "unzipFirst", nextLast: "nextLast"}[p.layout]
}

// TwoPassBuffers is the bytes of the buffer of a transpose's two passes
// on kernels k, as the passes' data take it (want) and as the plan sizes
// it, its rows padded (padded); zero where it has none.
func TwoPassBuffers(k engine.Kernels, size, perm []int, elem int) (want, padded int) {
	p := twoPassFor(k, size, perm, elem)
	if p == nil {
		return 0, 0
	}
	return p.buf, p.staged().Buf
}

// twoPassFor is the two passes of a transpose on kernels k, where its
// words take no kernel in one pass; or nil.
func twoPassFor(k engine.Kernels, size, perm []int, elem int) *twoPass {
	n := elem
	for _, d := range size {
		n *= d
	}
	f := newWordForm(size, perm, elem, engine.Word(elem, engine.MaxTileWord), 1, k)
	if f.call != nil {
		return nil
	}
	return twoPassOf(size, perm, elem, f.word, n, f.runs, k)
}
