package generic_test

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/blockshuffle/blockshuffle/generic"
	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

func bytesOp(op shape.Op) func(dst, src []byte, es int, p generic.Params) error {
	if op == shape.DepthToSpace {
		return generic.DepthToSpaceBytes
	}
	return generic.SpaceToDepthBytes
}

// TestBytesMatchReference compares the byte-level path with the naive
// reference on every edge case and many random ones, at every width.
func TestBytesMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	all := append(cases.Edge(), cases.Random(rng, 400, 1<<14)...)
	for _, es := range cases.Widths {
		for _, c := range all {
			src := cases.Fill(rng, c.Len()*es)
			want := make([]byte, len(src))
			got := make([]byte, len(src))
			if err := ref.RunBytes(c.Op, want, src, es, c.P); err != nil {
				t.Fatalf("%v es=%d: reference: %v", c, es, err)
			}
			if err := bytesOp(c.Op)(got, src, es, c.P); err != nil {
				t.Fatalf("%v es=%d: %v", c, es, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%v es=%d: result differs from the reference", c, es)
			}
		}
	}
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
				src := cases.Fill(rng, n+off)[off:]
				got := make([]byte, n+off)[off:]
				want := make([]byte, n)
				if err := ref.RunBytes(c.Op, want, src, es, c.P); err != nil {
					t.Fatal(err)
				}
				if err := bytesOp(c.Op)(got, src, es, c.P); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%v es=%d offset %d: result differs from the reference", c, es, off)
				}
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
		if err := ref.Run(c.Op, want, src, c.P); err != nil {
			t.Fatal(err)
		}
		f := generic.DepthToSpace[string]
		if c.Op == shape.SpaceToDepth {
			f = generic.SpaceToDepth[string]
		}
		if err := f(got, src, c.P); err != nil {
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
// than there are rows; run it with -race.
func TestWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range append(cases.All(2, 3, 5, 9, 2), cases.All(1, 1, 1, 3, 3)...) {
		src := cases.Fill(rng, c.Len()*4)
		want := make([]byte, len(src))
		if err := ref.RunBytes(c.Op, want, src, 4, c.P); err != nil {
			t.Fatal(err)
		}
		for w := 0; w <= 40; w += 1 + w/4 {
			c.P.Workers = w
			got := make([]byte, len(src))
			if err := bytesOp(c.Op)(got, src, 4, c.P); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%v workers=%d: result differs from the reference", c, w)
			}
		}
	}
}
