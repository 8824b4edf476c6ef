package vec

import (
	"fmt"
	"slices"
)

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
// stored whole; 16-byte words, 2 rows of 32 bytes, need no unpack at
// all: each register loads a column. Bytes take 16 rows of 16 bytes (32 would need 16
// registers and one more): half a column is 8 bytes, and one cross-lane
// quadword permute per register makes each lane a column. Words in 8 rows
// of 32 bytes would need that permute too, and lost: NHWC to NCHW of
// 1x56x56x64 on a Zen 5 ran at 0.65 of copy() in 16 rows, 0.39-0.50 in 8.
//
// Elements of 3 to 15 bytes, but powers of two, go as the word of the
// next power of two, slotOf (tileOdd): as many rows and columns as that
// word's tile (2x2 of 16-byte words, one a lane), so b rows of b*w bytes.
func TileShape(w int) (b, chunk int) {
	switch w {
	case 1, 2:
		return 16, LaneBytes
	case 3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15:
		b = 2 * LaneBytes / slotOf(w)
		return b, b * w
	}
	return 2 * LaneBytes / w, 2 * LaneBytes
}

// slotOf is the word an element of w bytes takes in a register: the least
// power of two of at least w bytes.
func slotOf(w int) int {
	p := 1
	for p < w {
		p *= 2
	}
	return p
}

// TileShapeQuad is the tile of w-byte words a quad tile kernel moves: two
// by two of TileShape's, 2b rows of 2*chunk bytes, each column a whole
// 64-byte line for 4-byte words. The kernel moves the two tiles of a
// column together, a lane of their rows at a time, each line's halves
// stored back to back (TileStacked; table.ISA.TileKernels has why).
func TileShapeQuad(w int) (b, chunk int) {
	b, chunk = TileShape(w)
	return 2 * b, 2 * chunk
}

// TileShapeColumn is the tile of w-byte words a column tile kernel
// moves: TileShape's, one above the other, top first, 64/w rows of chunk
// bytes, so that each column is a whole 64-byte line (two tiles of 2- and
// 8-byte words, four of bytes).
func TileShapeColumn(w int) (b, chunk int) {
	_, chunk = TileShape(w)
	return 64 / w, chunk
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
	if slotOf(w) != w {
		return tileOdd(w, b, chunk)
	}
	return tile(w, b, chunk)
}

// tileOdd builds the transpose of b rows of chunk bytes of w-byte
// elements, w not a power of two, as tile builds it for their slots
// (slotOf): each half of a row, b/2 elements, is read as the 16 bytes
// that begin or end the row (never beyond it) and spread into slots, a
// row and the row b/2 below in the two lanes of a register; the unpacks
// leave each column in a register, its top half in the low lane; each
// column is packed back into two overlapping 16-byte stores, the first and
// the last of its b*w bytes, bytes from the other lane taken from a copy
// with the lanes swapped. Against two passes (byte tiles, then a zip of
// each element's bytes), on an Intel Xeon, one goroutine: see
// table.ISA.TileWidths.
func tileOdd(w, b, chunk int) (*Prog, error) {
	slot, half := slotOf(w), b/2
	if w < 3 || w > 15 || chunk != b*w || chunk < LaneBytes || half*slot != LaneBytes {
		return nil, fmt.Errorf("vec: no tile of %d-byte elements", w)
	}
	p := NewProg(2 * LaneBytes)
	ends := [2]int{0, chunk - LaneBytes} // where each half's 16 bytes start in a row
	for h, at := range ends {
		spread := make([]int8, 2*LaneBytes) // element e of the half into slot e
		for i := range spread {
			e, t := i%LaneBytes/slot, i%slot
			spread[i] = -1
			if t < w {
				spread[i] = int8((h*half+e)*w + t - at)
			}
		}
		regs := make([]int, half)
		for j := range regs {
			regs[j] = p.Shuffle(p.LoadPair(Mem{j, at}, Mem{j + half, at}), spread)
		}
		unpackNetwork(p, regs, slot)
	}
	want := TileWant(b, w, chunk)
	for x := range chunk / w {
		v := p.withLanes(In(0, x*w), In(half, x*w))
		if v < 0 {
			return nil, fmt.Errorf("vec: tile of %d-byte elements: no register holds column %d", w, x)
		}
		swapped := p.Lanes(v, v, [2]int{1, 0})
		// c's low lane is the column's first 16 bytes, its high lane the
		// last 16, each byte from v's lane or from swapped's.
		c := slices.Concat(want[x][:LaneBytes], want[x][chunk-LaneBytes:])
		all := func(Label) bool { return true }
		own, other := p.maskFor(v, c, all), p.maskFor(swapped, c, all)
		for i := range own {
			if own[i] >= 0 {
				other[i] = -1
			} else if other[i] < 0 {
				return nil, fmt.Errorf("vec: tile of %d-byte elements, column %d: no lane holds %v", w, x, c[i])
			}
		}
		packed := p.Or(p.Shuffle(v, own), p.Shuffle(swapped, other))
		p.Store(packed, 0, LaneBytes, Mem{x, 0})
		p.Store(packed, 1, LaneBytes, Mem{x, chunk - LaneBytes})
	}
	return p.finish(inputs(b, chunk), want)
}

