package generic_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/generic"
	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/random"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/verify"
)

// genericBytes is the package's byte-level functions as verify's Runner.
var genericBytes = verify.API(generic.DepthToSpaceBytes, generic.SpaceToDepthBytes, params)

// params are the parameters of r in package blockshuffle's terms.
func params(r *shape.Request) bs.Params {
	d := r.Dims
	return bs.Params{N: d[0], C: d[1], H: d[2], W: d[3], BlockSize: d[4],
		Order: bs.Order(r.Order), Layout: bs.Layout(r.Layout), Workers: r.Workers}
}

// TestBytesMatchReference compares the byte-level path with the naive
// reference on every edge case and many random ones, at every width.
func TestBytesMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	verify.Compare(t, "generic", genericBytes, append(cases.Edge(), cases.Random(rng, 400, 1<<14)...), cases.Widths, rng)
}

// TestMisalignedBytes runs the byte path on slices that start at every
// offset within a word, which takes the byte-wise kernels on targets that
// need alignment and the wide ones elsewhere.
func TestMisalignedBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range cases.All(2, 3, 3, 5, 2) {
		for _, es := range []int{2, 4, 8, 16} {
			for off := 0; off < 8; off++ {
				n := c.Len() * es
				src := random.Bytes(rng, n+off)[off:]
				dst := make([]byte, n+off)[off:]
				c.Elem = es
				verify.Check(t, fmt.Sprintf("offset %d", off), genericBytes, &c, dst, src)
			}
		}
	}
}

// TestStrings runs the typed API on strings, which only generic may move.
func TestStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range append(cases.Edge(), cases.Random(rng, 100, 4096)...) {
		src := make([]string, c.Len())
		for i := range src {
			src[i] = strconv.Itoa(i)
		}
		got, want := make([]string, len(src)), make([]string, len(src))
		ref.Run(&c, want, src)
		f := generic.DepthToSpace[string]
		if c.ToDepth {
			f = generic.SpaceToDepth[string]
		}
		r := c.Request()
		if err := f(got, src, params(&r)); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%v: element %d is %q, want %q", c, i, got[i], want[i])
			}
		}
	}
}

// TestWorkers splits calls over goroutines at every worker count up to more
// than there are rows; run it with -race. The tensors are small, so the
// floor of work per goroutine and GOMAXPROCS are lowered and raised for it.
func TestWorkers(t *testing.T) {
	defer engine.SetShares(1, 0)()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(64))
	rng := rand.New(rand.NewPCG(7, 8))
	split := 0
	for _, c := range append(cases.All(2, 3, 5, 9, 2), cases.All(1, 1, 1, 3, 3)...) {
		src := random.Bytes(rng, c.Len()*4)
		for w := 0; w <= 40; w += 1 + w/4 {
			c.Workers, c.Elem = w, 4
			if engine.Lookup(isa.Generic).Operator(&c).Describe().Workers > 1 {
				split++
			}
			verify.Check(t, fmt.Sprintf("workers=%d", w), genericBytes, &c, make([]byte, len(src)), src)
		}
	}
	if split == 0 {
		t.Fatal("no call was split over goroutines")
	}
}
