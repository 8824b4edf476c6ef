package table

import (
	"slices"

	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

// StackGrains are the grains, in bytes, of an ISA's stacked-row
// kernels, whose two-table permutes move grains of 1 (VPERMI2B), 2
// (VPERMI2W) or 4 bytes (VPERMI2D): the runtime takes the largest that
// divides the element size. Without byte permutes (AVX-512 BW) the kernels
// of 1-byte grains move 1-byte elements as pairs with VPERMI2W
// (internal/stack). Only the ISAs with two-table permutes have them: AVX2
// and NEON permute bytes only within 16-byte lanes.
func (i ISA) StackGrains() []int {
	if i.TwoTable() {
		return []int{1, 2, 4}
	}
	return nil
}

// BundleWidths are the element widths of an ISA's bundle kernels: AVX2's
// and NEON's, which permute bytes within 16-byte registers only. The
// AVX-512 tiers stack rows of up to 64 bytes instead, and hand longer ones
// to their base, AVX2.
func (i ISA) BundleWidths() []int {
	if !i.TwoTable() {
		return []int{1, 2, 4, 8}
	}
	return nil
}

// TileWidths are the word sizes of an ISA's tile kernels: every one for
// the ISAs whose widest registers are 32 bytes of 16-byte lanes (vec.Tile;
// AVX2), and for those with two-table permutes of 64-byte registers
// (AVX-512), whose tiles read or write whole cache lines, which AVX2's
// cannot hold in 16 registers (on a Zen 5, a 1024x1024 matrix of 4-byte
// words moved at 0.50 of copy() with AVX-512's tiles, 0.29 with AVX2's).
// Bytes go by in-lane unpacks of four rows to a register
// (vec.Tile512Lanes), whose columns are whole-line stores; 2-byte words
// two rows to a register (vec.Tile512Halves), and 4- and 8-byte words a
// row a register (vec.Tile512Blocks), by in-lane unpacks and lane
// shuffles; docs/performance.md has what they beat. AVX2 also has tiles
// of elements of 3 to 15 bytes, whole (vec.Tile), which the AVX-512
// tiers take from it: one pass where two split the elements into bytes
// or words and zipped them back (on an Intel Xeon, one goroutine,
// 2000x2000 of 5-byte elements at 0.60 of a non-streaming copy, 0.32 in
// two passes). 11- and 13-byte elements have none: with them the hello
// world outgrew its budget. 16-byte words (complex128, four float32s)
// have tiles too, AVX2's 2x2 (a column a register, no shuffle) and
// AVX-512's 4x4 (vec.Tile512Blocks, whole lines, with a streaming twin),
// where the run copier moved each element alone, a quarter of a line of
// dst (on an Intel Xeon, one goroutine, 2048x2048: 3-4 GB/s, 12 in
// AVX2's tiles, 20-22 in AVX-512's). ISAs of 16-byte registers (NEON)
// have vec.Tile16's, one register a row, and no tile of 16-byte words.
func (i ISA) TileWidths() []int {
	switch {
	case i.Vector() == 2*vec.LaneBytes && !i.TwoTable():
		return []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 15, 16}
	case i.Vector() < 2*vec.LaneBytes:
		return []int{1, 2, 4, 8}
	case i.Vector() == vec.ZMM && i.TwoTable():
		return []int{1, 2, 4, 8, 16}
	}
	return nil
}

// TileKernels are an ISA's tile kernels of w-byte words, the largest tile
// first (B is a kernel's rows): a matrix takes the first whose tile fits
// it. AVX-512's bytes have a second tile, 16 rows of 64 bytes, one row a
// register (vec.Tile512Rows), for matrices of 16 to 63 rows, which would
// take AVX2's: on a Zen 5, NCHW to NHWC of 1x16x112x112 at 0.65 of copy()
// against 0.44. (Larger matrices take the first tile: this one's 16-byte
// column stores leave lines half written.)
func (i ISA) TileKernels(w int) []Kernel {
	if !slices.Contains(i.TileWidths(), w) {
		return nil
	}
	k := Kernel{ISA: i, Width: w}
	k.B, _ = k.TileShape() // the ISA's tile for w, B unset
	out := []Kernel{k}
	if i.TwoTable() && w == 1 {
		k.B, _ = vec.TileShapeRows()
		out = append(out, k)
	}
	if i.quadTiles(w) {
		k.B, _ = vec.TileShapeQuad(w)
		out = append([]Kernel{k}, out...)
	}
	if i.columnTiles(w) {
		k.B, _ = vec.TileShapeColumn(w)
		out = append([]Kernel{k}, out...)
	}
	return out
}

