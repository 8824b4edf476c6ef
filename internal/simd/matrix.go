package simd

import "github.com/blockshuffle/blockshuffle/internal/engine"

// Matrix implements engine.Kernels: the first tile kernel of w-byte words,
// of this table or its base, whose tile fits the matrix moves the tiles
// that fit it, and tiles shifted back to end at its last row or column,
// overlapping the ones before, move the rest, writing again the same
// values there; the last rows go in a shorter tile that divides them, or
// with the others in strips spread evenly (tileMatrix).
// A matrix smaller than every tile gets no call.
//
// The tiles go in bands of columns one cache line of src wide (narrower
// where dst rows fall in few cache sets: bandCols), each band from its top
// row down (a block of rows at a time in tall matrices: stripsDown), so
// that a band's tiles read whole lines of src and write each row of dst
// in order. Across the whole matrix instead, a tile's stores fall on
// lines of dst the tile before it left half written,
// and with dst rows a power of two apart those lines fill few cache sets
// and leave before they are finished: on a Zen 5, a 256x784 matrix of
// 4-byte words (NCHW to NHWC, C = 256) moved at 0.14 of copy() that way.
// Matrices that stream, whose tiles have no streaming twin, take the
// tier's stream tiles where those write whole lines (streamTile), out of
// padded blocks for bytes whose src rows crowd the sets.
// Tall matrices whose tiles would write dst badly in place (short pieces
// of rows a multiple of 2 KiB apart; or no streaming stores where the
// matrix streams) go through a buffer (buffered); so do matrices of
// bytes and 2-byte words whose tiles read src rows crowded in few cache
// sets, a padded copy of the block's rows (padded).
func (t *Kernels) Matrix(dst, src engine.Span, m engine.Matrix, w int) engine.Call {
	if w < 1 || m.Reps < 1 || m.DstRep < 0 || m.SrcRep < 0 || m.Groups < 1 || m.DstGroup < 0 || m.SrcGroup < 0 {
		return nil
	}
	if c := t.thinMatrix(dst, src, &m, w); c != nil || m.Split > 0 {
		return c
	}
	if w > MaxTileWidth || w == 16 && min(m.Rows, m.Cols) <= MaxBlock {
		// A matrix of 16-byte words of at most MaxBlock rows or columns
		// that no lane kernel of its b takes goes as runs of its elements
		// (internal/transpose), each row of dst written whole, where
		// tiles of 2 or 4 rows mostly overlap: on an Intel Xeon, one
		// goroutine, of a non-streaming copy, in tiles and as runs,
		// 3x50000 at 0.33 and 0.61, [6,2000,6] by [2,1,0] (6x6 matrices)
		// at 0.15 and 0.77.
		return nil
	}
	k, ok := t.tileFor(&m, w)
	if !ok {
		return nil
	}
	if rows := m.Rows; rows%k.b > 0 { // the tile of the last rows alone
		m.Rows %= k.b
		if rest, ok := t.tileFor(&m, w); ok {
			k.rest = &rest
		}
		m.Rows = rows
	}
	c := tileMatrix(dst, src, &m, w, k.f, &k)
	if c == nil {
		return nil
	}
	var st *tile // the streaming tile of padded blocks: k, where it has a twin
	if k.nt != nil {
		st = &k
	}
	if m.Streaming && k.nt == nil {
		if s := t.streamTile(&m, w); s.nt != nil && lineStores(&m, w, &s) {
			// Bytes whose src rows crowd the L1 sets go through padded
			// blocks, streaming columns out of them; 2-byte words lost so.
			// On a Zen 5, avx2 tier, one goroutine, of a non-streaming
			// copy, in place and padded: 4096x4096 bytes 0.26-0.27 and
			// 0.44-0.47, 1x256x256x256 0.26-0.27 and 0.38-0.41; 2-byte
			// words 1x256x256x256 0.47-0.49 and 0.25, 256x32768 0.36-0.38
			// and 0.22-0.24.
			if w == 1 {
				if p := t.padded(dst, src, &m, w, &k, &s); p != nil {
					return p
				}
			}
			return &engine.Aligned{A: dst, Mask: lineBytes - 1, Then: tileMatrix(dst, src, &m, w, s.nt, &s), Else: c}
		}
	}
	if b := t.buffered(dst, src, &m, w, &k); b != nil {
		return b
	}
	if p := t.padded(dst, src, &m, w, &k, st); p != nil {
		return p
	}
	if k.nt == nil || !m.Streaming || !lineStores(&m, w, &k) {
		return c
	}
	// Each call checks dst's address; every other store lies a multiple
	// of 64 bytes from it.
	return &engine.Aligned{A: dst, Mask: lineBytes - 1, Then: tileMatrix(dst, src, &m, w, k.nt, &k), Else: c}
}

