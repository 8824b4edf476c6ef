package vec

import (
	"fmt"
	"math/bits"
	"testing"
)

// TestTile builds every tile and checks it: finish proves each program
// moves every word to its column and reads only its rows; here, that it
// fits AVX2's registers and moves each byte once.
func TestTile(t *testing.T) {
	for _, w := range []int{1, 2, 4, 8, 16} {
		p, err := Tile(w)
		if err != nil {
			t.Fatal(err)
		}
		b, chunk := TileShape(w)
		if live := p.MaxLive(nil); live > 16 {
			t.Errorf("w = %d: %d values live", w, live)
		}
		loads, stored := 0, 0
		for _, in := range p.Instrs {
			switch in.Op {
			case LoadPair:
				loads += 2 * in.Size
			case Store:
				stored += in.Size
			}
		}
		if loads != b*chunk || stored != b*chunk {
			t.Errorf("w = %d: loads %d bytes and stores %d, want %d each", w, loads, stored, b*chunk)
		}
	}
	if _, err := Tile(32); err == nil {
		t.Error("a tile of 32-byte words built")
	}
}

// TestTile16 builds the 16-byte tiles; finish proves them. Each column is
// one register, stored once.
func TestTile16(t *testing.T) {
	for _, w := range []int{1, 2, 4, 8} {
		p, err := Tile16(w)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := TileShape16(w)
		checkOps(t, fmt.Sprintf("w = %d", w), p, map[Op]int{Store: b})
		if live := p.Grouped().MaxLive(nil); live > 24 {
			t.Errorf("w = %d: %d values live with loads first", w, live)
		}
	}
}

// TestTile512Lanes builds the lane tiles (finish proves them) and checks
// that each fits AVX-512's registers and stores each column whole.
func TestTile512Lanes(t *testing.T) {
	for _, w := range []int{1, 2, 4, 8} {
		p, err := Tile512Lanes(w)
		if err != nil {
			t.Fatal(err)
		}
		if live := p.MaxLive(nil); live > 32 {
			t.Errorf("w = %d: %d values live", w, live)
		}
		_, chunk := TileShapeLanes(w)
		stores := 0
		for _, in := range p.Instrs {
			if in.Op == Store {
				stores++
				if in.Size != ZMM {
					t.Errorf("w = %d: a store of %d bytes", w, in.Size)
				}
			}
		}
		if stores != chunk/w {
			t.Errorf("w = %d: %d stores, want one a column, %d", w, stores, chunk/w)
		}
	}
	if _, err := Tile512Lanes(3); err == nil {
		t.Error("a lane tile of 3-byte words built")
	}
}

// TestTile512Rows builds the 16-row tile of bytes (finish proves it) and
// checks that it stores each column once, from a lane.
func TestTile512Rows(t *testing.T) {
	p, err := Tile512Rows()
	if err != nil {
		t.Fatal(err)
	}
	_, chunk := TileShapeRows()
	stores := 0
	for _, in := range p.Instrs {
		if in.Op == Store {
			stores++
			if in.Size != LaneBytes {
				t.Errorf("a store of %d bytes", in.Size)
			}
		}
	}
	if stores != chunk {
		t.Errorf("%d stores, want one a column, %d", stores, chunk)
	}
}

// TestTile512Blocks builds the block tiles (finish proves them) and checks
// their cost: a load and a store a row, log2(16/w) unpacks a row, and
// eight lane shuffles for each four groups' registers.
func TestTile512Blocks(t *testing.T) {
	for _, w := range []int{4, 8, 16} {
		p, err := Tile512Blocks(w)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := TileShapeBlocks(w)
		q := LaneBytes / w
		checkOps(t, fmt.Sprintf("w = %d", w), p, map[Op]int{Load: b, Store: b, Interleave: b * bits.Len(uint(q-1)), Permute2: q * 8})
	}
	if _, err := Tile512Blocks(2); err == nil {
		t.Error("a block tile of 2-byte words built")
	}
}

// TestTile512Halves builds the half tile of 2-byte words (finish proves
// it) and checks its cost: 32 bytes a load, a lane shuffle a column.
func TestTile512Halves(t *testing.T) {
	p, err := Tile512Halves()
	if err != nil {
		t.Fatal(err)
	}
	b, chunk := TileShapeLanes(2)
	checkOps(t, "half tile", p, map[Op]int{Load: b / 2, LoadInsert: b / 2, Interleave: b / 2 * 3, Permute2: chunk / 2, Store: chunk / 2})
}

// checkOps checks how many instructions of each op in want p has.
func checkOps(t *testing.T, what string, p *Prog, want map[Op]int) {
	t.Helper()
	count := map[Op]int{}
	for _, in := range p.Instrs {
		count[in.Op]++
	}
	for op, n := range want {
		if count[op] != n {
			t.Errorf("%s: %d of op %d, want %d", what, count[op], op, n)
		}
	}
}

// TestTileOdd builds the tiles of elements of 3 to 15 bytes, but powers
// of two: finish proves each, and each fits AVX2's registers.
func TestTileOdd(t *testing.T) {
	for _, w := range []int{3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15} {
		p, err := Tile(w)
		if err != nil {
			t.Fatalf("w %d: %v", w, err)
		}
		b, chunk := TileShape(w)
		if err := p.Check(TileWant(b, w, chunk)); err != nil {
			t.Errorf("w %d: %v", w, err)
		}
		if live := p.MaxLive(nil); live > 16 {
			t.Errorf("w = %d: %d values live", w, live)
		}
	}
	if _, err := Tile(17); err == nil {
		t.Error("a tile of 17-byte elements")
	}
}
