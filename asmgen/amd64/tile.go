package amd64

// The tile kernels of general transposes: vec.Tile in AVX2, and in
// AVX-512 vec.Tile512Lanes (bytes), vec.Tile512Halves (2-byte words),
// vec.Tile512Blocks (4 and 8) and vec.Tile512Rows (bytes, 16 rows).

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

func init() {
	lowerings[table.Tiles] = func(g *Generator, k table.Kernel) (int, error) {
		return 0, g.tile(k)
	}
}

// tile writes a tile kernel: three loops, over bands, strips and tiles,
// around the proven tile program, its rows addressed from the tile's
// first row and its columns from the tile's first column in dst, each in
// runs of four (rowAddr). The steps stay in their argument slots:
// registers are short with 16 rows and columns. Tiles of more rows or
// columns (AVX-512's) address them from pointers that step four at a
// time, one for each 16, and load or store them in order (Grouped).
func (g *Generator) tile(k table.Kernel) error {
	c := g.c
	p, err := vec.Tile(k.Width)
	switch {
	case k.ISA.TwoTable() && k.Width == 1 && k.B == vec.LaneBytes:
		p, err = vec.Tile512Rows()
	case k.ISA.TwoTable() && k.Width >= 4:
		p, err = vec.Tile512Blocks(k.Width)
	case k.ISA.TwoTable() && k.Width == 2:
		p, err = vec.Tile512Halves()
	case k.ISA.TwoTable():
		p, err = vec.Tile512Lanes(k.Width)
	}
	if err != nil {
		return err
	}
	b, chunk := k.TileShape()
	g.function(k)
	doc := []string{fmt.Sprintf("%s transposes tiles of %d rows of %d bytes of %d-byte words, in each of strips strips.", k.Name(), b, chunk, k.Width)}
	// Quads and columns (but of bytes) move their tiles one above the
	// other in one program, which stores the pieces of each line of dst
	// one right after the other (vec.TileStacked): the quads a lane of
	// their rows at a time, in turns, the columns at once.
	stack, rowBytes := k.Quad() || k.Column() && k.Width > 1, chunk
	if stack {
		lane := chunk
		if k.Quad() {
			lane = vec.LaneBytes
			doc = append(doc, fmt.Sprintf("It moves each in %d turns of the next %d bytes of its rows.", chunk/lane, lane))
		}
		tb, _ := vec.TileShape(k.Width)
		if p, err = vec.TileStacked(k.Width, b/tb, lane, vectorRegs, scratch); err != nil {
			return err
		}
		doc = append(doc, "It stores the pieces of each line of dst one right after the other.")
		chunk = lane
	} else if k.Column() { // the program moves one of the tiles of a column
		all := b * chunk
		b, chunk = vec.TileShape(k.Width)
		n := map[int]string{2: "two", 4: "four"}[all/(b*chunk)]
		doc = append(doc, fmt.Sprintf("It moves each as %s tiles of %d rows of %d bytes, in turn.", n, b, chunk))
	}
	cols := chunk / k.Width
	if k.Streaming {
		doc = append(doc, "It writes with non-temporal stores: every column's address must be 64-byte aligned.")
	}
	c.Doc(doc...)
	s, d := c.GP64(), c.GP64()
	c.Load(c.Param("src"), s)
	c.Load(c.Param("dst"), d)
	side := func(name string, lanes int) rowAddr {
		r := rowAddr{lane: c.GP64(), split: 4}
		c.Load(c.Param(name), r.lane)
		if lanes > 3 {
			r.lane3 = c.GP64()
			c.LEAQ(operand.Mem{Base: r.lane, Index: r.lane, Scale: 2}, r.lane3)
		}
		return r
	}
	src, dst := side("srcRow", b), side("dstRow", cols)
	var idx map[string]reg.VecPhysical // AVX-512's permute indices, in registers
	if k.ISA.TwoTable() {
		idx = g.hoistIndices(p)
	} else {
		g.hoist(p) // the shuffle masks of elements of other sizes than powers of two
		defer func() { g.hoisted = nil }()
	}
	tiles, strips := c.GP64(), c.GP64()
	bandLoop, stripLoop, tileLoop := g.label("band"), g.label("strip"), g.label("tile")
	c.Label(bandLoop)
	c.Load(c.Param("strips"), strips)
	c.Label(stripLoop)
	c.Load(c.Param("tiles"), tiles)
	c.Label(tileLoop)
	bases := func(r *rowAddr, from reg.GPVirtual, lanes int) {
		r.bases = []reg.GPVirtual{from}
		for len(r.bases)*r.split < lanes { // the next run of four lanes
			next := c.GP64()
			c.LEAQ(operand.Mem{Base: r.bases[len(r.bases)-1], Index: r.lane, Scale: 4}, next)
			r.bases = append(r.bases, next)
		}
	}
	if (b > 16 || cols > 16) && !stack {
		p = p.Grouped() // loads and stores in stream order, as stepping needs
	}
	// columns addresses the columns of the tile whose first column d
	// points at in dst, dOff bytes on.
	columns := func(d reg.GPVirtual, dOff int) func() addr {
		return func() addr {
			if cols > 16 {
				return g.stepping(k, dst, d, cols)
			}
			bases(&dst, d, cols)
			return func(x, off int) operand.Mem { return dst.mem(x, dOff+off) }
		}
	}
	// move runs the program on the tile whose first row s points at,
	// writing its columns where into says (called once src's rows are
	// addressed), with non-temporal stores where stream.
	move := func(s reg.GPVirtual, into func() addr, stream bool) {
		in := func(x, off int) operand.Mem { return src.mem(x, off) } // src's bases as they are when it loads
		switch {
		case b <= 16:
			bases(&src, s, b)
		case stack: // each tile's rows from bases of their own, made where first read
			var at []rowAddr
			in = func(x, off int) operand.Mem {
				for len(at) <= x/16 {
					r, first := src, s
					if len(at) > 0 {
						first = c.GP64()
						g.rowsDown(k, s, src.lane, first, len(at)*16)
					}
					bases(&r, first, 16)
					at = append(at, r)
				}
				return at[x/16].mem(x%16, off)
			}
		default: // each 16 rows from a pointer of its own, stepping
			in = g.stepping(k, src, s, 16)
		}
		out := into()
		g.stream = stream
		if k.ISA.TwoTable() {
			g.lower512(p, in, out, idx, nil)
		} else {
			g.lower(p, in, out)
		}
		g.stream = false
	}
	switch {
	case stack && k.Column():
		move(s, columns(d, 0), true)
	case stack:
		g.stacks(k, dst, s, d, rowBytes, cols, func(s, d reg.GPVirtual) { move(s, columns(d, 0), k.Streaming) })
	case k.Column():
		g.column(k, src, s, d, b, cols, columns, move)
	default:
		move(s, columns(d, 0), k.Streaming)
	}
	if k.Streaming && k.Width >= 2 && (!k.Column() || k.Width <= 8) {
		g.prefetchAhead(k, src, s, tiles)
	}
	step := func(srcStep, dstStep string) {
		c.ADDQ(param(c, srcStep), s)
		c.ADDQ(param(c, dstStep), d)
	}
	step("srcTile", "dstTile")
	c.DECQ(tiles)
	c.JNZ(operand.LabelRef(tileLoop))
	step("srcSkip", "dstSkip")
	c.DECQ(strips)
	c.JNZ(operand.LabelRef(stripLoop))
	step("srcBandSkip", "dstBandSkip")
	c.DECQ(param(c, "bands"))
	c.JNZ(operand.LabelRef(bandLoop))
	if k.Streaming {
		c.SFENCE() // non-temporal stores are weakly ordered
	}
	c.VZEROUPPER()
	c.RET()
	return nil
}