// streamTile is the tile a matrix m of w-byte words that streams, whose
// tiles have no streaming twin, takes ahead of the buffer where it writes
// whole lines (nt nil: none): the first of the table's stream tiles (its
// columns of tiles, twins of no plain kernel: AVX2's pairs of 2-, 8- and
// 16-byte words, fours of bytes) that fits m, tall matrices too; or the
// twin of its first paged tile (AVX2's quads, that take dst rows whole
// pages apart) that fits.
//
// On a Zen 5, avx2 tier, one goroutine, of a non-streaming copy, NCHW to
// NHWC of bytes moved 1x64x500x500 at 0.23-0.25 in place, 0.87-0.95 in
// columns, 1x64x400x400 (in the L3) 0.19-0.38 and 0.60-0.67. The pairs
// beat the buffer: on a Zen 5, avx2 tier, one goroutine, of a
// non-streaming copy, through the buffer and in pairs, 4096x2048 of
// 8-byte words 0.53-0.59 and 0.83-0.93, 3000x5000 0.54-0.57 and
// 0.95-1.06, of 2-byte words 7936x5000 0.40-0.59 and 0.59-0.66, 4096x4096
// 0.46-0.53 and 0.44-0.53. Their bands are four lines of src wide in the
// shared cache, and at most streamRows columns (tileMatrix); beyond it,
// wideLines for bytes and 2-byte words, eight for wider words. On that
// Zen 5, NCHW to NHWC of 8-byte words in bands of 16 lines and four:
// 1x64x128x128 (in the L3) 0.25-0.29 and 0.57-0.60; in bands of two
// lines and four, 1x32x32768 0.50-0.68 and 0.57-0.72, 1024x1024 tied; of
// 16-byte words 1x64x64x128 0.43 and 0.64-0.68. Beyond the cache, in
// bands of 16 lines and 8: 8-byte words 2048x2048 0.59-0.62 and
// 0.71-0.78, 1x64x256x256 0.61-0.64 and 0.66-0.72; 16-byte words
// 1x64x128x128 0.69-0.73 and 0.89-0.95; 2-byte words 1x128x64800
// 0.71-0.76 and 0.68-0.71 (bytes tied). Bands of 16 lines lost in the L3
// (1024x1024 of 8-byte words 0.61-0.65 against 0.28-0.31).
//
// The quads go in bands of two lines in the shared cache, eight beyond
// it. In the cache they beat AVX2's plain tiles of 4-byte words in place
// (1x256x112x112 0.37-0.40 and 0.86-0.87, 1x96x200x200 0.56-0.70 and
// 1.07-1.09, 1x512x64x64 0.46-0.51 and 0.57-0.58), where bands of 4
// lines lost (1x256x112x112 0.61-0.72, 1x512x64x64 0.39-0.43). Beyond
// it, since their prefetches (bands of two lines and eight): NCHW to NHWC
// of 1x256x256x256 0.39-0.45, 0.89-0.96 and 0.84-0.95, 1x128x400x400
// 0.45-0.57, 0.86-0.91 and 0.90-1.02, 1x64x270x480 0.71-0.79,
// 0.66-1.16 and 1.05-1.21.
func (t *Kernels) streamTile(m *engine.Matrix, w int) tile {
	lines, quadLines := 4, 2
	switch {
	case m.Outgrown && w <= 2:
		lines = wideLines
	case m.Outgrown:
		lines, quadLines = 8, 8
	}
	// One call of streamTwin: inlined twice, it cost the stripped hello
	// world a page.
	for _, c := range [...]struct {
		ks    []TileKernel
		lines int
	}{{t.StreamTiles, lines}, {t.PagedTiles, quadLines}} {
		if s := streamTwin(c.ks, m, w, c.lines); s.nt != nil {
			return s
		}
	}
	return tile{}
}

// streamTwin is the first streaming kernel of w-byte words among ks whose
// tile fits matrix m, as a tile of no plain kernel in bands of the given
// lines of src; or none (nt nil).
func streamTwin(ks []TileKernel, m *engine.Matrix, w, lines int) tile {
	for _, k := range ks {
		if cols := int(k.Chunk) / w; k.NT && int(k.W) == w && m.Rows >= int(k.B) && m.Cols >= cols {
			return tile{nt: k.F, b: int(k.B), chunk: int(k.Chunk), band: max(1, lines*lineBytes/w/cols) * cols}
		}
	}
	return tile{}
}

