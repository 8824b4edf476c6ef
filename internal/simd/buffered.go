package simd

import "github.com/blockshuffle/blockshuffle/internal/engine"

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
//   - tiles with no streaming twin (AVX2's), where the matrix streams:
//     in place they cannot stream.
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
	streams := false // where the tiles cannot stream and the copies out of the buffer can
	if m.Streaming && k.nt == nil {
		e := bufRowBytes / w * w // a block's dst rows, as through copies them
		runs := CopyArgs{Dst: dst, Src: engine.DepthSpan(bufCols * (e + lineBytes)), E: e, W: 1, Rows: bufCols, DstRow: m.DstRow, SrcRow: e + lineBytes, Groups: 1}
		_, streams = t.copyRuns(true, runs).(*engine.Aligned)
	}
	if !streams && (w > 2 || k.b*w >= lineBytes || sets(m.DstRow) > 2) {
		return nil
	}
	return t.through(dst, src, m, w, k, bufRowBytes/w, bufCols, false, m.Streaming)
}

// padded is the call that moves matrices m of w-byte words, which
// tileMatrix moves in place in tiles k, through a padded buffer where
// they go so (through: the tiles out of the buffer), in blocks of fewer
// rows, whole tiles, where m has fewer than padRowBytes/w (NCHW to NHWC
// of 64 or 96 channels of bytes: 1x64x128x128 0.17 -> 0.58-0.61 of a
// non-streaming copy, 1x96x128x128 0.14 -> 0.55); or nil.
func (t *Kernels) padded(dst, src engine.Span, m *engine.Matrix, w int, k *tile) engine.Call {
	if w > 2 || k.b/sets(m.SrcRow) <= setLines || sets(m.DstRow) < 4 || padRowBytes/w%k.b != 0 {
		return nil
	}
	return t.through(dst, src, m, w, k, max(k.b, min(padRowBytes/w, m.Rows/k.b*k.b)), padCols/w, true, false)
}

// through is the call that moves matrices m of w-byte words through a
// buffer, a block of rows rows by cols columns at a time, or nil. Where
// pad, each block's rows of src are copied into the buffer, each a line
// longer than the block's so that they fall in every L1 set, and its
// tiles go from there into dst, each column of blocks from the top down;
// else its tiles go into the buffer, a row for each of its columns, a
// line longer than the block's, and each of its dst rows is copied out
// of there whole (streaming where stream says), each row of blocks from
// left to right. The last block of each column (row) of blocks takes the
// rows (columns) left too; the columns (rows) left over go in place. The
// staged call takes dst as the space tensor and src as the depth one,
// as transposes have them.
func (t *Kernels) through(dst, src engine.Span, m *engine.Matrix, w int, k *tile, rows, cols int, pad, stream bool) engine.Call {
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
		tiles := tileMatrix(into, of, &b, w, k.f, k)
		if tiles == nil {
			return nil
		}
		calls := &s.Whole
		if i > 0 {
			calls = &s.Last
		}
		copies := t.copyRuns(stream, runs)
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

// Padded blocks: tiles of bytes and 2-byte words read each line of src
// in pieces, 16 or 32 bytes at a time, and where a tile's rows fall in
// few of the L1's sets (more than setLines a set: rows a multiple of 1
// KiB apart, in 64-row tiles of bytes) its lines are gone before it comes
// back for the next piece. Such matrices go through a buffer (padded) a
// block of padRowBytes of each dst row by padCols bytes of each src row
// at a time, where dst rows do not crowd the sets too (in at least 4):
// on a Zen 5, one goroutine, of a non-streaming copy, in place and so,
// 1024x4096 bytes 0.18 and 0.61-0.64, 1024x2048 0.31 and 0.70, 512x8192
// 0.20 and 0.59-0.61; 2-byte words 512x2048 0.57-0.60 and 0.71-0.72,
// 512x8192 0.34 and 0.47-0.51. Blocks of 64 bytes of each src row lost
// (1024x4096 bytes 0.52-0.57), and 4-byte words, which AVX-512's tiles
// read a line at a time, lost too (512x4096 0.57 and 0.37); with dst
// rows 2 or 4 KiB apart, in one or two sets, the buffer lost or tied
// (4096x1024 bytes 0.53 and 0.22, 1024x1024 2-byte words 0.50 and 0.49).
const (
	padRowBytes = 128
	padCols     = 256
)