// prefetchAhead asks for the lines of src's tile prefetchTiles tiles
// along from the one s points at, into L2. Streaming tiles move tensors
// beyond the private cache, whose 16 or so rows a tile reads are too many
// streams for the hardware's prefetchers to keep ahead of. On a Zen 5,
// one goroutine, of a non-streaming copy, without and with: avx2 tier,
// 4096x4096 of 4-byte words 0.47-0.53 and 0.90-0.95, 16384x1024
// 0.45-0.53 and 0.86-0.94; avx512vbmi, 4096x4096 0.67-0.77 and
// 0.90-1.01, NCHW to NHWC of 1x64x256x256 of 8-byte words 0.37-0.46 and
// 0.70-0.92, 2048x2048 of 16-byte words 0.67-0.76 and 0.77-0.82, of
// 2-byte words 20-21 GB/s and 26-29; tied in the L3 (1024x1024 of 4-byte
// words). Into L1 they gained less (4096x4096 0.70-0.72, avx2), where a
// tile's rows a page apart fill one set. Bytes go without: AVX-512's
// lost on NCHW to NHWC of 64 channels (1x64x500x500 34-39 GB/s and
// 26-31), AVX2's columns of bytes too (0.95 -> 0.74). Tiles of more
// than 16 rows loop over them four at a time, for the bytes every
// importer pays for (a loop lost on AVX2's quads, 4096x4096 0.74 ->
// 0.59). Near the end of src the addresses may lie past it: a prefetch
// never faults, and loads nothing into registers.
//
// AVX2's columns of 2- and 8-byte words read each line of src in
// quarters, four tiles in turn, so they ask for a line once, on every
// fourth tile (tiles, the count down, a multiple of four), columnAhead
// tiles ahead, between five and eight tiles before they read it. On an
// Intel Xeon (family 6 model 167), whose prefetchers did not keep ahead
// of their rows, asking on every tile four ahead, avx2 tier, without and
// with: NCHW to NHWC of 1x64x270x480 of 2-byte words 0.43 and 1.23, of
// 8-byte words 0.62 and 1.21; 4000x3000 of 2-byte words 0.57 and 0.92,
// 2048x2048 of 8-byte words 0.63 and 0.97. On a Zen 5 asking on every
// tile lost (2-byte words, 1x64x270x480 0.83-1.13 -> 0.60-0.71), once a
// line gained: 0.84-1.00, 1x96x270x480 0.52-0.65 -> 0.68-0.86,
// 4000x3000 0.62-0.67 -> 0.73-0.77, 3000x1500 of 8-byte words
// 0.93-0.96 -> 0.99-1.11. Columns of 16-byte words went either way on
// that Xeon (1x64x128x128 0.87 and 0.71, 1x32x270x480 1.38 and 1.55)
// and go without.
func (g *Generator) prefetchAhead(k table.Kernel, src rowAddr, s, tiles reg.GPVirtual) {
	c := g.c
	rows, chunk := k.TileShape()
	ahead, skip := uint8(prefetchTiles), ""
	if k.Column() {
		ahead, skip = columnAhead, g.label("prefetched")
		c.TESTB(operand.U8(3), tiles.As8())
		c.JNZ(operand.LabelRef(skip))
	}
	t := c.GP64()
	c.MOVQ(param(c, "srcTile"), t)
	c.LEAQ(operand.Mem{Base: s, Index: t, Scale: ahead}, t)
	at := src
	at.bases = []reg.GPVirtual{t}
	four := func() { // the four rows from t on
		for x := range at.split {
			for off := 0; off < chunk; off += 64 {
				c.PREFETCHT1(at.mem(x, off))
			}
		}
	}
	next := func() { c.LEAQ(operand.Mem{Base: t, Index: at.lane, Scale: 4}, t) }
	if rows <= 16 {
		for x := 0; x < rows; x += at.split {
			if x > 0 {
				next()
			}
			four()
		}
	} else {
		n, loop := c.GP64(), g.label("prefetch")
		c.MOVL(operand.U32(rows/at.split), n.As32())
		c.Label(loop)
		four()
		next()
		c.DECL(n.As32())
		c.JNZ(operand.LabelRef(loop))
	}
	if k.Column() {
		c.Label(skip)
	}
}