// MatrixUnits implements engine.Kernels: for a zip, columns of whole
// lines of dst; for an unzip, rows of whole lines of dst; for tiles, the
// bands of columns they go in and rows of whole tiles and whole lines.
func (t *Kernels) MatrixUnits(m engine.Matrix, w int) (cols, rows int) {
	line := func(bytes int) int { return lineBytes / gcd(bytes, lineBytes) } // the least count of bytes-long items that fills whole lines
	switch {
	case m.Rows <= MaxBlock && m.DstRow == m.Rows*w && m.DstSplit == 0:
		return line(m.Rows * w), m.Rows
	case m.Cols <= MaxBlock && m.SrcRow == m.Cols*w && m.SrcSplit == 0:
		return m.Cols, line(w)
	case m.Split > 0:
		return m.Cols, m.Rows
	}
	k, ok := t.tileFor(&m, w)
	if w > MaxTileWidth || !ok {
		return m.Cols, m.Rows
	}
	rows = k.b * line(k.b*w)
	return bandCols(k.chunk/w, w, k.b, &m), rows
}

// A tile is a tile kernel, its streaming twin (nil: none), its tile, b
// rows of chunk bytes, and the columns of the bands its tiles go in
// where they are not bandCols' (0).
type tile struct {
	f, nt          *TileFunc
	b, chunk, band int
	rest           *tile // the shorter tile of a matrix's last rows (tileMatrix)
}

// tileFor returns the first tile kernel of w-byte words, the table's or
// its base's, whose tile fits matrix m (firstTile), with its streaming
// twin, which follows it in the list: the table's PagedTiles first where
// dst's rows lie whole pages apart; then the base's first where this CPU
// moves the words faster in them (baseTiles), unless the matrix streams
// (the base has no streaming tiles) or dst's rows lie whole pages apart,
// where the table's wider tiles kept their lead.
func (t *Kernels) tileFor(m *engine.Matrix, w int) (tile, bool) {
	if engine.Paged(m.DstRow) {
		if c, ok := firstTile(t.PagedTiles, m, w); ok {
			return c, true
		}
	}
	if t.baseTiles[w] && !m.Streaming && !engine.Paged(m.DstRow) {
		if k, ok := firstTile(t.Tiles[t.baseFrom:], m, w); ok {
			return k, true
		}
	}
	return firstTile(t.Tiles, m, w)
}

// OddRows is the fewest rows of a matrix the tiles of elements whose size
// is not a power of two take (firstTile), two of their tiles of 4 rows;
// nor do they take matrices whose last column of tiles, shifted back,
// would move a third of it again (224x3 matrices of 10-byte elements ran
// at 0.53-0.54 of a non-streaming copy in 2x2 tiles, 0.64-0.75 in two
// passes of 2-byte words; 16x6 of 6-byte elements 0.28 and 0.31). A
// matrix one tile of 4 rows high reads 20 to 28 bytes of each of its
// rows a tile, where a gather reads their lines whole: on an Intel Xeon
// (family 6 model 167), one goroutine, of a non-streaming copy, NCHW
// DepthToSpace of 1x48x128x128, b = 4, of 5-byte elements (4x128
// matrices) ran at 0.81-0.90 gathered, 0.66-0.70 in tiles; with AVX-512
// VBMI's gathers, 6- and 7-byte elements too (0.94-1.02 against
// 0.80-0.88).
const OddRows = 8

// firstTile is the first of the tile kernels ks of w-byte words whose tile
// fits matrix m (OddRows has what elements of odd sizes need), with its
// streaming twin, which follows it in the list.
func firstTile(ks []TileKernel, m *engine.Matrix, w int) (tile, bool) {
	for i, k := range ks {
		cols := int(k.Chunk) / w
		if int(k.W) != w || k.NT || m.Rows < int(k.B) || m.Cols < cols || w&(w-1) != 0 && (m.Rows < OddRows || m.Cols%cols != 0 && m.Cols < 2*cols) {
			continue
		}
		c := tile{f: k.F, b: int(k.B), chunk: int(k.Chunk)}
		if i+1 < len(ks) && ks[i+1].NT && ks[i+1].B == k.B && ks[i+1].Chunk == k.Chunk {
			c.nt = ks[i+1].F
		}
		return c, true
	}
	return tile{}, false
}

// lineStores reports whether every column store of k's tiles falls on a
// whole line of dst where dst's start is line-aligned: the columns,
// matrices and groups lie whole lines apart, and so do a column's tiles,
// the last one, shifted up to end at the last row, included.
func lineStores(m *engine.Matrix, w int, k *tile) bool {
	for _, n := range []int{k.b * w, m.Rows * w, m.DstRow, m.DstRep, m.DstGroup} {
		if n%lineBytes != 0 {
			return false
		}
	}
	return true
}

