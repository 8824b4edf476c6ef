package simd

import (
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// Blocks through a buffer: matrices of more than 1536 rows whose tiles
// write dst badly in place go a block of bufRowBytes/w rows by bufCols
// columns at a time: the block's tiles into a buffer that stays in L1,
// its rows a line longer than the block's so that they fall in every
// set, then the run copier from there into dst, each dst row of the
// block one run of whole lines, streaming where the matrix streams. Two
// kinds of tiles write dst badly:
//   - tiles of bytes and 2-byte words that write less than a line of each
//     dst row (AVX2's 16x16 bytes, 16x8 2-byte words), with dst rows a
//     multiple of 2 KiB apart: in place, each dst line is left half
//     written in one or two L1 sets, where the lines of all the other
//     rows go too, each on a page no prefetcher foresees;
//   - tiles with no streaming twin (AVX2's of bytes and 4-byte words but
//     its quads), where the matrix streams and no stream tile
//     (streamTile) takes it: in place they cannot stream. Its dst rows
//     must lie whole lines apart, or the streaming copies would leave
//     the halves of a line to two blocks far apart (2000x2500 of 2-byte
//     words, on a Zen 5, avx2 tier: 0.38 of a non-streaming copy so,
//     0.54 in place).
//
// On an Intel Xeon (family 6 model 167), avx2 tier, one goroutine, of a
// non-streaming copy, in place and so: 2048x2048 of bytes 0.32-0.35 and
// 0.41-0.48, 4096x1024 0.28-0.29 and 0.50-0.51, 2048x128 (256 KiB)
// 0.13-0.14 and 0.32-0.34, of 2-byte words 2048x2048 0.35-0.39 and 0.50,
// 2048x512 0.35-0.36 and 0.50-0.54;
// streaming, 4096x4096 of 4-byte words 0.27-0.29 and 0.63-0.64,
// 4096x2048 of 8-byte words 0.33-0.41 and 0.95-1.10, 7936x5000 of 2-byte
// words 0.36-0.37 and 0.79-0.81. Not streaming, they tied or lost with
// fewer rows (1024x1024 of 2-byte words 0.58-0.64 and 0.48-0.52), with
// dst rows 1 or 3 KiB apart (1536x1536 of 2-byte words 0.65 and 0.63) and
// in tiles of 4- and 8-byte words (2048x2048 of 8-byte words 0.51-0.54
// and 0.40-0.57); streaming, in matrices of fewer rows (1000x30000 of
// 2-byte words 0.52-0.54 and 0.32-0.34).
const (
	bufRowBytes = 256
	bufCols     = 128
)

// buffered is the call that moves matrices m of w-byte words, which
// tileMatrix moves in place in tiles k, through a buffer where they go
// so (through: the tiles into the buffer); or nil.
func (t *Kernels) buffered(dst, src engine.Span, m *engine.Matrix, w int, k *tile) engine.Call {
	if m.Rows <= tallRows || m.Cols < bufCols {
		return nil
	}
	// Where the tiles cannot stream, the copies out of the buffer can:
	// a block's dst rows (through), whole lines where the rows are, that
	// the run copier's streaming twin takes.
	streams := m.Streaming && k.nt == nil && m.DstRow%lineBytes == 0 && t.ntRuns(CopyArgs{E: bufRowBytes / w * w, DstRow: m.DstRow})
	if !streams && (w > 2 || k.b*w >= lineBytes || sets(m.DstRow) > 2) {
		return nil
	}
	return t.through(dst, src, m, w, k, nil, bufRowBytes/w, bufCols, false, m.Streaming)
}

// padded is the call that moves matrices m of w-byte words, which
// tileMatrix moves in place in tiles k, through a padded buffer where
// they go so (through: the tiles out of the buffer), in blocks
// (PaddedBlock) of fewer rows, whole tiles, where m has fewer (NCHW to
// NHWC of 64 or 96 channels of bytes: 1x64x128x128 0.17 -> 0.58-0.61 of a
// non-streaming copy, 1x96x128x128 0.14 -> 0.55); or nil. st is the
// streaming tile the blocks take where they stream (k, with its twin, or
// a stream tile: AVX2's columns of bytes), or nil. Where
// isa.CrowdedStreams says, a matrix that streams where its blocks would
// not goes in place in k's streaming twin.
func (t *Kernels) padded(dst, src engine.Span, m *engine.Matrix, w int, k, st *tile) engine.Call {
	stream := StreamsPadded(m, w) && st != nil
	rows, cols := PaddedBlock(m.DstRow, w, stream)
	b, chunk := k.b, k.chunk // whole tiles of k and st, where they stream
	if stream {
		b, chunk = max(b, st.b), max(chunk, st.chunk)
	}
	if w > 2 || !crowdsSrc(m.SrcRow, m.DstRow, k.b) || sets(m.DstRow) < 2 && !stream || rows%b != 0 || cols*w < chunk || m.Streaming && !stream && k.nt != nil && isa.CrowdedStreams() {
		return nil
	}
	return t.through(dst, src, m, w, k, st, max(b, min(rows, m.Rows/b*b)), cols, true, stream)
}

// StreamsPadded reports whether the padded blocks of matrix m of w-byte
// words go into dst by streaming tiles, where the matrix streams: bytes
// whose src and dst rows both fall in one or two L1 sets, and words of
// either size whose dst rows fall in two sets or more where the tensors
// outgrow the shared cache (engine.PaddedTiles).
func StreamsPadded(m *engine.Matrix, w int) bool {
	crowded := sets(m.DstRow) <= 2 && sets(m.SrcRow) <= 2
	outgrown := sets(m.DstRow) >= 2 && engine.Streams(engine.PaddedTiles, m.Rows*m.Cols*w*m.Reps*m.Groups)
	return m.Streaming && (w == 1 && crowded || outgrown)
}

// PaddedBlock is the block, rows by cols words, in which matrices of
// w-byte words whose dst rows lie dstRow bytes apart go through a padded
// buffer, whose tiles stream where stream says: padRowBytes of each dst
// row, twice as many where dst rows fall in fewer than 4 L1 sets or the
// tiles stream; and the most bytes of each src row, a power of two, with
// which the block, each row a line longer, fits the L1 data cache (32 KiB
// where the CPU does not say), or, where the tiles' stores stream around
// the caches, half the private cache (at least twice the L1).
func PaddedBlock(dstRow, w int, stream bool) (rows, cols int) {
	run := padRowBytes
	if crowdsDst(dstRow) || stream {
		run *= 2
	}
	c := isa.CacheSizes()
	budget := c.First
	if budget == 0 {
		budget = 32 << 10
	}
	if stream {
		budget = max(2*budget, c.Private/2)
	}
	rows, n := run/w, lineBytes
	for rows*(2*n+lineBytes) <= budget {
		n *= 2
	}
	return rows, n / w
}

// crowdsSrc reports whether the b rows of a tile, srcRow bytes apart,
// crowd the L1 sets they fall in: more than setLines lines a set, or
// half as many where dst rows dstRow bytes apart crowd the sets too
// (crowdsDst), whose half-written lines the tiles keep there as well. On
// a Zen 5, one goroutine, of a non-streaming copy, in place and through
// the padded buffer so: 1024x1024 of 2-byte words in AVX2's tiles of 16
// rows 0.37-0.39 and 0.59-0.62; in AVX-512's of 32, 1024x512 0.49-0.50
// and 0.59-0.68, 1024x1536 0.48-0.51 and 0.62-0.71; bytes 2048x512 (64
// rows in 8 sets) 0.50-0.51 and 0.54-0.55, 2048x1536 tied.
func crowdsSrc(srcRow, dstRow, b int) bool {
	most := setLines
	if crowdsDst(dstRow) {
		most /= 2
	}
	return b/sets(srcRow) > most
}

// crowdsDst reports whether dst rows dstRow bytes apart fall in fewer
// than 4 L1 sets, where the padded blocks go twice as tall (PaddedBlock)
// and in bands of one tile (through).
func crowdsDst(dstRow int) bool { return sets(dstRow) < 4 }

// through is the call that moves matrices m of w-byte words through a
// buffer, a block of rows rows by cols columns at a time, or nil. Where
// pad, each block's rows of src are copied into the buffer, each a line
// longer than the block's so that they fall in every L1 set, and its
// tiles go from there into dst (in bands of one tile where dst rows fall
// in fewer than 4 sets; by the streaming tile st where stream says and
// its stores are whole lines), each column of blocks from the top down;
// else its tiles go into the buffer, a row for each of its columns, a
// line longer than the block's, and each of its dst rows is copied out
// of there whole (streaming where stream says), each row of blocks from
// left to right. The last block of each column (row) of blocks takes the
// rows (columns) left too; the columns (rows) left over go in place. The
// staged call takes dst as the space tensor and src as the depth one,
// as transposes have them.
func (t *Kernels) through(dst, src engine.Span, m *engine.Matrix, w int, k, st *tile, rows, cols int, pad, stream bool) engine.Call {
	if m.Rows < rows || m.Cols < cols || dst.Depth || !src.Depth || dst.Own != nil || src.Own != nil {
		return nil
	}
	across := engine.Loop{N: m.Cols / cols, Src: cols * w, Dst: cols * m.DstRow}
	down := engine.Loop{N: m.Rows / rows, Src: rows * m.SrcRow, Dst: rows * w}
	outer, inner, left, row, lines := down, across, m.Cols%cols, rows*w+lineBytes, cols
	if pad {
		outer, inner, left, row, lines = across, down, m.Rows%rows, cols*w+lineBytes, rows
	}
	s, from, to := blocks(dst, src, m, (lines+left)*row, outer, inner)
	blockTile := *k
	var ntTile tile
	if st != nil {
		ntTile = *st
	}
	if pad && crowdsDst(m.DstRow) {
		blockTile.band, ntTile.band = k.chunk/w, ntTile.chunk/w
	}
	buf, out := engine.SpaceSpan(s.Buf), engine.DepthSpan(s.Buf)
	// A block, and the last one of each row (column) of blocks.
	for i, more := range []int{0, left}[:1+min(left, 1)] {
		var b engine.Matrix
		var runs CopyArgs
		into, of := buf, from // the tiles' dst and src
		if pad {
			b = engine.Matrix{Rows: rows + more, Cols: cols, SrcRow: row, DstRow: m.DstRow, Reps: 1, Groups: 1}
			runs = CopyArgs{Dst: buf, Src: from, E: cols * w, W: 1, Rows: b.Rows, DstRow: row, SrcRow: m.SrcRow, Groups: 1}
			into, of = to, out
		} else {
			b = engine.Matrix{Rows: rows, Cols: cols + more, SrcRow: m.SrcRow, DstRow: row, Reps: 1, Groups: 1}
			runs = CopyArgs{Dst: to, Src: out, E: rows * w, W: 1, Rows: b.Cols, DstRow: m.DstRow, SrcRow: row, Groups: 1}
		}
		tiles := tileMatrix(into, of, &b, w, k.f, &blockTile)
		if tiles == nil {
			return nil
		}
		if pad && stream && st != nil && lineStores(&b, w, &ntTile) {
			// Each call checks its block's address; every other store
			// lies a multiple of 64 bytes from it.
			if nt := tileMatrix(into, of, &b, w, ntTile.nt, &ntTile); nt != nil {
				tiles = &engine.Aligned{A: into, Mask: lineBytes - 1, Then: nt, Else: tiles}
			}
		}
		calls := &s.Whole
		if i > 0 {
			calls = &s.Last
		}
		copies := t.copyRuns(stream && !pad, runs)
		*calls = [2]engine.Call{tiles, copies}
		if pad {
			*calls = [2]engine.Call{copies, tiles}
		}
	}
	switch {
	case pad && m.Cols%cols != 0:
		return corner(s, dst, src, m, w, k, m.Rows, max(m.Cols%cols, k.chunk/w))
	case !pad && m.Rows%rows != 0:
		return corner(s, dst, src, m, w, k, max(m.Rows%rows, k.b), m.Cols)
	}
	return s
}

// corner is call s, then the tiles k in place of the last rows rows of
// the last cols columns of matrices m of w-byte words; or nil.
func corner(s engine.Call, dst, src engine.Span, m *engine.Matrix, w int, k *tile, rows, cols int) engine.Call {
	r, c := m.Rows-rows, m.Cols-cols
	rest := *m
	rest.Rows, rest.Cols = rows, cols
	if rest := tileMatrix(dst.From(c*m.DstRow+r*w), src.From(r*m.SrcRow+c*w), &rest, w, k.f, k); rest != nil {
		return engine.Calls{s, rest}
	}
	return nil
}

// blocks is a staged call of matrices m through a buffer of buf bytes, a
// block at a time: the loops over m's groups and reps, then outer and
// inner, over the blocks of each matrix; with the spans of src and dst
// within which every block's calls, made from the blocks' starts, stay:
// less the last block's offsets, which lie within the matrices.
func blocks(dst, src engine.Span, m *engine.Matrix, buf int, outer, inner engine.Loop) (s *engine.Staged, from, to engine.Span) {
	s = &engine.Staged{Buf: buf, Count: 1, Loops: []engine.Loop{
		{N: m.Groups, Src: m.SrcGroup, Dst: m.DstGroup}, {N: m.Reps, Src: m.SrcRep, Dst: m.DstRep}, outer, inner}}
	from, to = src, dst
	for _, l := range s.Loops {
		s.Count *= l.N
		from.Len -= (l.N - 1) * l.Src
		to.Len -= (l.N - 1) * l.Dst
	}
	return s, from, to
}

// Padded blocks: tiles of bytes and 2-byte words read each line of src in
// pieces, 16 or 32 bytes at a time, and where a tile's rows fall in few of
// the L1's sets (more than setLines a set: rows a multiple of 1 KiB apart,
// in 64-row tiles of bytes) its lines are gone before it comes back for
// the next piece. Such matrices go through a buffer (padded) a block
// (PaddedBlock) of padRowBytes of each dst row by as many bytes of each
// src row as the L1 holds at a time, where dst rows fall in at least 4
// sets: on a Zen 5 (48 KiB L1), one goroutine, of a non-streaming copy, in
// place and so, 1024x4096 bytes 0.18 and 0.61-0.64, 1024x2048 0.31 and
// 0.70, 512x8192 0.20 and 0.59-0.61; 2-byte words 512x2048 0.57-0.60 and
// 0.71-0.72, 512x8192 0.34 and 0.47-0.51. Blocks of 64 bytes of each src
// row lost (1024x4096 bytes 0.52-0.57), and 4-byte words, which AVX-512's
// tiles read a line at a time, lost too (512x4096 0.57 and 0.37). Where
// dst rows fall in two sets (2 KiB apart), 16 whole lines a tile, the
// blocks write twice as much of each dst row and go in bands of one tile,
// so that fewer dst rows take stores at once: 2048x2048 bytes 0.25-0.29
// and 0.48-0.54, 2048x1024 0.44-0.47 and 0.57-0.63, 2-byte words 1024x1024
// 0.47-0.53 and 0.68-0.77, 1024x2048 0.35-0.43 and 0.55-0.65 (2048x2048
// bytes in bands of a line: 0.40-0.42; in blocks of 128 bytes of each dst
// row: 0.33-0.37). In one set (4 KiB apart) the buffer lost (4096x1024
// bytes 0.53 and 0.22), but for bytes where the matrix streams and src
// rows fall in one or two sets too: there the tiles stream out of blocks
// that take twice the L1, as their stores go around it (StreamsPadded):
// 4096x4096 0.24-0.27 and 0.45-0.53, 8192x2048 0.40-0.41 and 0.51-0.55,
// 4096x2048 0.27-0.29 and 0.42-0.47, and with dst rows in two sets
// 2048x8192 0.24-0.25 and 0.50-0.55, 2048x4096 (8 MiB) 0.15 and 0.40. Src
// rows in four sets lost so (8192x1024 0.47 and 0.41), and so did 2-byte
// words (4096x2048 0.59 and 0.47). Beyond the shared cache (from 16 MiB
// here) every padded matrix whose dst rows fall in two sets or more
// streams so, in blocks of 256 bytes of each dst row by half the L2:
// 2-byte words 1024x8192 0.30-0.32 and 0.50-0.55, 512x16384 0.26-0.27 and
// 0.44-0.51, NCHW to NHWC of 1x256x256x256 0.35 and 0.51-0.57 (in one set
// they tied: 4096x2048 0.56-0.58); bytes 1024x16384 0.24-0.26 and
// 0.52-0.60, NCHW to NHWC of 1x256x256x256 0.25-0.29 and 0.54-0.69, of
// 1x64x512x512 0.27-0.29 and 0.54-0.77, 4096x4096 0.48-0.55 and 0.51-0.61
// (blocks of 256 x 512 bytes 0.51-0.59, 256 x 256 0.53-0.58, 128 x 512
// 0.44); those of 8 MiB, in the L3, lost so (512x16384 0.40-0.48 and 0.33,
// 1024x8192 0.43 and 0.32-0.45).
const padRowBytes = 128
