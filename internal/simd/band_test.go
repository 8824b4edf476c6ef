package simd

import (
	"fmt"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/engine"
)

// TestBandCols checks that bands are two lines of src wide for tiles of
// up to pairRows rows that write whole lines of dst and of up to halfRows
// that write half lines, one line for other ones, narrower only where the
// band's dst rows fall in few L1 sets, never below two tiles; and that
// bands of tiles that write whole lines span wideLines lines of src in
// matrices of more than readStreams rows whose short dst rows fall in
// many sets, but not in a core's private cache, nor, for tiles of half
// lines, where the matrix does not stream; so do those of tiles of whole
// elements of 3 to 15 bytes, outside the private cache too, narrowed
// where their dst rows fall in few sets as narrow bands are.
func TestBandCols(t *testing.T) {
	for _, m := range []engine.Matrix{
		{Rows: 64, Cols: 64, DstRow: 256},      // 16 KiB of 4-byte words
		{Rows: 64, Cols: 1 << 20, DstRow: 256}, // not streaming
	} {
		if got := bandCols(8, 3, 8, &m); got != map[int]int{64: 24, 1 << 20: 80}[m.Cols] {
			t.Errorf("8x8 tiles of 3-byte elements, %dx%d matrix: bands of %d columns", m.Rows, m.Cols, got)
		}
		if got := bandCols(16, 4, 16, &m); m.Cols == 64 && got != 32 {
			t.Errorf("16x16 tiles of 4-byte words, %dx%d matrix: bands of %d columns, want 32", m.Rows, m.Cols, got)
		}
		if got := bandCols(8, 4, 8, &m); got != 32 {
			t.Errorf("8x8 tiles of 4-byte words, %dx%d matrix, streaming %v: bands of %d columns, want 32", m.Rows, m.Cols, m.Streaming, got)
		}
	}
	for _, c := range []struct{ cols, w, rows, matRows, dstRow, want int }{
		{16, 4, 16, 64, 256, 256},  // NCHW to NHWC of 64 channels: 16 lines of 4-byte words
		{64, 1, 64, 96, 96, 1024},  // 96 channels of bytes
		{8, 8, 8, 96, 768, 128},    // of 8-byte words: in 16 sets
		{16, 4, 16, 32, 128, 32},   // 32 rows: two lines
		{16, 4, 16, 128, 512, 32},  // rows in 8 sets
		{8, 8, 8, 1500, 12000, 16}, // long rows
		{16, 1, 16, 64, 64, 64},    // 16x16 tiles of bytes write a quarter line: not widened
		{8, 4, 8, 64, 256, 256},    // 8x8 tiles of 4-byte words write half lines: the matrix streams
		{8, 3, 8, 64, 192, 344},    // 8x8 tiles of 3-byte elements (a third of a line): 16 lines
		{4, 6, 4, 96, 576, 172},    // of 6-byte ones: in 64 sets
		{4, 6, 4, 128, 768, 84},    // in 16 sets: halved
		{8, 3, 8, 16, 48, 24},      // 16 rows: a line
	} {
		m := engine.Matrix{Rows: c.matRows, Cols: 1 << 20, DstRow: c.dstRow, Streaming: true}
		if got := bandCols(c.cols, c.w, c.rows, &m); got != c.want {
			t.Errorf("bandCols(%d, %d, %d) of %d rows %d bytes apart = %d, want %d", c.cols, c.w, c.rows, c.matRows, c.dstRow, got, c.want)
		}
	}
	for _, c := range []struct{ cols, w, rows, dstRow, want int }{
		{16, 1, 16, 784, 64},     // rows in 64 sets
		{16, 1, 16, 1024, 32},    // in 4 sets: 16 lines each in bands of 64
		{16, 1, 16, 4096, 32},    // in 1 set: not below two tiles
		{8, 2, 16, 2048, 16},     // in 2 sets
		{8, 4, 8, 4096, 16},      // two tiles already
		{8, 4, 8, 256, 32},       // 8-row tiles of half lines: two lines
		{4, 8, 4, 1024, 16},      // in 4 sets
		{8, 4, 8, 2048, 16},      // in 2 sets: halved
		{8, 2, 16, 256, 32},      // 16-row ones: a line
		{64, 1, 64, 1024, 64},    // 64-row tiles write whole lines
		{16, 4, 16, 4096, 32},    // so do 16-row tiles of 4-byte words: bands of two lines
		{8, 8, 8, 8192, 16},      // and 8-row tiles of 8-byte words
		{16, 2, 32, 2048, 32},    // 32-row tiles: a line
		{16, 1, 16, 3 << 10, 32}, // 3 KiB apart: 4 sets
		{16, 1, 64, 2048, 32},    // 64-row tiles of bytes, whole lines, in 2 sets: halved
		{16, 1, 64, 2000, 64},    // in 64 sets: a line
	} {
		if got := bandCols(c.cols, c.w, c.rows, &engine.Matrix{Rows: readStreams, DstRow: c.dstRow}); got != c.want {
			t.Errorf("bandCols(%d, %d, %d, %d) = %d, want %d", c.cols, c.w, c.rows, c.dstRow, got, c.want)
		}
	}
}