// tileMatrix is the call of f, a tile kernel of k's tile, for the matrices
// m, or nil.
//
// The rows below the last whole strip of tiles go in strips of k.rest
// (AVX-512's 16 rows of bytes under its 64), the tile the matrix of those
// rows alone takes, where its tiles divide them, the band and the
// columns, and they are at most half a tile. Else, in a matrix of at
// most two strips that does not stream, one more strip goes in the same
// bands, the strips spread evenly from the first row to the last where
// the rows between divide so; else a strip of k shifted back to end at
// the last row moves them, and again the rows above, a strip's whole
// work for a few rows, in a sweep of its own. On a Zen 5, avx512vbmi,
// one goroutine, of a non-streaming copy, NCHW to NHWC, shifted back and
// in the short tile: bytes, 16 rows left, 1x144x27777 0.55 and 0.72,
// 1x80x118750 0.44 and 0.55, 1x272x34926 0.48 and 0.54; 32 rows,
// 1x96x41666 0.57 and 0.60, 1x160x25000 tied; 48 rows lost (1x112x35714
// 0.66 and 0.59, 1x176x22727 0.72 and 0.67). Shifted back and spread:
// bytes 1x24x166666 0.60 and 0.69, 1x40x100000 0.61 and 0.73, 1x72x55555
// 0.53 and 0.57; 2-byte words 1x24x83333 0.66 and 0.91, 1x40x50000 0.59
// and 0.64, 1x80x25000 tied; on avx2, bytes tied. Past streamMin the
// spread tied or lost (1x40x237500 0.39 and 0.35), as it did over four
// strips and more (2-byte words, 1x144x13888 0.76 and 0.70, 1x200x10000
// 0.72 and 0.67). The streaming twin keeps the shifted strip: no table's
// short tile streams whole lines.
func tileMatrix(dst, src engine.Span, m *engine.Matrix, w int, f *TileFunc, k *tile) engine.Call {
	cols := k.chunk / w
	c := &matrixCall{reps: m.Reps, dstRep: m.DstRep, srcRep: m.SrcRep, groups: m.Groups, dstGroup: m.DstGroup, srcGroup: m.SrcGroup}
	// Each call runs on the tensors from its matrix's start on.
	dstReps, ok1 := reach(0, m.Reps, m.DstRep, m.Groups, m.DstGroup)
	srcReps, ok2 := reach(0, m.Reps, m.SrcRep, m.Groups, m.SrcGroup)
	if !ok1 || !ok2 || dstReps > dst.Len || srcReps > src.Len {
		return nil
	}
	dst.Len -= dstReps
	src.Len -= srcReps
	band := bandCols(cols, w, k.b, m)
	if k.band > 0 {
		band = k.band
	}
	if band > streamRows && m.Streaming && !m.Outgrown && m.DstRow%streamStride == 0 {
		band = max(1, streamRows/cols) * cols // whole tiles
	}
	t := k // the tile the calls take, and its kernel
	step := k.b
	// tiles adds the call of f, a kernel of tile t, over bands bands of
	// down strips of across tiles from word (row, col).
	tiles := func(row, col, bands, down, across int) {
		c.calls = append(c.calls, f.Call(TileArgs{
			Dst: dst.From(col*m.DstRow + row*w), Src: src.From(row*m.SrcRow + col*w),
			Tiles: across, Strips: down, Bands: bands, DstRow: m.DstRow, SrcRow: m.SrcRow,
			DstTile: cols * m.DstRow, SrcTile: t.chunk, DstStrip: step * w, SrcStrip: step * m.SrcRow,
			DstBand: band * m.DstRow, SrcBand: band * w,
		}, t.b, t.chunk, w))
	}
	// columns adds the calls of the bands of tiles down strips of tiles
	// from row.
	columns := func(row, down int) {
		bands := m.Cols / band
		if bands > 0 {
			tiles(row, 0, bands, down, band/cols)
		}
		if n := (m.Cols - bands*band) / cols; n > 0 {
			tiles(row, bands*band, 1, down, n)
		}
		if m.Cols%cols != 0 {
			tiles(row, m.Cols-cols, 1, down, 1)
		}
	}
	strips, height := m.Rows/k.b, stripsDown(m, k.b, band)
	r, rest := m.Rows%k.b, k.rest
	if rest == nil || f != k.f || 2*r > k.b || r%rest.b != 0 || band%(rest.chunk/w) != 0 || m.Cols < rest.chunk/w {
		rest = nil
	}
	if r != 0 && rest == nil && strips <= 2 && !m.Streaming && (m.Rows-k.b)%strips == 0 { // spread evenly
		step = (m.Rows - k.b) / strips
		strips, height, r = strips+1, strips+1, 0
	}
	for s := 0; s < strips; s += height {
		columns(s*k.b, min(height, strips-s))
	}
	if r != 0 {
		if rest != nil {
			t, f, cols, step = rest, rest.f, rest.chunk/w, rest.b
			columns(m.Rows-r, r/rest.b)
		} else {
			columns(m.Rows-k.b, 1)
		}
	}
	if oneBand(c.calls) {
		// Each call one band: the kernels' band loops take the matrices,
		// a call of a few tiles costing as much as their moves (16x16
		// bytes; 16x6 matrices of 6-byte elements, the last tile of each
		// row shifted back, moved at 0.55x in calls a matrix).
		for i, call := range c.calls {
			a := call.TileArgs
			a.Bands, a.DstBand, a.SrcBand = m.Reps, m.DstRep, m.SrcRep
			a.Dst.Len += (m.Reps - 1) * m.DstRep
			a.Src.Len += (m.Reps - 1) * m.SrcRep
			t := k
			if rest != nil && call.F == rest.f { // the last rows' shorter tile
				t = rest
			}
			c.calls[i] = call.F.Call(a, t.b, t.chunk, w)
		}
		c.reps = 1
	}
	return c
}

