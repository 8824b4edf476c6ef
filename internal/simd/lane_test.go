package simd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// TestFurthestLane compares the closed form with the largest lane start
// found lane by lane, and checks its refusals.
func TestFurthestLane(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		b, split := 1+rng.IntN(MaxBlock), 1+rng.IntN(MaxBlock)
		lane, laneI := rng.IntN(1000), rng.IntN(1000)
		want := 0
		for j := range b {
			want = max(want, j/split*laneI+j%split*lane)
		}
		if got, ok := furthestLane(b, split, lane, laneI); !ok || got != want {
			t.Fatalf("furthestLane(%d, %d, %d, %d) = %d, %v; want %d", b, split, lane, laneI, got, ok, want)
		}
	}
	for _, c := range [][4]int{{0, 1, 1, 1}, {2, 0, 1, 1}, {MaxBlock + 1, 2, 1, 1}, {2, MaxBlock + 1, 1, 1}, {2, 2, -1, 1}, {4, 2, 1, -1}, {3, 1, 0, math.MaxInt}, {6, 2, 0, math.MaxInt}, {4, 4, math.MaxInt / 2, 0}} {
		if _, ok := furthestLane(c[0], c[1], c[2], c[3]); ok {
			t.Errorf("furthestLane%v accepted", c)
		}
	}
}

// TestChosen checks that the table calls use leaves to the base exactly the
// zips isa.BaseZip names on this CPU, and that Lookup keeps every kernel.
func TestChosen(t *testing.T) {
	f := LaneFunc(func(space, depth *byte, n, rows, spaceStride, depthStride, lane, laneI, groups, groupSpace, groupDepth int) {
	})
	own, base := &Table{}, &Table{}
	for b := range own.Zip {
		for w := range own.Zip[b] {
			own.Zip[b][w], own.Unzip[b][w] = LaneKernel{F: f}, LaneKernel{F: f}
		}
	}
	if chosen(own) != own {
		t.Fatal("a table without a base was copied")
	}
	own.Base = base
	c := chosen(own)
	for b := range own.Zip {
		for w := range own.Zip[b] {
			if kept := c.Zip[b][w].F != nil; kept == isa.BaseZip(b, w) {
				t.Errorf("zip b=%d w=%d: kept %v, isa.BaseZip %v", b, w, kept, isa.BaseZip(b, w))
			}
			if c.Unzip[b][w].F == nil || own.Zip[b][w].F == nil {
				t.Errorf("b=%d w=%d: an unzip was dropped, or the registered table lost a zip", b, w)
			}
		}
	}
}
