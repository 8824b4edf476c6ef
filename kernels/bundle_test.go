package kernels

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/simd"
	"github.com/blockshuffle/blockshuffle/internal/stack"
)

// bundleCases are NCHW calls of block size 2 for the bundle kernels, as
// depth-side (n, C', h, w): YOLO's, N > 1, H = 1 (CRD: no plan; DCR: a
// bundle per channel), two bundles per group, and with 1-byte elements rows of
// every length the kernels take, around each chunk (stack.BundleChunks).
func bundleCases() [][4]int {
	out := [][4]int{{1, 64, 13, 13}, {2, 3, 5, 7}, {3, 2, 3, 5}, {1, 16, 28, 28}, {2, 5, 1, 9}, {1, 2, 9, 16}, {2, 1, 5, 32}, {1, 7, 3, 11}}
	for w := stack.MinRow; w <= stack.MaxBundleRow+1; w++ {
		out = append(out, [4]int{2, 2, 2, w})
	}
	// Rows of 9 to 16 bytes, whose bundles AVX2's SpaceToDepth moves in
	// pairs: groups of an odd and an even number of bundles, three (a pair's
	// slop reaching the last bundle's row and, at 9 and 10 bytes, past it)
	// and more.
	for w := 9; w <= 16; w++ {
		out = append(out, [4]int{1, 1, 3, w}, [4]int{2, 2, 3, w}, [4]int{1, 3, 4, w}, [4]int{1, 1, 6, w})
	}
	return out
}

// eachBundleCall calls run with every table under test that has a bundle
// plan for a case, order, op and element width, and the reference's
// output.
func eachBundleCall(t *testing.T, run func(name string, set *simd.Kernels, g *shape.Geometry, want, src []byte)) {
	rng := rand.New(rand.NewPCG(11, 12))
	planned := 0
	for name := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		cases.Each(t, rng, cases.Of(bundleCases(), 2, false), []int{1, 2, 4, 8}, func(c *cases.Call) {
			if f, _ := set.BundlePlan(&c.G); f != nil {
				planned++
				run(name, set, &c.G, c.Want(), c.Src)
			}
		})
	}
	for name, set := range tablesUnderTest() {
		if set.BundleZip[1] != nil && planned == 0 {
			t.Fatalf("%s: no case had a bundle plan", name)
		}
	}
	t.Logf("%d calls run", planned)
}

// TestBundles runs every bundle call of the cases against the reference,
// into outputs with random bytes around them, which must stay.
func TestBundles(t *testing.T) {
	eachBundleCall(t, func(name string, set *simd.Kernels, g *shape.Geometry, want, src []byte) {
		pad := bytes.Repeat([]byte{0xa5}, 64)
		buf := append(append(append([]byte{}, pad...), make([]byte, len(want))...), pad...)
		runBundles(set, g, buf[64:64+len(want)], src)
		if !bytes.Equal(buf[64:64+len(want)], want) || !bytes.Equal(buf[:64], pad) || !bytes.Equal(buf[64+len(want):], pad) {
			t.Fatalf("%s: %s: wrong output", name, describeGeometry(g))
		}
	})
}

// TestBundleGuardPages runs every bundle call with both tensors right
// against inaccessible pages, before and after: slop that reached past
// a tensor would fault.
func TestBundleGuardPages(t *testing.T) {
	eachBundleCall(t, func(name string, set *simd.Kernels, g *shape.Geometry, want, src []byte) {
		inGuards(t, len(want), len(src), func(dst, s []byte) {
			copy(s, src)
			poison(dst, want)
			runBundles(set, g, dst, s)
			if !bytes.Equal(dst, want) {
				t.Fatalf("%s: %s: wrong output in guarded memory", name, describeGeometry(g))
			}
		})
	})
}

// runBundles runs a call's bundle plan from src into dst.
func runBundles(set *simd.Kernels, g *shape.Geometry, dst, src []byte) {
	f, p := set.BundlePlan(g)
	space, depth := dst, src
	if g.ToDepth {
		space, depth = src, dst
	}
	f.Once(space, depth, simd.BundleArgs{N: p.N, Bundles: p.Bundles, Plane: p.Plane, Groups: p.Groups, Group: p.Group}, p.Elem)
}