// oneBand reports whether the calls of a matrix move one band of tiles
// each, in one block of rows (stripsDown): the band, its narrower
// neighbour and the last column of tiles, shifted back, of a matrix a
// band wide or less, whose matrices the kernels' band loops may take
// each in turn.
func oneBand(calls []*TileCall) bool {
	for _, c := range calls {
		if c.Bands != 1 {
			return false
		}
	}
	return len(calls) <= 3
}

// stripsDown is how many strips of tiles each band, band columns wide,
// goes down before the next band takes its turn: all of them, but in
// blocks of blockRows rows in matrices of more than tallRows rows, and of
// more than blockRows where the rows fall in few cache sets, unless one
// band takes every column (no band comes back to the rows; NHWC to NCHW
// of 1x112x112x16 bytes, a band down 12544 rows of 16 bytes, ran at 0.88x
// in blocks).
//
// A band down rows a page or more apart touches a page per row, more than
// a TLB holds where they are more than tallRows, and the next band comes
// back to each page after it left: on a Zen 4 (3,072 L2 TLB entries),
// 4096x4096 matrices of 4-byte words moved at 0.38-0.40 of a
// non-streaming copy in whole bands, 0.79-0.86 in blocks of 256 rows
// (2-byte words 0.23-0.28 and 0.78-0.81, 2048x2048 of 4-byte ones
// 0.34-0.55 and 0.79-0.88); 2000x2000 and 3000x1200 were as fast either
// way, 1100 to 1500 rows a little slower blocked. Tall matrices of short
// rows (NHWC to NCHW) gained as much: on an Intel Xeon (family 6 model
// 167), one goroutine, a band at a time against blocks of 256 rows,
// 12544x64 of 4-byte words (1x112x112x64) 0.47 and 0.88 in AVX2's tiles,
// 3136x64 of 8-byte words 0.57-0.61 and 0.85-0.86, 6000x300 of 4-byte
// words 0.77 and 0.90, 4096x200 0.61 and 0.86 in AVX-512's, 12544x256 of
// bytes 0.41 and 0.70; rows 4000 bytes long tied (4096x1000: 0.44 and
// 0.40 in AVX2's tiles, 0.57 and 0.64 in AVX-512's), and from 1024 to
// 1536 rows blocks lost up to 15% as often as they won.
//
// A band reads a line of each row and leaves the next one, which came
// with it, to the next band; rows a multiple of 1 KiB apart put those
// lines in at most 4 of the L1's sets and a 32nd of the L2's, where
// they are gone before the next band comes back. On an Intel Xeon (2 MiB
// of L2), one goroutine, in blocks of 256 rows, of a non-streaming copy:
// 1024x1024 matrices of 4-byte words 0.50-0.55 whole, 0.66-0.73 blocked;
// of 2-byte words 0.46-0.51 and 0.64, of bytes 0.49-0.51 and 0.55;
// 1024x768 of 4-byte words 0.43-0.45 and 0.65; 1024x4096 of bytes
// 0.32-0.36 and 0.51; rows 4000 or 4800 bytes apart gained nothing.
//
// A block is a call of its own, so that the blocks are at most maxBlocks,
// taller than blockRows in matrices of more than maxBlocks*blockRows
// rows: a plan's calls must not grow with its dims (FuzzHugeDims plans
// matrices of 2^40 rows).
func stripsDown(m *engine.Matrix, b, band int) int {
	strips := m.Rows / b
	if m.Cols <= band || m.Rows <= tallRows && (sets(m.SrcRow) > 4 || m.Rows <= blockRows) {
		return max(1, strips)
	}
	return max(1, blockRows/b, (strips+maxBlocks-1)/maxBlocks)
}