// withLanes is the last value whose lanes begin with labels lo and hi, or
// -1.
func (p *Prog) withLanes(lo, hi Label) int {
	for v := len(p.values) - 1; v >= 0; v-- {
		if x := p.values[v]; len(x) == 2*LaneBytes && x[0] == lo && x[LaneBytes] == hi {
			return v
		}
	}
	return -1
}

// tile builds the transpose of b rows of chunk bytes of w-byte words.
func tile(w, b, chunk int) (*Prog, error) { return stacked(w, b, 1, chunk, 0, nil) }

// TileStacked builds the transpose of n tiles of w-byte words
// (TileShape), one above the other, over the first chunk bytes of their
// rows: each column is n pieces, one a tile, stored one right after the
// other. Streaming kernels need that order: a line of dst whose pieces
// are stored far apart stays open in a write-combining buffer meanwhile,
// and Intel's cores, whose fill buffers serve loads too, flush it half
// written (on an Intel Xeon, family 6 model 167, avx2 tier, one
// goroutine, of a non-streaming copy: NCHW to NHWC of 1x64x270x480 of
// 4-byte words 0.10 with 8 lines open, 0.45-0.62 with 4).
func TileStacked(w, n, chunk, regs int, temps func(Instr) int) (*Prog, error) {
	b, _ := TileShape(w)
	return stacked(w, b, n, chunk, regs, temps)
}