// quadTiles reports whether an ISA has a quad tile kernel of w-byte words
// (vec.TileShapeQuad), for matrices whose dst rows lie whole pages apart
// (the tables' PagedTiles): AVX2's of 4-byte words. Such rows all fall in
// one L1 set (12 ways on the x86 cores we target), where the 8x8 tile
// leaves 16 half-written lines; the quad writes whole lines. On an Intel
// Xeon (family 6 model 167), avx2 tier, one goroutine, of a
// non-streaming copy: 1024x1024 0.44 -> 0.59, 2048x2048 0.43 -> 0.56,
// 4096x256 0.57 -> 0.64, NCHW to NHWC of 1x1024x14x14 0.28 -> 0.45 (the
// quad then moved its four tiles in turn; each line's halves back to
// back since, 1x1024x14x14 0.36 -> 0.52, 2048x128 0.50 -> 0.57). With dst rows 1 to 3 KiB
// apart quads lost (512x512 0.64 against 0.71, 768x1024 0.66 against
// 0.73), and quads of 8-byte words lost everywhere (1024x1024 0.52
// against 0.69).
func (i ISA) quadTiles(w int) bool {
	return w == 4 && i.Vector() == 2*vec.LaneBytes && !i.TwoTable()
}

// Quad reports whether a tile kernel moves quad tiles (vec.TileShapeQuad).
func (k Kernel) Quad() bool {
	b, _ := vec.TileShape(k.Width)
	return k.ISA.quadTiles(k.Width) && k.B == 2*b
}

// columnTiles reports whether an ISA has column tile kernels of w-byte
// words (vec.TileShapeColumn), streaming twins only (the tables'
// StreamTiles), for the matrices that stream and whose tiles have no
// twin: AVX2's of bytes, 2-, 8- and 16-byte words, whose tiles write 16
// or 32 bytes of each column, where a column of them, one above the
// other, writes whole lines. On a Zen 5, avx2 tier, one goroutine, of a
// non-streaming copy, NCHW to NHWC in place and in columns: 1x64x270x480
// (a 64x129600 matrix) of 8-byte words 0.34-0.37 and 0.74-0.76, 2-byte
// words 0.48-0.53 and 1.05-1.11; 1x64x500x500 bytes 0.23-0.25 and
// 0.87-0.95; 1x32x270x480 of 16-byte words 0.31-0.38 and 0.83-0.88,
// 1x64x64x128 (in the L3) 0.50-0.56 and 0.69-0.71. Quads of 4-byte
// words, streaming in place, won and lost (1x96x200x200 0.55-0.60 and
// 0.95-1.01, 1x64x270x480 0.61-0.65 and 0.56-0.60).
func (i ISA) columnTiles(w int) bool {
	return (w == 1 || w == 2 || w == 8 || w == 16) && i.Vector() == 2*vec.LaneBytes && !i.TwoTable()
}

// Column reports whether a tile kernel moves column tiles (vec.TileShapeColumn).
func (k Kernel) Column() bool {
	b, _ := vec.TileShape(k.Width)
	return k.ISA.columnTiles(k.Width) && k.B*k.Width == 64 && k.B > b
}

// StreamingTile reports whether a tile kernel has a twin that writes with
// non-temporal stores: AVX-512's whose tiles store each column as one
// whole 64-byte line (on a Zen 5, NCHW to NHWC of 1x64x270x480 of 4-byte
// words, 33 MB: 0.87 of copy() streaming, 0.65 not), and AVX2's quads,
// which write each line in two halves, one tile after the other (on a
// Zen 5, avx2 tier, one goroutine, of a non-streaming copy, in place and
// streaming: 1024x1024 of 4-byte words 0.13-0.15 and 0.54-0.58, 4096x1024
// 0.43-0.47 and 0.76-0.99, NCHW to NHWC of 1x1024x28x28 0.15 and
// 0.60-0.73; 4096x4096, through a buffer before, 0.34-0.37 and
// 0.51-0.53), and AVX2's columns. Those two write each line's pieces
// back to back (vec.TileStacked), bytes through a block of lines: on an
// Intel Xeon (family 6 model 167), where a line's pieces stored further
// apart than that are flushed half written, avx2 tier, streaming, before
// and after: NCHW to NHWC of 1x64x270x480 of 4-byte words 0.10-0.13 and
// 1.04-1.22, of 2-byte words 0.10 and 0.63-0.64, of 8-byte words
// 0.30-0.36 and 0.56-0.58, of 16-byte words 0.91-0.94 and 1.06-1.15.
// AVX2's other tiles, of 16 or 32 bytes of a column, would leave lines
// half written.
func (k Kernel) StreamingTile() bool {
	b, _ := k.TileShape()
	return k.ISA.TwoTable() && k.ISA.Vector() == vec.ZMM && b*k.Width == vec.ZMM || k.Quad() || k.Column()
}

// TileShape is the tile of a tile kernel: b rows of chunk bytes. B
// chooses among an ISA's tiles for its width (Tiles); unset, the first.
func (k Kernel) TileShape() (b, chunk int) {
	switch {
	case k.ISA.TwoTable() && k.Width == 1 && k.B == vec.LaneBytes:
		return vec.TileShapeRows()
	case k.ISA.TwoTable() && k.Width >= 4:
		return vec.TileShapeBlocks(k.Width)
	case k.ISA.TwoTable():
		return vec.TileShapeLanes(k.Width)
	case k.ISA.Vector() == vec.LaneBytes:
		return vec.TileShape16(k.Width)
	case k.Quad():
		return vec.TileShapeQuad(k.Width)
	case k.Column():
		return vec.TileShapeColumn(k.Width)
	}
	return vec.TileShape(k.Width)
}
