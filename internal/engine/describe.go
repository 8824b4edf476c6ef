package engine

import (
	"fmt"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Route is how a tier serves one call: the plan it splits into, the
// goroutines that run it, and the kernel (or pure-Go loop) its row calls go
// to.
type Route struct {
	Tier    string
	Plan    string // the plan's kind and loop counts
	Workers int    // goroutines
	Kernel  string // the kernel or loop of the first row call; every row call of a plan has the same shape
}

// String reads like "avx2: interleave, 832 groups of 2 rows of 13 pixels of
// 2×1 4-byte elements in 1 kernel call; 1 goroutine; zip2x4AVX2".
func (r Route) String() string {
	return fmt.Sprintf("%s: %s; %s; %s", r.Tier, r.Plan, count(r.Workers, "goroutine"), r.Kernel)
}

// count is "1 thing" or "n things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// Describe tells how m would run a validated call, by a dry run of the
// same code (see Args.Report) on buffers assumed to be 32-byte aligned, as
// Go allocates large slices: where they are not, streaming kernels give
// way to their ordinary twins.
func (m *Impl) Describe(g *shape.Geometry) Route {
	r := Route{Tier: m.Tier, Plan: "an empty tensor", Kernel: "nothing to move"}
	m.prepare(g, &r)
	return r
}

// describe fills r from the plan of a call and a dry run of its first row
// call.
func describe[T any](r *Route, k, fallback Kernels[T], op shape.Op, p *plan, stream bool, total, workers int) {
	a := p.args
	a.Streaming = stream
	elem := a.Unit * int(unsafe.Sizeof(*new(T)))
	r.Workers = workers
	r.Plan = fmt.Sprintf("%v, %s of %s of %s of %d×%d %d-byte elements in %s",
		p.kind, count(total, "group"), count(a.Rows, "row"), count(a.W, "pixel"), a.B, a.Cp, elem, count(total/a.Groups, "kernel call"))
	a.Report = func(kernel string) { r.Kernel = kernel }
	if !k.Run(op, p.kind, nil, nil, a) {
		runFallback(fallback, op, p.kind, nil, nil, a)
	}
}