// prefetchTiles is how many tiles ahead prefetchAhead reaches: on that
// Zen 5, 4 and 8 tied beyond the shared cache (4 a little ahead in the
// L3), 16 lost a little. columnAhead is the reach of AVX2's columns,
// which ask once every four tiles: 8, so that the line asked for is
// never less than a line ahead.
const (
	prefetchTiles = 4
	columnAhead   = 8
)

// stepping addresses the lanes of r (rows or columns) from pointers that
// step four lanes at a time, one for each span of run lanes from base
// on: where a tile has more lanes than rowAddr's bases can take in
// registers. Its lanes must be asked for in order within each span.
func (g *Generator) stepping(k table.Kernel, r rowAddr, base reg.GPVirtual, run int) func(x, off int) operand.Mem {
	c := g.c
	var ptrs []reg.GPVirtual
	var at []int // the lane each pointer points at, within its span
	return func(x, off int) operand.Mem {
		span := x / run
		for len(ptrs) <= span { // a span's pointer, made where it is first used
			// from the last span's pointer, as far as it has stepped
			p, from := c.GP64(), 0
			if n := len(ptrs); n > 0 {
				c.MOVQ(ptrs[n-1], p)
				from = (n-1)*run + at[n-1]
			} else {
				c.MOVQ(base, p)
			}
			for range (len(ptrs)*run - from) / r.split {
				c.LEAQ(operand.Mem{Base: p, Index: r.lane, Scale: 4}, p)
			}
			ptrs, at = append(ptrs, p), append(at, 0)
		}
		x -= span * run
		if x < at[span] {
			panic(fmt.Sprintf("amd64: %s reaches lane %d of a span after lane %d", k.Name(), x, at[span]))
		}
		for x >= at[span]+r.split { // the next four lanes
			c.LEAQ(operand.Mem{Base: ptrs[span], Index: r.lane, Scale: 4}, ptrs[span])
			at[span] += r.split
		}
		q := r
		q.bases = ptrs[span : span+1]
		return q.mem(x-at[span], off)
	}
}