// tallRows is the most rows a band goes down at once, in rows a page or
// more long a page each: the smallest L2 TLB of the cores we target (1,536
// entries, Skylake-SP); and blockRows the rows of the blocks a taller
// matrix goes in.
const (
	tallRows  = 1536
	blockRows = 256
	maxBlocks = 64
)

// lineBytes is the span of a cache line.
const lineBytes = 64

// streamRows is the most dst rows a strip of streaming tiles writes at
// once (its band's columns) where the tensors fit the shared cache and
// dst rows lie a multiple of streamStride bytes apart (tileMatrix). On a
// Zen 5, non-temporal stores of a line into each of 32 rows 4 KiB apart,
// then the next line of each, wrote 66-77 GB/s, of 64 rows 26-30; one
// goroutine, of a non-streaming copy, in bands of 32 columns and in the
// tiles' own (4 to 16 lines of src): AVX2's pairs of 2-byte words
// 2048x3000 0.77-0.80 and 0.34-0.37, NCHW to NHWC of 1x128x200x200
// 0.75-0.87 and 0.50-0.54, 1x512x100x100 0.57-0.66 and 0.27-0.30; its
// fours of bytes 4096x3000 0.51-0.54 and 0.27-0.31; AVX-512's tiles of
// bytes, 1x256x200x200 0.74-0.81 and 0.46-0.50, 1x768x120x120 0.76-0.91
// and 0.45-0.54, of 2-byte words 1x128x64800 1.01-1.08 and 0.70-0.87, of
// 4-byte words 1x64x200x200 0.68-0.70 and 0.49-0.51. Dst rows of other
// lengths lost so (2-byte words 1x160x180x180 0.64-0.72 against
// 0.78-1.02, 1x320x130x130 0.68-0.74 against 0.81-0.90), and so did
// tensors beyond the shared cache, where reading src costs more (NCHW to
// NHWC of 1x64x400x400 2-byte words: 0.39-0.60 against 1.02-1.10 in
// bands of 512 columns).
const (
	streamRows   = 32
	streamStride = 256
)

