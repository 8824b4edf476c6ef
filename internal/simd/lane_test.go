package simd

import (
	"math"
	"math/rand/v2"
	"testing"
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
