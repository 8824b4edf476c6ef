package simd

import "github.com/blockshuffle/blockshuffle/internal/engine"

// Matrix implements engine.Kernels: the tile kernel of w-byte words, of
// this table or its base, moves the tiles that fit the matrix, and tiles
// shifted back to end at its last row or column, overlapping the ones
// before, move the rest, writing again the same values there. A matrix
// smaller than one tile gets no call.
//
// The kernel's inner loop goes down the matrix, a band of columns at a
// time, so that each row of dst is written in order: across, a tile's
// stores fall on lines the tile before it left half written, and with dst
// rows a power of two apart those lines fill few cache sets and leave
// before they are finished. On a Zen 5, a 1024x1024 matrix of 4-byte
// words moved at 0.06 of copy() across, and at ... down.
func (t *Table) Matrix(dst, src engine.Span, m engine.Matrix, w int) engine.Call {
	if w < 1 || w > MaxTileWidth {
		return nil
	}
	var k TileKernel
	for u := t; u != nil && k.F == nil; u = u.Base {
		k = u.Tiles[w]
	}
	if k.F == nil {
		return nil
	}
	cols := k.Chunk / w // of a tile
	if m.Rows < k.B || m.Cols < cols {
		return nil
	}
	down, across := m.Rows/k.B, m.Cols/cols // whole tiles
	c := &matrixCall{reps: m.Reps, dstRep: m.DstRep, srcRep: m.SrcRep}
	if m.Reps < 1 || m.DstRep < 0 || m.SrcRep < 0 {
		return nil
	}
	// Each matrix's calls run on the tensors from its own start on.
	dstSpan, ok1 := around(0, m.Reps, m.DstRep)
	srcSpan, ok2 := around(0, m.Reps, m.SrcRep)
	if !ok1 || !ok2 || dstSpan > dst.Len || srcSpan > src.Len {
		return nil
	}
	dst.Len -= dstSpan
	src.Len -= srcSpan
	add := func(row, col, down, across int) {
		c.calls = append(c.calls, k.F.Call(TileArgs{
			Dst: dst.From(col*m.DstRow + row*w), Src: src.From(row*m.SrcRow + col*w),
			Tiles: down, Strips: across, DstRow: m.DstRow, SrcRow: m.SrcRow,
			DstTile: k.B * w, SrcTile: k.B * m.SrcRow, DstStrip: cols * m.DstRow, SrcStrip: k.Chunk,
		}, k.B, k.Chunk, w))
	}
	add(0, 0, down, across)
	lastRow, lastCol := m.Rows%k.B != 0, m.Cols%cols != 0
	if lastCol {
		add(0, m.Cols-cols, down, 1)
	}
	if lastRow {
		add(m.Rows-k.B, 0, 1, across)
	}
	if lastRow && lastCol {
		add(m.Rows-k.B, m.Cols-cols, 1, 1)
	}
	return c
}

// A matrixCall is the tile kernel calls that move one matrix, run on each
// of reps matrices.
type matrixCall struct {
	calls                []*TileCall
	reps, dstRep, srcRep int
}

func (c *matrixCall) Run(space, depth []byte) {
	for i := range c.reps {
		for _, k := range c.calls {
			k.Run(space[i*c.dstRep:], depth[i*c.srcRep:])
		}
	}
}

// TransposeRuns implements engine.Kernels with the table's run copier, for runs of
// 16 bytes and more.
func (t *Table) TransposeRuns(dst, src engine.Span, r engine.TransposeRuns) engine.Call {
	if r.Len < 16 {
		return nil
	}
	return t.copyRuns(false, CopyArgs{Dst: dst, Src: src, E: r.Len, W: r.Count, DstX: r.DstX, SrcX: r.SrcX,
		Rows: r.Rows, DstRow: r.DstRow, SrcRow: r.SrcRow, Groups: r.Groups, DstGroup: r.DstGroup, SrcGroup: r.SrcGroup})
}

func (c *matrixCall) Kernel() string { return c.calls[0].Kernel() }
