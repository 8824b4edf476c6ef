// Package verify checks the module's entry points and tiers against the
// reference, on the shapes of package cases, and the errors they return.
package verify

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/public"
	"github.com/blockshuffle/blockshuffle/internal/random"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Runner is one byte-level way to make a call: an entry point of a
// package, or a tier's (engine.Tier.Do).
type Runner func(op shape.Op, dst, src []byte, elemSize int, p shape.Params) error

// Check makes the call c on src, elements of es bytes, into dst with run,
// and fails t unless the call succeeds and dst then holds what the
// reference computes. dst and src hold c.Len()*es bytes each; name says
// what ran in the failure message. dst starts as the complement of the
// expected output, so a byte the call leaves unwritten always shows.
func Check(t testing.TB, name string, run Runner, c cases.Case, es int, dst, src []byte) {
	t.Helper()
	want := make([]byte, len(src))
	if err := ref.RunBytes(c.Op, want, src, es, c.P); err != nil {
		t.Fatalf("%s %v es=%d: the reference: %v", name, c, es, err)
	}
	for i, v := range want {
		dst[i] = ^v
	}
	if err := run(c.Op, dst, src, es, c.P); err != nil {
		t.Fatalf("%s %v es=%d: %v", name, c, es, err)
	}
	if i := firstDiff(dst, want); i >= 0 {
		t.Fatalf("%s %v es=%d: byte %d is %#02x, the reference has %#02x", name, c, es, i, dst[i], want[i])
	}
}

// Compare checks every case at every element width with random input.
func Compare(t testing.TB, name string, run Runner, cs []cases.Case, widths []int, rng *rand.Rand) {
	t.Helper()
	for _, es := range widths {
		for _, c := range cs {
			src := random.Bytes(rng, c.Len()*es)
			Check(t, name, run, c, es, make([]byte, len(src)), src)
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

// Public is c's parameters as an API whose Params P is takes them
// (blockshuffle.Params).
func Public[P any](c cases.Case) P { return public.Params[P](c.P) }

// Tier is a kernel tier this machine runs, as a Runner.
type Tier struct {
	Name string
	Run  Runner
}

// Tiers are the tiers this machine runs, as package dispatch finds them
// (which a test imports, so that the tiers register and one is chosen);
// with -short, as under emulation, only the one in use.
func Tiers() []Tier {
	// dispatch reads the variable at init, which go test's cache cannot
	// see: reading it again here makes cached results depend on it.
	os.Getenv(isa.EnvVar)
	active := engine.Active()
	if active == nil {
		panic("verify: no tier is in use: the test must import package dispatch")
	}
	var out []Tier
	for _, i := range isa.All {
		if t := engine.Lookup(i.Tier); t != nil && i.Supported() && (!testing.Short() || t == active) {
			out = append(out, Tier{t.Name, t.Do})
		}
	}
	return out
}

// Bytes is an API's byte-level DepthToSpace and SpaceToDepth, whose Params
// P is (blockshuffle's, or package generic's), as a Runner.
func Bytes[P any](d2s, s2d func(dst, src []byte, es int, p P) error) Runner {
	return func(op shape.Op, dst, src []byte, es int, p shape.Params) error {
		if op == shape.SpaceToDepth {
			return s2d(dst, src, es, public.Params[P](p))
		}
		return d2s(dst, src, es, public.Params[P](p))
	}
}

// sentinels are the errors every error of the module wraps one of.
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