// TestStripsDown checks the blocks of rows tiles go down in: whole bands
// for few rows in many cache sets and for matrices of one band, blocks of
// blockRows for tall matrices and for rows in few sets, and never more
// than maxBlocks blocks, which are calls.
func TestStripsDown(t *testing.T) {
	k, band := tile{b: 16}, 64
	for _, c := range []struct {
		rows, srcRow, want int
	}{
		{4096, 4000, 16}, // a tall matrix: 256 rows
		{12544, 256, 16}, // of short rows too
		{12544, 64, 784}, // of one band: whole
		{1536, 4800, 96}, // few rows, in many sets: whole bands
		{1536, 300, 96},
		{4096, 2048, 16},         // rows in 2 sets: 256 rows
		{1024, 3 << 10, 16},      // in 4 sets
		{1024, 1000, 64},         // in every set
		{256, 4096, 16},          // no more rows than a block
		{4096, 16384, 16},        // 256 rows
		{1 << 20, 4096, 1 << 10}, // 64 blocks of 16384 rows
		{1 << 30, 4096, 1 << 20}, // 64 blocks
	} {
		got := stripsDown(&engine.Matrix{Rows: c.rows, Cols: c.srcRow, SrcRow: c.srcRow}, k.b, band)
		if got != c.want {
			t.Errorf("%d rows %d bytes apart: %d strips a block, want %d", c.rows, c.srcRow, got, c.want)
		}
		if blocks := (c.rows/k.b + got - 1) / got; blocks > maxBlocks {
			t.Errorf("%d rows %d bytes apart: %d blocks", c.rows, c.srcRow, blocks)
		}
	}
}

// TestStreamBands checks that the tiles of matrices that stream go in
// bands of at most streamRows columns where the tensors fit the shared
// cache and dst rows lie a multiple of streamStride bytes apart, whether
// the band comes from the stream tile (streamTile) or from bandCols; and
// in their own bands beyond the cache, with other dst rows, or where the
// matrix does not stream.
func TestStreamBands(t *testing.T) {
	var plain, stream TileFunc
	for _, c := range []struct {
		w, b, chunk, band, dstRow int
		outgrown, streaming       bool
		want                      int
	}{
		{2, 32, 32, 128, 4096, false, true, 32}, // AVX2's pairs of 2-byte words, 4 lines
		{1, 64, 16, 256, 256, false, true, 32},  // its fours of bytes
		{16, 4, 32, 16, 1024, false, true, 16},  // its pairs of 16-byte words: narrower already
		{2, 32, 32, 512, 4096, true, true, 512}, // beyond the shared cache
		{2, 32, 32, 128, 320, false, true, 128}, // dst rows not a multiple of 256 bytes apart
		{4, 16, 64, 0, 256, false, true, 32},    // a twin in bandCols' wide bands (256 columns)
		{4, 16, 64, 0, 256, true, true, 256},    // beyond the cache
		{4, 16, 64, 0, 320, false, true, 256},   // dst rows of 5 lines
		{4, 16, 64, 0, 256, false, false, 256},  // a matrix that does not stream
		{3, 4, 36, 48, 768, false, true, 24},    // whole tiles of 12 columns
		{1, 64, 64, 128, 256, false, true, 64},  // tiles wider than streamRows: one
	} {
		m := engine.Matrix{Rows: 64, Cols: 1 << 16, DstRow: c.dstRow, Reps: 1, Groups: 1, Streaming: c.streaming, Outgrown: c.outgrown}
		m.SrcRow = m.Cols * c.w
		k := tile{f: &plain, nt: &stream, b: c.b, chunk: c.chunk, band: c.band}
		f := k.f
		if c.streaming {
			f = k.nt
		}
		call, ok := tileMatrix(engine.SpaceSpan(m.Cols*m.DstRow), engine.DepthSpan(m.Rows*m.SrcRow), &m, c.w, f, &k).(*matrixCall)
		if !ok || len(call.calls) == 0 {
			t.Fatalf("%+v: no tile calls", c)
		}
		if got := call.calls[0].DstBand / m.DstRow; got != c.want {
			t.Errorf("%d-byte words, band %d, dst rows %d bytes apart, outgrown %v, streaming %v: bands of %d columns, want %d", c.w, c.band, c.dstRow, c.outgrown, c.streaming, got, c.want)
		}
	}
}