// bandCols is the width in columns, whole tiles (elements of 3 bytes
// make a line 21.3 columns), of the bands of tiles cols words of w
// bytes wide and rows high, in matrix m: a line of src, two lines where
// tiles of at most pairRows rows write whole lines of dst or of at most
// halfRows half lines, wideLines in large matrices of more than
// readStreams short rows (below); all but those halved while the band's
// dst rows (a line each, half written until the band has gone down a
// line's worth of rows where a tile writes less than a line of each) fill
// more than setLines lines of the L1 sets they fall in, down to two
// tiles. Rows a multiple of 1 KiB apart fall in at
// most 4 of an L1's 64 sets of 64-byte lines (on a Zen 5, AVX2's tiles
// moved a 1024x1024 matrix of bytes at 0.13 of copy() in bands of 64
// columns, 0.48 in bands of 32). Tiles that write whole lines suffer the
// few sets too: on a Zen 5, AVX-512's 64-row tiles of bytes moved
// 2048x1536 at 0.26-0.28 of a non-streaming copy in bands of a line,
// 0.45-0.52 in bands of half a line, 2048x1024 0.29-0.30 and 0.43-0.44,
// 4096x512 0.43-0.45 and 0.60-0.64 (2048x2048 and 1024x1024 tied). Bands
// of one tile lose, each line of src read a piece at a time, a band's
// height apart.
//
// Bands two lines wide read whole the pairs of lines an L2 fetches
// together. On an Intel Xeon, one goroutine, of a non-streaming copy,
// AVX-512's tiles of 8-byte words moved 1024x1024 at 0.56-0.57 in bands
// of a line, 0.64-0.66 in bands of two (2048x2048 0.56 and 0.64-0.67,
// streaming 4096x4096 0.61-0.68 and 0.77-0.81), of 4-byte words 1024x1024
// at 0.56-0.63 and 0.58-0.68 (streaming 4096x4096 0.62-0.68 and
// 0.83-0.86); tiles of 32 and 64 rows of 2-byte words and bytes lost up
// to 15% (2048x2048 of bytes 0.59-0.63 and 0.50-0.54). So did AVX2's
// tiles of up to halfRows rows that write half lines (4- and 8-byte
// words), before the halving: NCHW to NHWC of 1x64x270x480 float32 at
// 0.66-0.72 in bands of a line, 0.80-0.84 in bands of two (float64 0.61
// and 0.69), 256x3136 0.80 and 0.96; 16-row tiles of 2-byte words went
// either way (256x3136 0.80 and 0.72, 1504x2496 0.76 and 0.83).
//
// A band of a line or two reads as much of each row of src before it
// moves on to the next row, and a matrix of more than readStreams rows
// reads more streams at once than the prefetchers follow; in bands of
// wideLines each strip reads long runs of its few rows, and its stores,
// a line into each of the band's dst rows, spread over the L1 where the
// dst rows are short (NCHW to NHWC: a pixel's channels, at most
// shortRow bytes) and fall in at least spreadSets of its sets. Bands
// widen so for tiles that write whole lines where the matrix outgrows a
// core's private cache, from which nothing needs prefetching, and for
// tiles that write half lines (AVX2's) where it streams. On a Zen 5, one
// goroutine, of a non-streaming copy, AVX-512's tiles moved NCHW to NHWC
// of 1x64x270x480 float32 at 0.54-0.58 in bands of two lines, 0.96-0.97
// in bands of 16 lines, float16 0.69-1.02 and 1.18-1.29; 1x96x200x200
// float64 0.63-0.64 and 0.98-1.07, float32 0.72-0.81 and 1.10-1.12;
// 1x48x160x160 float32 0.71-0.73 and 0.99; 1x128x224x224 bytes
// 0.47-0.49 and 0.62-0.68, but float16 0.79-0.80 and 0.70-0.71. AVX2's
// tiles of half lines moved 1x64x270x480 float32 at 0.31-0.32 and
// 0.58-0.63, float16 0.29-0.31 and 0.51-0.53, 1x96x200x200 float64
// 0.35-0.37 and 0.71-0.75, but lost on tensors in the L3 that do not
// stream (1x64x112x112 float64: 0.74 and 0.44), as AVX-512's lost in the
// private cache (1x128x28x28 bytes: 0.77 and 0.65). Rows of 32
// (1x32x224x224 float64: 0.91-0.96 and 0.78-0.89), dst rows 512 bytes
// or more a power of two apart, in 8 sets or fewer (1x128x224x224
// float32, 256x12544 float32 and float64), and long ones (1500x2500
// float64: 0.60-0.61 and 0.54-0.56) lost.
//
// Tiles of whole elements of 3 to 15 bytes (AVX2's, which the AVX-512
// tiers take too) write less than half a line of each dst row, and widen
// alike beyond the private cache, narrowed as narrow bands are where the
// dst rows fall in few sets. On a Zen 5, one goroutine, of a
// non-streaming copy, NCHW to NHWC in bands of a line and so: avx512vbmi,
// 1x64x270x480 of 3-byte elements 0.24-0.26 and 0.34-0.36, 7-byte
// 0.37-0.42 and 0.48, 12-byte 0.37 and 0.42-0.46; 1x96x250x250 of 3-byte
// 0.23-0.25 and 0.34-0.35; 1x33x300x300 0.12-0.13 and 0.30-0.35; avx2,
// 1x64x270x480 of 3-byte 0.22-0.23 and 0.37-0.45. 6-byte elements in 128
// rows, in 16 sets, lost in the L3 in any band wider than a line
// (1x128x128x128 0.24-0.29 and 0.20-0.25).
func bandCols(cols, w, rows int, m *engine.Matrix) int {
	n, whole, half, dstSets := 1, rows*w >= lineBytes, 2*rows*w == lineBytes, sets(m.DstRow) // n: lines of src
	wide := manyShortRows(m.Rows, m.DstRow) && dstSets >= spreadSets
	outgrown := !engine.InPrivateCache(m.Rows * m.Cols * w)
	odd := wide && outgrown && w&(w-1) != 0
	switch {
	case odd, wide && (whole && outgrown || half && m.Streaming):
		n = wideLines
	case whole && rows <= pairRows, half && rows <= halfRows:
		n = 2
	}
	band := cols * max(1, (n*lineBytes/w+cols-1)/cols) // whole tiles
	for (n < wideLines || odd) && band > 2*cols && band/dstSets > setLines {
		band = max(2, band/cols/2) * cols
	}
	return band
}

// sets is how many of an L1 data cache's sets lines stride bytes apart
// fall in, at most.
func sets(stride int) int { return l1Span / gcd(stride, l1Span) }

// l1Span is the bytes of one way of an L1 data cache (64 sets of 64-byte
// lines, on the x86 cores we measure); setLines the lines of one set a
// band may keep half written, of its 12 ways on a Zen 4 or 5, leaving
// room for src; pairRows the most rows of the tiles that write whole
// lines whose bands are two lines wide, halfRows of those that write half
// lines.
const (
	l1Span   = 4096
	setLines = 8
	pairRows = 16
	halfRows = 8
)

