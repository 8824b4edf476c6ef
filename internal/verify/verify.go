// Package verify checks the module's entry points and tiers against the
// reference, on the shapes of package cases, and the errors they return.
// It is test scaffolding: only tests, benchmarks and fuzz targets import
// it. Like every internal package it stays below package blockshuffle;
// converting to the root's types is left to its callers.
package verify

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"testing"

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

// A Path is a named way to make a call: a kernel tier this machine runs,
// or an entry point.
type Path struct {
	Name string
	Run  Runner
}

// Kits are the tiers this machine runs, as package dispatch finds them
// (which the root package imports, so that the tiers register and one is
// chosen); with -short, as under emulation, only the one in use.
func Kits() []*engine.Kit {
	// dispatch reads the variable at init, which go test's cache cannot
	// see: reading it again here makes cached results depend on it.
	os.Getenv(isa.EnvVar)
	active := engine.Active()
	var out []*engine.Kit
	for _, i := range isa.All {
		if t := engine.Lookup(i.TierName); t != nil && i.Supported() && (!testing.Short() || t == active) {
			out = append(out, t)
		}
	}
	return out
}

// Tiers are the operators of the tiers this machine runs (Kits).
func Tiers() []Path {
	var out []Path
	for _, t := range Kits() {
		out = append(out, Path{t.Name, func(g *shape.Geometry, dst, src []byte) error {
			r := g.Request()
			return t.Do(&r, engine.PlanOperator, 1, dst, src)
		}})
	}
	return out
}

// API is a package's byte-level DepthToSpace and SpaceToDepth
// (blockshuffle's, or package generic's) as a Runner; params turns a
// request into that package's parameters.
func API[P any](d2s, s2d func(dst, src []byte, es int, p P) error, params func(*shape.Request) P) Runner {
	return func(g *shape.Geometry, dst, src []byte) error {
		r := g.Request()
		if r.Op == shape.SpaceToDepth {
			return s2d(dst, src, g.Elem, params(&r))
		}
		return d2s(dst, src, g.Elem, params(&r))
	}
}

// sentinels are the errors every error of the module wraps one of (the
// root package's Err variables are these).
var sentinels = []error{
	shape.ErrBlockSize, shape.ErrNegativeDim, shape.ErrNotDivisible, shape.ErrOverflow, shape.ErrLength,
	shape.ErrOverlap, shape.ErrOrder, shape.ErrLayout, shape.ErrElemSize, shape.ErrWorkers, shape.ErrOp, shape.ErrRank, shape.ErrPerm, shape.ErrElemType,
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

// Reference runs the reference on typed slices for the call r (whose
// Elem is ignored), after the checks the entry points make, and returns
// their error: what a call means, for the adapters' tests.
func Reference[T any](r shape.Request, dst, src []T) error {
	r.Elem = 1
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
