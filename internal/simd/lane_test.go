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

// TestChosen checks that the lane kernels calls use raise the shortest
// lane of unzips as isa.BaseUnzipBelow says on this CPU, and that Lanes
// keeps every kernel.
func TestChosen(t *testing.T) {
	f := new(LaneFunc)
	own := &Table{}
	for _, unzip := range []bool{false, true} {
		for b := 2; b <= MaxBlock; b++ {
			for w := 1; w <= MaxWidth; w++ {
				own.Lanes = append(own.Lanes, LaneKernel{F: f, B: uint8(b), W: uint8(w), Unzip: unzip, MinN: 4})
			}
		}
	}
	for _, base := range []*Table{nil, {}} {
		own.Base = base
		for b := 2; b <= MaxBlock; b++ {
			for w := 1; w <= MaxWidth; w++ {
				zip, unzip := own.lane(laneKey{b: b, w: w}), own.lane(laneKey{unzip: true, b: b, w: w})
				if zip.F == nil || zip.MinN != 4 {
					t.Errorf("base %v, zip b=%d w=%d: %v, shortest lane %d", base != nil, b, w, zip.F != nil, zip.MinN)
				}
				want := 4
				if base != nil {
					want = max(4, isa.BaseUnzipBelow(b, w))
				}
				if unzip.F == nil || int(unzip.MinN) != want {
					t.Errorf("base %v, unzip b=%d w=%d: %v, shortest lane %d, want %d", base != nil, b, w, unzip.F != nil, unzip.MinN, want)
				}
			}
		}
	}
	if len(own.Lanes) != 2*(MaxBlock-1)*MaxWidth {
		t.Errorf("the table lost kernels: %d left", len(own.Lanes))
	}
}
