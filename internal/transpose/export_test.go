package transpose

// For the tests of tiers' kernels, which import the kernels and so cannot
// be in this package.
var (
	CheckGeneral          = checkGeneral
	RandomTranspose       = randomTranspose
	RandomMatrixTranspose = randomMatrixTranspose
)

// SetChunkBytes sets the size two-pass transposes' chunks aim at, and
// returns a function that restores it.
func SetChunkBytes(n int) (restore func()) {
	old := chunkBytes
	chunkBytes = n
	return func() { chunkBytes = old }
}

// TwoPass reports whether g moves in two passes.
func (g *General) TwoPass() bool { return g.two != nil }