// TestLastRows checks that the last rows of a matrix, fewer than a
// tile's, go in the shorter tile k.rest where its tiles divide them, they
// are at most half a tile, its tiles divide the band and the kernel is
// the plain one; else, in a matrix of at most two strips that does not
// stream, in strips spread evenly from the first row to the last, where
// they divide the rows; else in a tile shifted back to end at the last
// row. Each case lists the strips of the first and the last call: kernel,
// first row, strips and the rows from one to the next.
func TestLastRows(t *testing.T) {
	var tall, short, stream TileFunc
	rest := tile{f: &short, b: 16, chunk: 64}
	names := map[*TileFunc]string{&tall: "tall", &short: "short", &stream: "stream"}
	for _, c := range []struct {
		rows, band  int
		streaming   bool
		first, last string
	}{
		{80, 0, false, "tall 0 1x64", "short 64 1x16"},    // 16 rows left: one strip of the short tile
		{96, 0, false, "tall 0 1x64", "short 64 2x16"},    // 32: two
		{160, 0, false, "tall 0 2x64", "short 128 2x16"},  // below two tall strips
		{112, 0, false, "tall 0 2x48", "tall 0 2x48"},     // 48 rows, more than half a tile: spread, 48 apart
		{88, 0, false, "tall 0 2x24", "tall 0 2x24"},      // 24 rows, not whole short tiles
		{80, 48, false, "tall 0 2x16", "tall 0 2x16"},     // bands of 48 columns, not whole short tiles
		{240, 0, false, "tall 0 3x64", "tall 176 1x64"},   // three strips: shifted back
		{112, 0, true, "stream 0 1x64", "stream 48 1x64"}, // streaming: shifted back
		{165, 0, false, "tall 0 2x64", "tall 101 1x64"},   // 101 rows to spread over two steps: shifted back
	} {
		m := engine.Matrix{Rows: c.rows, Cols: 1000, DstRow: c.rows, SrcRow: 1000, Reps: 1, Groups: 1, Streaming: c.streaming}
		k := tile{f: &tall, nt: &stream, b: 64, chunk: 16, band: c.band, rest: &rest}
		f := k.f
		if c.streaming {
			f = k.nt
		}
		call := tileMatrix(engine.SpaceSpan(m.Cols*m.DstRow), engine.DepthSpan(m.Rows*m.SrcRow), &m, 1, f, &k).(*matrixCall)
		strips := func(k *TileCall) string {
			return fmt.Sprintf("%s %d %dx%d", names[k.F], k.Src.Off/m.SrcRow, k.Strips, k.SrcStrip/m.SrcRow)
		}
		first, last := strips(call.calls[0]), strips(call.calls[len(call.calls)-1])
		if first != c.first || last != c.last {
			t.Errorf("%d rows, band %d, streaming %v: strips %q then %q, want %q then %q", c.rows, c.band, c.streaming, first, last, c.first, c.last)
		}
		// Every row is moved: the strips of each call, from their first
		// rows, cover the matrix.
		covered := make([]bool, m.Rows)
		for _, k := range call.calls {
			b := 64
			if k.F == &short {
				b = 16
			}
			first, step := k.Src.Off/m.SrcRow, k.SrcStrip/m.SrcRow
			for r := first; r < first+(k.Strips-1)*step+b; r++ {
				covered[r] = true
			}
		}
		for r, ok := range covered {
			if !ok {
				t.Errorf("%d rows, band %d, streaming %v: row %d not moved", c.rows, c.band, c.streaming, r)
				break
			}
		}
	}
}
