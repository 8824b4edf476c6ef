package blockshuffle

import "github.com/blockshuffle/blockshuffle/internal/shape"

// ParamsOf returns the operator and parameters of a geometry, for the
// package's external tests, which walk package cases' geometries.
func ParamsOf(g *shape.Geometry) (Op, Params) {
	r := g.Request()
	return paramsOf(&r)
}

// RequestParams are the parameters of r, for verify.API.
func RequestParams(r *shape.Request) Params {
	_, p := paramsOf(r)
	return p
}

// RequestOf is the request of op with p on elements of elem bytes, as
// every entry point makes it.
func RequestOf(op Op, p Params, elem int) shape.Request {
	var r shape.Request
	var dims [5]int
	p.request(&r, &dims, op, elem)
	r.Dims = dims[:]
	return r
}
