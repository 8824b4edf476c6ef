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
// half a column. Dwords and qwords take b = 32/w, words 16 rows of 16
// bytes: half a column fills a lane, so each column is one register,
// stored whole. Bytes take 16 rows of 16 bytes (32 would need 16
// registers and one more): half a column is 8 bytes, and one cross-lane
// quadword permute per register makes each lane a column. Words in 8 rows
// of 32 bytes would need that permute too, and lost: NHWC to NCHW of
// 1x56x56x64 on a Zen 5 ran at 0.65 of copy() in 16 rows, 0.39-0.50 in 8.
func TileShape(w int) (b, chunk int) {
	switch w {
	case 1, 2:
		return 16, LaneBytes
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
	return tile(w, b, chunk)
}

// tile builds the transpose of b rows of chunk bytes of w-byte words.
func tile(w, b, chunk int) (*Prog, error) {
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
	return p.finishTile(fmt.Sprintf("tile of %d-byte words", w), b, w, chunk)
}

// finishTile stores each column of a tile of b rows of chunk bytes of
// w-byte words from the register, or the register's lane, holding it, in
// column order, and finishes the program.
func (p *Prog) finishTile(what string, b, w, chunk int) (*Prog, error) {
	want := TileWant(b, w, chunk)
	for x := range chunk / w {
		if err := p.storeAll(x, 0, want[x]); err != nil {
			return nil, fmt.Errorf("vec: %s, column %d: %w", what, x, err)
		}
	}
	return p.finish(inputs(b, chunk), want)
}

// TileShape512 is the tile of w-byte words Tile512 moves in 64-byte
// registers: a row a register, 16 rows (8 of 8-byte words), so that a
// tile reads whole cache lines, and, for 4- and 8-byte words, writes them.
func TileShape512(w int) (b, chunk int) { return min(16, ZMM/w), ZMM }

// Tile512 builds the transpose of one tile of w-byte words (2, 4 or 8;
// TileShape512) in 64-byte registers by swapping blocks. A register of n
// rows' words holds ZMM/(n*w) segments of n words; at each step, for
// blocks of d words from half a segment down to one, registers i and i+d
// (i with bit d clear) exchange the blocks that lie off the diagonal of
// their 2d x 2d squares, one two-table permute each, of the widest grain
// (up to 8 bytes) a block holds whole. Segment s of register i ends
// holding column s*n + i. (Bytes would need VBMI's byte permutes. The
// table takes it for 8-byte words; see table.TileWidths.)
func Tile512(w int) (*Prog, error) {
	n, chunk := TileShape512(w)
	if w < 2 || w > 8 || w&(w-1) != 0 {
		return nil, fmt.Errorf("vec: no 64-byte tile of %d-byte words", w)
	}
	seg := n * w // bytes of a segment
	p := NewProg(ZMM)
	regs := make([]int, n)
	for j := range regs {
		regs[j] = p.Load(Mem{j, 0}, chunk)
	}
	for d := n / 2; d >= 1; d /= 2 {
		grain := min(8, d*w)
		per := grain / w // words a grain
		grains := ZMM / grain
		low, high := make([]int, grains), make([]int, grains) // register i's and register i+d's indices
		for g := range grains {
			k := g * per // the grain's first word
			kk := k % n  // within its segment
			if kk&d == 0 {
				low[g], high[g] = -1, (k+d)/per // keep A's; A's next block
			} else {
				low[g], high[g] = grains+(k-d)/per, grains+g // B's block before; B's own
			}
		}
		for i := range n {
			if i&d == 0 {
				a, b := regs[i], regs[i+d]
				regs[i], regs[i+d] = p.Permute2(a, b, grain, low), p.Permute2(a, b, grain, high)
			}
		}
	}
	want := TileWant(n, w, chunk)
	for i, v := range regs {
		for s := range ZMM / seg {
			p.Store(v, s, seg, Mem{s*n + i, 0})
		}
	}
	return p.finish(inputs(n, chunk), want)
}

// TileShapeLanes is the tile of w-byte words Tile512Lanes moves: four
// lanes' rows, 16/w each, of 16 bytes of each of 16*w/16 column groups
// (the 16 registers' worth; 64 rows of 16 bytes for bytes).
func TileShapeLanes(w int) (b, chunk int) { return 4 * LaneBytes / w, LaneBytes * w }

// Tile512Lanes builds the transpose of one tile of w-byte words
// (TileShapeLanes) in 64-byte registers by the in-lane unpack network of
// AVX2's tiles: for each group of 16 bytes of columns, register j holds
// rows j, j+n, j+2n and j+3n (n = 16/w) in its four lanes, so each lane is
// an n x n tile of its own and each register ends holding one whole
// column, a 64-byte store.
func Tile512Lanes(w int) (*Prog, error) {
	if w < 1 || w > 8 || w&(w-1) != 0 {
		return nil, fmt.Errorf("vec: no lane tile of %d-byte words", w)
	}
	b, chunk := TileShapeLanes(w)
	n := LaneBytes / w
	p := NewProg(ZMM)
	groups := chunk / LaneBytes
	regs := make([][]int, groups)
	// Lane by lane, so that the rows are read in order (the back end
	// steps through them).
	for l := range ZMM / LaneBytes {
		for j := range n {
			for g := range regs {
				m := Mem{j + l*n, g * LaneBytes}
				if l == 0 {
					regs[g] = append(regs[g], p.Load(m, LaneBytes))
				} else {
					regs[g][j] = p.LoadInsert(regs[g][j], m, LaneBytes, l*LaneBytes)
				}
			}
		}
	}
	for _, r := range regs {
		unpackNetwork(p, r, w)
	}
	return p.finishTile(fmt.Sprintf("lane tile of %d-byte words", w), b, w, chunk)
}

// TileShapeRows is the tile of bytes Tile512Rows moves: 16 rows of 64.
func TileShapeRows() (b, chunk int) { return LaneBytes, ZMM }

// Tile512Rows builds the transpose of one tile of bytes (TileShapeRows)
// in 64-byte registers by the in-lane unpack network of AVX2's tiles: a
// row a register, every 16-byte lane of which is a 16x16 tile of its own,
// so that each lane ends holding one 16-byte column, stored from there.
func Tile512Rows() (*Prog, error) {
	n, chunk := TileShapeRows()
	p := NewProg(ZMM)
	regs := make([]int, n)
	for j := range regs {
		regs[j] = p.Load(Mem{j, 0}, chunk)
	}
	unpackNetwork(p, regs, 1)
	return p.finishTile("16-row tile of bytes", n, 1, chunk)
}

// TileShape16 is the tile of w-byte words a tile kernel moves in 16-byte
// registers (NEON): as many rows as a register holds words, one register
// each.
func TileShape16(w int) (b, chunk int) { return LaneBytes / w, LaneBytes }

// Tile16 builds the transpose of one tile of w-byte words (TileShape16) in
// 16-byte registers: the zip network of its rows leaves each column whole
// in one register.
func Tile16(w int) (*Prog, error) {
	b, chunk := TileShape16(w)
	if w < 1 || w > 8 || w&(w-1) != 0 {
		return nil, fmt.Errorf("vec: no 16-byte tile of %d-byte words", w)
	}
	p := NewProg(LaneBytes)
	regs := make([]int, b)
	for j := range regs {
		regs[j] = p.Load(Mem{j, 0}, chunk)
	}
	unpackNetwork(p, regs, w)
	return p.finishTile(fmt.Sprintf("16-byte tile of %d-byte words", w), b, w, chunk)
}