// stacked builds the transpose of n tiles of b rows of chunk bytes of
// w-byte words, one above the other.
func stacked(w, b, n, chunk, regs int, temps func(Instr) int) (*Prog, error) {
	half := b / 2 * w // bytes of half a column, in one lane
	if w < 1 || w > 16 || w&(w-1) != 0 || half != LaneBytes && half != LaneBytes/2 || n < 1 {
		return nil, fmt.Errorf("vec: no tile of %d-byte words", w)
	}
	p := NewProg(2 * LaneBytes)
	if n > 1 {
		p.joinRegs, p.joinTemps = regs, temps
	}
	for h := 0; h < chunk; h += LaneBytes {
		for t := range n {
			regs := make([]int, b/2)
			for j := range regs {
				regs[j] = p.LoadPair(Mem{t*b + j, h}, Mem{t*b + j + b/2, h})
			}
			for _, v := range unpackNetwork(p, regs, w) {
				if half < LaneBytes { // each quadword holds half a column: join the halves
					p.Quads(v, []int{0, 2, 1, 3})
				}
			}
		}
	}
	return p.finishTile(fmt.Sprintf("%d tiles of %d-byte words", n, w), n*b, w, chunk)
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

// TileShapeBlocks is the tile of 4-, 8- or 16-byte words Tile512Blocks moves:
// a row of 64 bytes a register, as many rows as make a column 64 bytes.
func TileShapeBlocks(w int) (b, chunk int) { return ZMM / w, ZMM }

// Tile512Blocks builds the transpose of one tile of 4-, 8- or 16-byte
// words (TileShapeBlocks) in 64-byte registers, each row whole in one:
// in-lane unpacks transpose each 16-byte lane's square block of words within
// every group of rows a lane high, then two stages of lane shuffles, each
// taking two lanes of one register and two of another (VSHUFI64X2),
// transpose the 4x4 lanes of the four groups' registers that hold the
// same columns. Unpacks run on all four of a Zen 5's vector pipes, lane
// shuffles on two; the lane tiles' 16-byte inserts take a load each, two
// a cycle. (On a Zen 5, in L1, 1.3x the lane tile for 4-byte words.)
func Tile512Blocks(w int) (*Prog, error) {
	if w != 4 && w != 8 && w != 16 {
		return nil, fmt.Errorf("vec: no block tile of %d-byte words", w)
	}
	b, chunk := TileShapeBlocks(w)
	q := LaneBytes / w // rows of a group: a lane's words
	p := NewProg(ZMM)
	// byCol[c][m] holds, in lane l, rows m*q.. of column l*q + c.
	byCol := make([][]int, q)
	for m := range b / q {
		rows := make([]int, q)
		for j := range rows {
			rows[j] = p.Load(Mem{m*q + j, 0}, chunk)
		}
		if err := p.unpackByColumn(rows, w, m*q, byCol); err != nil {
			return nil, fmt.Errorf("vec: block tile of %d-byte words: %w", w, err)
		}
	}
	lanes := ZMM / LaneBytes
	even, odd := []int{0, 2, lanes, lanes + 2}, []int{1, 3, lanes + 1, lanes + 3}
	for _, r := range byCol {
		if len(r) != lanes {
			return nil, fmt.Errorf("vec: block tile of %d-byte words: %d groups, not %d", w, len(r), lanes)
		}
		x0, x1 := p.Permute2(r[0], r[1], LaneBytes, even), p.Permute2(r[0], r[1], LaneBytes, odd)
		x2, x3 := p.Permute2(r[2], r[3], LaneBytes, even), p.Permute2(r[2], r[3], LaneBytes, odd)
		p.Permute2(x0, x2, LaneBytes, even)
		p.Permute2(x0, x2, LaneBytes, odd)
		p.Permute2(x1, x3, LaneBytes, even)
		p.Permute2(x1, x3, LaneBytes, odd)
	}
	return p.finishTile(fmt.Sprintf("block tile of %d-byte words", w), b, w, chunk)
}

// Tile512Halves builds the transpose of one tile of 2-byte words, 32 rows
// of 32 bytes (TileShapeLanes(2)), in 64-byte registers of two rows each:
// row i of a group of 16 in the low half and row i+8 in the high. In-lane
// unpacks transpose each lane's 8x8 block within every group, and one lane
// shuffle (VSHUFI64X2) a column joins its four 8-row pieces from the two
// groups' registers. It loads 32 bytes at a time, half the loads of
// Tile512Lanes (64 a kilobyte, at two a cycle).
func Tile512Halves() (*Prog, error) {
	const w = 2
	b, chunk := TileShapeLanes(w)
	q := LaneBytes / w // rows of a lane's block
	p := NewProg(ZMM)
	// byCol[k][g] holds column k, and column q+k, of group g's rows.
	byCol := make([][]int, q)
	for g := range b / (2 * q) {
		rows := make([]int, q)
		for i := range rows {
			r := g*2*q + i
			rows[i] = p.LoadInsert(p.Load(Mem{r, 0}, chunk), Mem{r + q, 0}, chunk, ZMM/2)
		}
		if err := p.unpackByColumn(rows, w, g*2*q, byCol); err != nil {
			return nil, fmt.Errorf("vec: half tile: %w", err)
		}
	}
	lanes := ZMM / LaneBytes
	for _, r := range byCol {
		if len(r) != 2 {
			return nil, fmt.Errorf("vec: half tile: %d groups hold a column, not 2", len(r))
		}
		for h := range chunk / LaneBytes { // the column's lane in each half
			p.Permute2(r[0], r[1], LaneBytes, []int{h, h + lanes/2, lanes + h, lanes + h + lanes/2})
		}
	}
	return p.finishTile("half tile of 2-byte words", b, w, chunk)
}

// unpackByColumn runs the in-lane unpack network of w-byte words on rows,
// a group of registers whose lane 0 starts with row first, and adds each
// result to byCol[c], c the column its lane 0 holds.
func (p *Prog) unpackByColumn(rows []int, w, first int, byCol [][]int) error {
	for _, v := range unpackNetwork(p, rows, w) {
		at := p.values[v][0].Mem() // lane 0's first word: row first, column c
		c := at.Off / w
		if at.Stream != first || c >= len(byCol) {
			return fmt.Errorf("lane 0 of the group from row %d holds %v", first, at)
		}
		byCol[c] = append(byCol[c], v)
	}
	return nil
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