// readStreams is the most rows of a matrix whose bands stay narrow;
// shortRow the longest dst rows, and spreadSets the fewest L1 sets they
// fall in, for bands to widen; wideLines the lines of src a wide band
// spans.
const (
	readStreams = 32
	shortRow    = 1024
	spreadSets  = 16
	wideLines   = 16
)

// manyShortRows reports whether a matrix of rows rows has more than
// readStreams of them and dst rows of at most shortRow bytes (NCHW to
// NHWC: a pixel's channels), whose bands widen (bandCols, streamTile).
func manyShortRows(rows, dstRow int) bool { return rows > readStreams && dstRow <= shortRow }

// gcd is the greatest common divisor of a > 0 and b > 0.
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// thinMatrix is the call of a lane kernel for matrices of at most
// MaxBlock rows or columns, one side of each holding it whole: a zip
// where the rows are few and dst holds each column of the matrix whole
// (NCHW to NHWC, C = 3), an unzip where the columns are few and src holds
// each row whole (NHWC to NCHW); the lanes are the rows of the other side.
// Only the kernels of b lanes take them: those of any b go a lane at a
// time, each lane here a whole row, and would leave each line of dst
// partly written for the next lane (on an Intel Xeon, one goroutine, a
// 3x50000 matrix of 16-byte elements ran at 0.26 of a non-streaming copy
// in zipNx16AVX2, 0.59 as runs).
func (t *Kernels) thinMatrix(dst, src engine.Span, m *engine.Matrix, w int) engine.Call {
	switch {
	case m.Rows <= MaxBlock && m.DstRow == m.Rows*w && m.DstSplit == 0:
		return t.splitLanes(laneKey{w: w, b: m.Rows, stream: m.Streaming}, m.Split, m.SrcSplit, LaneArgs{
			Space: dst, Depth: src, N: m.Cols * w, Rows: m.Reps, SpaceStride: m.DstRep, DepthStride: m.SrcRep, Lane: m.SrcRow,
			Groups: m.Groups, GroupSpace: m.DstGroup, GroupDepth: m.SrcGroup,
		})
	case m.Cols <= MaxBlock && m.SrcRow == m.Cols*w && m.SrcSplit == 0:
		return t.splitLanes(laneKey{unzip: true, w: w, b: m.Cols, stream: m.Streaming}, m.Split, m.DstSplit, LaneArgs{
			Space: src, Depth: dst, N: m.Rows * w, Rows: m.Reps, SpaceStride: m.SrcRep, DepthStride: m.DstRep, Lane: m.DstRow,
			Groups: m.Groups, GroupSpace: m.SrcGroup, GroupDepth: m.DstGroup,
		})
	}
	return nil
}

// splitLanes is the call of the kernel of k's b lanes whose lanes lie in
// two levels, split to a level and the level's step laneI (engine.Matrix.
// Split), where the kernel's addressing (Split) takes them; where split
// is 0, evenly spaced lanes, a.Lane apart (evenLanes).
func (t *Kernels) splitLanes(k laneKey, split, laneI int, a LaneArgs) engine.Call {
	if k.b > MaxBlock {
		return nil
	}
	if split == 0 {
		split, laneI = Split[k.b], Split[k.b]*a.Lane
	}
	if Split[k.b] != split {
		return nil
	}
	a.LaneI = laneI
	return t.lanes(k, a)
}

// A matrixCall is the tile kernel calls that move each of reps matrices
// of each of groups groups.
type matrixCall struct {
	calls                      []*TileCall
	reps, dstRep, srcRep       int
	groups, dstGroup, srcGroup int
}

func (c *matrixCall) Run(space, depth []byte) {
	for g := range c.groups {
		for i := range c.reps {
			for _, k := range c.calls {
				k.Run(space[g*c.dstGroup+i*c.dstRep:], depth[g*c.srcGroup+i*c.srcRep:])
			}
		}
	}
}

func (c *matrixCall) Kernel() string { return c.calls[0].Kernel() }

// TransposeRuns implements engine.Kernels with the table's run copier, for runs of
// 16 bytes and more.
func (t *Kernels) TransposeRuns(dst, src engine.Span, r engine.TransposeRuns) engine.Call {
	if r.Len < 16 {
		return nil
	}
	return t.copyRuns(r.Streaming, CopyArgs{Dst: dst, Src: src, E: r.Len, W: r.Count, DstX: r.DstX, SrcX: r.SrcX,
		Rows: r.Rows, DstRow: r.DstRow, SrcRow: r.SrcRow, Groups: r.Groups, DstGroup: r.DstGroup, SrcGroup: r.SrcGroup})
}
