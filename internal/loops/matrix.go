package loops

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/internal/engine"
)

// The generic tier's kernels of general transposes: Go tiles for the
// matrices, copies for the runs. internal/transpose plans them as it
// plans every tier's, folding outer loops into Repeats and cutting large
// tensors into pieces for goroutines; a SIMD tier's transposes fall back
// to them where neither its kernels nor two passes through a buffer take
// a matrix.

// tile is the side, in words, of the Go tiles: 16 rows of up to 128
// bytes read and written stay in L1.
const tile = 16

// Matrix implements engine.Kernels: the matrices m of w-byte words, by
// Go tiles, for words of up to engine.MaxTileWord bytes. Wider elements
// go as runs of such words (and split matrices, engine.Matrix.Split, as
// plain ones): on an Intel Xeon, one goroutine, 2048x2048
// of 16-byte elements ran at 3.0-3.1 GB/s as runs, 2.0 as Go tiles of
// 16-byte words.
func (kernels) Matrix(dst, src engine.Span, m engine.Matrix, w int) engine.Call {
	if w > engine.MaxTileWord || m.Split > 0 {
		return nil
	}
	return &matrix{dst: dst, src: src, m: m, w: w}
}

// MatrixUnits implements engine.Kernels: whole Go tiles.
func (kernels) MatrixUnits(m engine.Matrix, w int) (cols, rows int) { return tile, tile }

type matrix struct {
	dst, src engine.Span
	m        engine.Matrix
	w        int
}

func (c *matrix) Kernel() string { return fmt.Sprintf("generic: Go tiles of %d", tile) }

func (c *matrix) Run(space, depth []byte) {
	d, s := c.dst.In(space, depth), c.src.In(space, depth)
	switch n, fit := c.w, aligned(d, s, c.w); {
	case n == 1:
		eachMatrix(d, s, &c.m, 1)
	case n == 2 && fit:
		eachMatrix(words[uint16](d), words[uint16](s), &c.m, 2)
	case n == 2:
		eachMatrix(words[[2]byte](d), words[[2]byte](s), &c.m, 2)
	case n == 4 && fit:
		eachMatrix(words[uint32](d), words[uint32](s), &c.m, 4)
	case n == 4:
		eachMatrix(words[[4]byte](d), words[[4]byte](s), &c.m, 4)
	case fit:
		eachMatrix(words[uint64](d), words[uint64](s), &c.m, 8)
	default:
		eachMatrix(words[[8]byte](d), words[[8]byte](s), &c.m, 8)
	}
}

// eachMatrix transposes every matrix of m, whose steps count bytes, in
// tensors of w-byte words.
func eachMatrix[T any](dst, src []T, m *engine.Matrix, w int) {
	for g := range m.Groups {
		for i := range m.Reps {
			transpose2D(dst[(g*m.DstGroup+i*m.DstRep)/w:], src[(g*m.SrcGroup+i*m.SrcRep)/w:], m.Rows, m.Cols, m.SrcRow/w, m.DstRow/w)
		}
	}
}

// transpose2D moves a matrix of rows x cols words: word (r, c) from
// src[r*rowStride + c] to dst[c*colStride + r], tile by tile.
func transpose2D[T any](dst, src []T, rows, cols, rowStride, colStride int) {
	for r0 := 0; r0 < rows; r0 += tile {
		r1 := min(r0+tile, rows)
		for c0 := 0; c0 < cols; c0 += tile {
			for c := c0; c < min(c0+tile, cols); c++ {
				to := dst[c*colStride+r0 : c*colStride+r1]
				from := src[r0*rowStride+c:]
				for i := range to {
					to[i] = from[i*rowStride]
				}
			}
		}
	}
}

// TransposeRuns implements engine.Kernels: the runs r, each by Go's copy,
// or, runs of 3 to 16 bytes, by moveElements: on a Zen 4, the generic
// tier moved a 1000x1000 matrix of 3-byte elements at 0.03 of copy() by
// a copy() per run, 0.12 as byte arrays of that size (12-byte elements:
// 0.10 and 0.28).
func (kernels) TransposeRuns(dst, src engine.Span, r engine.TransposeRuns) engine.Call {
	return &runCopies{dst: dst, src: src, r: r}
}

type runCopies struct {
	dst, src engine.Span
	r        engine.TransposeRuns
}

func (c *runCopies) Kernel() string { return "generic: Go copies of runs" }

func (c *runCopies) Run(space, depth []byte) {
	d, s, r := c.dst.In(space, depth), c.src.In(space, depth), &c.r
	for g := range r.Groups {
		for row := range r.Rows {
			to, from := d[g*r.DstGroup+row*r.DstRow:], s[g*r.SrcGroup+row*r.SrcRow:]
			if r.Len >= 3 && r.Len <= 16 {
				moveElements(to, from, r.Count, r.DstX, r.SrcX, r.Len)
				continue
			}
			for x := range r.Count {
				copy(to[x*r.DstX:][:r.Len], from[x*r.SrcX:][:r.Len])
			}
		}
	}
}