// An addr is the address of lane x of a tile (a row or a column), off
// bytes on.
type addr func(x, off int) operand.Mem

// column writes the body of a column tile kernel of bytes' tile loop, s
// and d at the tile's first row and column: move, the program of a tile
// of b rows of cols bytes, on each tile of the column, top first, s
// stepping down and back, into a block of whole lines on the stack,
// which then goes into dst a line at a time, each in two stores one right
// after the other. Stacked in one program (vec.TileStacked), the four
// tiles' 16-byte quarters of each line would need more registers than
// there are.
func (g *Generator) column(k table.Kernel, src rowAddr, s, d reg.GPVirtual, b, cols int, columns func(reg.GPVirtual, int) func() addr, move func(reg.GPVirtual, func() addr, bool)) {
	c := g.c
	n, piece := 64/(b*k.Width), b*k.Width
	block := c.AllocLocal(cols * 64)
	c.Attributes(0) // a frame beyond NOSPLIT's limit: the stack may grow first
	for i := range n {
		if i > 0 {
			g.rowsDown(k, s, src.lane, s, b)
		}
		move(s, func() addr { return func(x, off int) operand.Mem { return block.Offset(x*64 + i*piece + off) } }, false)
	}
	back := c.GP64()
	c.IMUL3Q(operand.Imm(uint64((n-1)*b)), src.lane, back)
	c.SUBQ(back, s)
	out := columns(d, 0)()
	for x := range cols {
		for h := 0; h < 64; h += 2 * vec.LaneBytes {
			c.VMOVDQU(block.Offset(x*64+h), reg.Y0)
			c.VMOVNTDQ(reg.Y0, out(x, h))
		}
	}
}

// stacks writes the body of a quad tile kernel's tile loop that moves
// stacked tiles (vec.TileStacked), s and d at the tile's first row and
// column: a loop that runs move, the program of the quad's rows' next 16
// bytes into cols columns, on each 16 bytes in turn, leaving s and d
// where they were.
func (g *Generator) stacks(k table.Kernel, dst rowAddr, s, d reg.GPVirtual, chunk, cols int, move func(s, d reg.GPVirtual)) {
	c := g.c
	xs, xd, turns := c.GP64(), c.GP64(), c.GP64()
	c.MOVQ(s, xs)
	c.MOVQ(d, xd)
	c.MOVQ(operand.U32(chunk/vec.LaneBytes), turns)
	turn := g.label("turn")
	c.Label(turn)
	move(xs, xd)
	c.ADDQ(operand.U32(vec.LaneBytes), xs)
	g.rowsDown(k, xd, dst.lane, xd, cols)
	c.DECQ(turns)
	c.JNZ(operand.LabelRef(turn))
}

// rowsDown sets r to base plus n rows of row bytes, in steps of at most 8
// rows (a scaled index).
func (g *Generator) rowsDown(k table.Kernel, base, row, r reg.GPVirtual, n int) {
	for ; n > 0; n -= 8 {
		m := min(n, 8)
		if m&(m-1) != 0 {
			panic(fmt.Sprintf("amd64: %s: no step of %d rows", k.Name(), m))
		}
		g.c.LEAQ(operand.Mem{Base: base, Index: row, Scale: uint8(m)}, r)
		base = r
	}
}
