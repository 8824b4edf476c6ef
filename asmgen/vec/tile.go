package vec

import "fmt"

// Tile kernels transpose a matrix of w-byte words one tile at a time: a
// tile is b rows of chunk bytes, input streams 0..b-1, and its transpose
// is chunk/w columns of b words, output streams 0..chunk/w-1 (each a row
// of the transposed matrix).

// TileShape is the tile of w-byte words a tile kernel moves in 32-byte
// registers: b rows of chunk bytes. A row's 16-byte half and the same
// half of the row b/2 below share a register, so in-lane unpacks
// transpose both halves of the tile at once and every lane ends holding
// half a column: b = 32/w makes that half 16 bytes, so each column is one
// register; bytes and words take b = 16/w, half a column is 8 bytes, and
// one cross-lane quadword permute per register makes each lane a column.
// Bytes take 16-byte rows, which keeps the tile in 8 registers.
func TileShape(w int) (b, chunk int) {
	switch w {
	case 1:
		return 16, LaneBytes
	case 2:
		return 8, 2 * LaneBytes
	}
	return 2 * LaneBytes / w, 2 * LaneBytes
}

// TileWant is what a tile's transpose writes: output stream x holds word x
// of each of the b rows, in row order.
func TileWant(b, w, chunk int) map[int]Value {
	want := map[int]Value{}
	for x := range chunk / w {
		col := make(Value, b*w)
		for t := range col {
			col[t] = In(t/w, x*w+t%w)
		}
		want[x] = col
	}
	return want
}

// Tile builds the transpose of one tile of w-byte words (TileShape) in
// 32-byte registers and proves it.
func Tile(w int) (*Prog, error) {
	b, chunk := TileShape(w)
	half := b / 2 * w // bytes of half a column, in one lane
	if w < 1 || w > 8 || w&(w-1) != 0 || half != LaneBytes && half != LaneBytes/2 {
		return nil, fmt.Errorf("vec: no tile of %d-byte words", w)
	}
	p := NewProg(2 * LaneBytes)
	for h := 0; h < chunk; h += LaneBytes {
		regs := make([]int, b/2)
		for j := range regs {
			regs[j] = p.LoadPair(Mem{j, h}, Mem{j + b/2, h})
		}
		for _, v := range unpackNetwork(p, regs, w) {
			if half < LaneBytes { // each quadword holds half a column: join the halves
				p.Quads(v, []int{0, 2, 1, 3})
			}
		}
	}
	want := TileWant(b, w, chunk)
	for x := range chunk / w {
		if err := p.storeAll(x, 0, want[x]); err != nil {
			return nil, fmt.Errorf("vec: tile of %d-byte words, column %d: %w", w, x, err)
		}
	}
	return p.finish(inputs(b, chunk), want)
}
