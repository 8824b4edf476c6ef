package fuzz

import (
	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/generic"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/verify"
)

// The byte-level DepthToSpace and SpaceToDepth of package blockshuffle and
// of package generic, as verify's Runners.
var (
	apiBytes     = verify.API(bs.DepthToSpaceBytes, bs.SpaceToDepthBytes, params)
	genericBytes = verify.API(generic.DepthToSpaceBytes, generic.SpaceToDepthBytes, params)
)

// request is the request of op with p on elements of elem bytes, as the
// entry points make it: the internal packages' form of a call.
func request(op bs.Op, p bs.Params, elem int) shape.Request {
	return shape.Request{Op: uint8(op), Order: uint8(p.Order), Layout: uint8(p.Layout), Elem: elem, Workers: p.Workers,
		Dims: []int{p.N, p.C, p.H, p.W, p.BlockSize}}
}

// params are the parameters of r in package blockshuffle's terms.
func params(r *shape.Request) bs.Params {
	d := r.Dims
	return bs.Params{N: d[0], C: d[1], H: d[2], W: d[3], BlockSize: d[4],
		Order: bs.Order(r.Order), Layout: bs.Layout(r.Layout), Workers: r.Workers}
}
