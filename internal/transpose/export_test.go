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
