package transpose

// For the tests of tiers' kernels, which import the kernels and so cannot
// be in this package.
var (
	CheckGeneral          = checkGeneral
	RandomTranspose       = randomTranspose
	RandomMatrixTranspose = randomMatrixTranspose
)
