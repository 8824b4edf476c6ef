// Package verify checks the module's entry points and tiers against the
// reference, on the shapes of package cases, and the errors they return.
// It is test scaffolding, on top of the module: it imports package
// blockshuffle, and only tests, benchmarks and fuzz targets import it.
package verify

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"testing"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/random"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Runner is one byte-level way to make the call g describes, on elements
// of g.Elem bytes: an entry point of a package, or a tier's.
type Runner func(g *shape.Geometry, dst, src []byte) error

// Check makes the call g on src into dst with run, and fails t unless
// the call succeeds and dst then holds what the reference computes. dst
// and src hold g.Len()*g.Elem bytes each; name says what ran in the
// failure message. dst starts as the complement of the expected output,
// so a byte the call leaves unwritten always shows.
func Check(t testing.TB, name string, run Runner, g *shape.Geometry, dst, src []byte) {
	t.Helper()
	want := make([]byte, len(src))
	ref.RunBytes(g, want, src)
	for i, v := range want {
		dst[i] = ^v
	}
	if err := run(g, dst, src); err != nil {
		t.Fatalf("%s %v es=%d: %v", name, g, g.Elem, err)
	}
	if i := firstDiff(dst, want); i >= 0 {
		t.Fatalf("%s %v es=%d: byte %d is %#02x, the reference has %#02x", name, g, g.Elem, i, dst[i], want[i])
	}
}

// Compare checks every case at every element width with random input.
func Compare(t testing.TB, name string, run Runner, cs []shape.Geometry, widths []int, rng *rand.Rand) {
	t.Helper()
	for _, es := range widths {
		for _, g := range cs {
			g.Elem = es
			src := random.Bytes(rng, g.Len()*es)
			Check(t, name, run, &g, make([]byte, len(src)), src)
		}
	}
}

// firstDiff is the first index where a and b differ, or -1.
func firstDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return len(a)
}

// Params are the operator and parameters of g in package blockshuffle's
// terms.
func Params(g *shape.Geometry) (bs.Op, bs.Params) {
	op := bs.OpDepthToSpace
	if g.ToDepth {
		op = bs.OpSpaceToDepth
	}
	in := g.Input()
	p := bs.Params{N: in[0], C: in[1], H: in[2], W: in[3], BlockSize: g.B, Workers: g.Workers}
	if g.CRD {
		p.Order = bs.CRD
	}
	if g.NHWC {
		p.Layout = bs.NHWC
	}
	return op, p
}

// Request is the request of op with p on elements of elem bytes, as the
// root package makes it.
func Request(op bs.Op, p bs.Params, elem int) shape.Request {
	return shape.Request{Op: uint8(op), Order: uint8(p.Order), Layout: uint8(p.Layout), Elem: elem, Workers: p.Workers,
		Dims: []int{p.N, p.C, p.H, p.W, p.BlockSize}}
}

// A Path is a named way to make a call: a kernel tier this machine runs,
// or an entry point.
type Path struct {
	Name string
	Run  Runner
}

// Tiers are the tiers this machine runs, as package dispatch finds them
// (which the root package imports, so that the tiers register and one is
// chosen); with -short, as under emulation, only the one in use.
func Tiers() []Path {
	// dispatch reads the variable at init, which go test's cache cannot
	// see: reading it again here makes cached results depend on it.
	os.Getenv(isa.EnvVar)
	active := engine.Active()
	var out []Path
	for _, i := range isa.All {
		if t := engine.Lookup(i.TierName); t != nil && i.Supported() && (!testing.Short() || t == active) {
			out = append(out, Path{t.Name, func(g *shape.Geometry, dst, src []byte) error {
				r := g.Request()
				return t.Do(&r, engine.PlanOperator, 1, dst, src)
			}})
		}
	}
	return out
}

// API is a package's byte-level DepthToSpace and SpaceToDepth
// (blockshuffle's, or package generic's) as a Runner.
func API(d2s, s2d func(dst, src []byte, es int, p bs.Params) error) Runner {
	return func(g *shape.Geometry, dst, src []byte) error {
		op, p := Params(g)
		if op == bs.OpSpaceToDepth {
			return s2d(dst, src, g.Elem, p)
		}
		return d2s(dst, src, g.Elem, p)
	}
}

// sentinels are the errors every error of the module wraps one of.
var sentinels = []error{
	bs.ErrBlockSize, bs.ErrNegativeDim, bs.ErrNotDivisible, bs.ErrOverflow, bs.ErrLength,
	bs.ErrOverlap, bs.ErrOrder, bs.ErrLayout, bs.ErrElemSize, bs.ErrWorkers, bs.ErrOp, bs.ErrRank, bs.ErrPerm, bs.ErrElemType,
}

// Wrapped counts the sentinels err wraps: every error wraps exactly one.
func Wrapped(err error) int {
	n := 0
	for _, s := range sentinels {
		if errors.Is(err, s) {
			n++
		}
	}
	return n
}

// Reference runs the reference on typed slices for op with p, after the
// checks the entry points make, and returns their error: what a call of
// op means, for the adapters' tests.
func Reference[T any](op bs.Op, p bs.Params, dst, src []T) error {
	r := Request(op, p, 1)
	g, err := r.Check()
	if err != nil {
		return err
	}
	if err := r.Slices(g.Len(), 1, len(dst), len(src), false); err != nil {
		return err
	}
	ref.Run(&g, dst, src)
	return nil
}
