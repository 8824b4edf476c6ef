package simd

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/engine"
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

// TestComplete checks the merge of a table and its base: for each key
// the table's lane kernel first, with the shortest lane of its zips and
// unzips raised as isa.BaseLanesBelow says on this CPU, then its base's; the
// fields the table lacks from its base; the base's copier for the runs
// baseCopies names; the base's bundles for the rows the table's own lane
// kernels do not take; the table's tiles before its base's. The tables
// themselves keep every kernel as it is.
func TestComplete(t *testing.T) {
	f, g := new(LaneFunc), new(LaneFunc)
	own, base := &Table{isa: &isa.ISA{Name: "Own", TierName: "own"}}, &Table{isa: &isa.ISA{Name: "Base", TierName: "base"}}
	for _, unzip := range []bool{false, true} {
		for b := 2; b <= MaxBlock; b++ {
			for w := 1; w <= MaxWidth; w++ {
				own.Lanes = append(own.Lanes, LaneKernel{F: f, B: uint8(b), W: uint8(w), Unzip: unzip, MinN: 4})
				base.Lanes = append(base.Lanes, LaneKernel{F: g, B: uint8(b), W: uint8(w), Unzip: unzip, MinN: 1})
			}
		}
	}
	copier, baseCopier, bundle := new(CopyFunc), new(CopyFunc), new(BundleFunc)
	own.CopyRuns, base.CopyRuns, base.BundleUnzip[1], base.BundleZip[2] = copier, baseCopier, bundle, bundle
	own.Lanes = slices.DeleteFunc(own.Lanes, func(k LaneKernel) bool { return !k.Unzip && k.B == 2 && k.W == 2 }) // no zip of its own for the bundles of 2-byte elements
	own.Tiles, base.Tiles, base.PagedTiles = []TileKernel{{B: 16, W: 4}}, []TileKernel{{B: 8, W: 4}, {B: 4, W: 8}}, []TileKernel{{B: 16, W: 4}}
	for _, withBase := range []bool{false, true} {
		own.Base = nil
		if withBase {
			own.Base = base
		}
		k := complete(own)
		for b := 2; b <= MaxBlock; b++ {
			for w := 1; w <= MaxWidth; w++ {
				zip, unzip := k.lanesOf(laneKey{b: b, w: w}), k.lanesOf(laneKey{unzip: true, b: b, w: w})
				want, wantZip := 4, 4
				if withBase {
					want, wantZip = max(4, isa.BaseLanesBelow(true, b, w)), max(4, isa.BaseLanesBelow(false, b, w))
				}
				n := map[bool]int{false: 1, true: 2}[withBase]
				if b == 2 && w == 2 {
					continue // the zips the table lacks
				}
				if len(zip) != n || zip[0].F != f || int(zip[0].MinN) != wantZip ||
					len(unzip) != len(zip) || unzip[0].F != f || int(unzip[0].MinN) != want || withBase && unzip[1].F != g {
					t.Errorf("base %v, b=%d w=%d: zips %+v, unzips %+v (want the table's first, shortest lanes %d and %d)", withBase, b, w, zip, unzip, wantZip, want)
				}
			}
		}
		for _, e := range []int{16, 32, 64, 96, 128, 512} {
			want := copier
			if withBase && baseCopies(e) {
				want = baseCopier
			}
			if got := k.copierOf(e); got != want {
				t.Errorf("base %v: runs of %d bytes get the %v copier", withBase, e, map[*CopyFunc]string{copier: "table's", baseCopier: "base's"}[got])
			}
		}
		if withBase {
			if f, below := k.BundleUnzip[1], k.bundleBelow[1][1]; f != bundle || below != 4 {
				t.Errorf("the base's bundle unzip: %v below %d, want it below the table's own unzips of 1-byte elements, 4 bytes", f != nil, below)
			}
			if f, below := k.BundleZip[2], k.bundleBelow[0][2]; f != bundle || below != maxRow {
				t.Errorf("the base's bundle zip: %v below %d, want it for every row: the table has no zip of 2-byte elements", f != nil, below)
			}
			if tiles := k.Tiles; len(tiles) != 3 || tiles[0].B != 16 || tiles[1].B != 8 || tiles[2].B != 4 || k.baseFrom != 1 {
				t.Errorf("tiles %+v, the base's from %d, want the table's, then its base's from 1", tiles, k.baseFrom)
			}
			if len(k.PagedTiles) != 0 {
				t.Errorf("paged tiles %+v, want the table's own, none", k.PagedTiles)
			}
			if k.baseTiles[4] != isa.BaseTiles(4) || k.baseTiles[8] {
				t.Errorf("the base's tiles first: %v for 4-byte words, %v for 8 (which the table has none of), want %v (isa.BaseTiles(4))", k.baseTiles[4], k.baseTiles[8], isa.BaseTiles(4))
			}
		}
	}
	if len(own.Lanes) != 2*(MaxBlock-1)*MaxWidth-1 || own.Lanes[0].MinN != 4 {
		t.Errorf("the table lost or changed kernels: %d left", len(own.Lanes))
	}
}

