// Package public converts parameters between package blockshuffle's API
// and internal/shape, for the packages that stand on both sides: generic,
// the tests' case lists and the benchmarks. The root package has its own
// copy of the two conversions, since it cannot import this one.
package public

import (
	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Params is p as package blockshuffle's API takes it.
func Params(p shape.Params) bs.Params {
	return bs.Params{N: p.N, C: p.C, H: p.H, W: p.W, BlockSize: p.BlockSize,
		Order: bs.Order(p.Order), Layout: bs.Layout(p.Layout), Workers: p.Workers}
}

// Internal is p as the packages under internal/ take it.
func Internal(p bs.Params) shape.Params {
	return shape.Params{N: p.N, C: p.C, H: p.H, W: p.W, BlockSize: p.BlockSize,
		Order: shape.Order(p.Order), Layout: shape.Layout(p.Layout), Workers: p.Workers}
}
