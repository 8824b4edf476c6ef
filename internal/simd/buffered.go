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
// so: a staged call of their blocks, the last block of each row of blocks
// taking the columns left too, then the rows left in place; or nil. The
// staged call takes dst as the space tensor and src as the depth one, as
// transposes have them.
func (t *Kernels) buffered(dst, src engine.Span, m *engine.Matrix, w int, k *tile) engine.Call {
	rows, cols, left := bufRowBytes/w, bufCols, m.Cols%bufCols
	row := rows*w + lineBytes // the buffer's rows: one block column each, off the sets of the one before
	if m.Rows <= tallRows || m.Cols < cols || dst.Depth || !src.Depth || dst.Own != nil || src.Own != nil {
		return nil
	}
	runs := CopyArgs{Dst: dst, Src: engine.DepthSpan((cols + left) * row), E: rows * w, W: 1, Rows: cols, DstRow: m.DstRow, SrcRow: row, Groups: 1}
	streams := false // where the tiles cannot stream and the copies out of the buffer can
	if m.Streaming && k.nt == nil {
		_, streams = t.copyRuns(true, runs).(*engine.Aligned)
	}
	if !streams && (w > 2 || k.b*w >= lineBytes || sets(m.DstRow) > 2) {
		return nil
	}
	s := &engine.Staged{Buf: runs.Src.Len, Count: 1, Loops: []engine.Loop{
		{N: m.Groups, Src: m.SrcGroup, Dst: m.DstGroup}, {N: m.Reps, Src: m.SrcRep, Dst: m.DstRep},
		{N: m.Rows / rows, Src: rows * m.SrcRow, Dst: rows * w}, {N: m.Cols / cols, Src: cols * w, Dst: cols * m.DstRow}}}
	// The blocks' calls are checked within the spans less the last
	// block's offsets, which lie within the matrices tileMatrix checked.
	from, to := src, dst
	for _, l := range s.Loops {
		s.Count *= l.N
		from.Len -= (l.N - 1) * l.Src
		to.Len -= (l.N - 1) * l.Dst
	}
	// A block of cols columns, and the last one of each row of blocks.
	for i, c := range []int{cols, cols + left}[:1+min(left, 1)] {
		tiles := tileMatrix(engine.SpaceSpan(s.Buf), from, engine.Matrix{Rows: rows, Cols: c, SrcRow: m.SrcRow, DstRow: row, Reps: 1, Groups: 1}, w, k.f, *k)
		if tiles == nil {
			return nil
		}
		calls := &s.Whole
		if i > 0 {
			calls = &s.Last
		}
		runs.Dst, runs.Rows = to, c
		*calls = [2]engine.Call{tiles, t.copyRuns(m.Streaming, runs)}
	}
	n := m.Rows % rows
	if n == 0 {
		return s
	}
	r := *m
	r.Rows = max(n, k.b)
	at := m.Rows - r.Rows
	if rest := tileMatrix(dst.From(at*w), src.From(at*m.SrcRow), r, w, k.f, *k); rest != nil {
		return engine.Calls{s, rest}
	}
	return nil
}