// TestTileFor: where baseTiles says so, a matrix takes the base's tile,
// but for streaming matrices and dst rows whole pages apart, which take
// the table's; without it, the table's; a matrix too small for the
// base's tile takes none of them; the table's paged tiles go first where
// dst rows lie whole pages apart.
func TestTileFor(t *testing.T) {
	own, base, ownNT := new(TileFunc), new(TileFunc), new(TileFunc)
	k := &Kernels{}
	k.Tiles, k.baseFrom = []TileKernel{{F: own, B: 16, W: 4, Chunk: 64}, {F: ownNT, B: 16, W: 4, Chunk: 64, NT: true}, {F: own, B: 8, W: 8, Chunk: 64}, {F: base, B: 8, W: 4, Chunk: 32}}, 3
	m := engine.Matrix{Rows: 1000, Cols: 1000, DstRow: 4000, SrcRow: 4000}
	for _, c := range []struct {
		baseTiles bool
		dstRow    int
		streaming bool
		want      *TileFunc
	}{
		{true, 4000, false, base},
		{true, 4096, false, own},
		{true, 3 * 4096, false, own},
		{true, 4000, true, own},
		{false, 4000, false, own},
	} {
		k.baseTiles[4], m.DstRow, m.Streaming = c.baseTiles, c.dstRow, c.streaming
		got, ok := k.tileFor(&m, 4)
		if !ok || got.f != c.want || got.f == own && got.nt != ownNT {
			t.Errorf("%+v: tile %+v, want the %v", c, got, map[*TileFunc]string{own: "table's", base: "base's"}[c.want])
		}
	}
	// Paged tiles go first where dst rows lie whole pages apart, if they
	// fit, and only for their words.
	paged := new(TileFunc)
	k.PagedTiles = []TileKernel{{F: paged, B: 16, W: 4, Chunk: 64}}
	for _, c := range []struct {
		w, rows, dstRow int
		want            *TileFunc
	}{
		{4, 1000, 4096, paged},
		{4, 1000, 3 * 4096, paged},
		{4, 1000, 4000, base},
		{4, 1000, 2048, base},
		{4, 12, 4096, base}, // too few rows for the paged tile and the table's
		{8, 1000, 4096, nil},
	} {
		k.baseTiles[4], k.baseTiles[8], m.Rows, m.DstRow, m.Streaming = true, false, c.rows, c.dstRow, false
		got, _ := k.tileFor(&m, c.w)
		if c.want != nil && got.f != c.want || c.want == nil && got.f == paged {
			t.Errorf("%+v: tile %+v", c, got)
		}
	}
	k.PagedTiles = nil
	k.baseTiles[4], m.Rows, m.DstRow = true, 7, 4000
	if got, ok := k.tileFor(&m, 4); ok {
		t.Errorf("a matrix of 7 rows got a tile: %+v", got)
	}
}
