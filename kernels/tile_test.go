package kernels

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/simd"
)

// matrixRef is engine.Matrix's contract written out: word (r, c) of each
// matrix of src moves to dst; other bytes of dst keep their values.
func matrixRef(dst, src []byte, m engine.Matrix, w int) {
	for g := range m.Groups {
		for i := range m.Reps {
			for r := range m.Rows {
				for c := range m.Cols {
					copy(dst[g*m.DstGroup+i*m.DstRep+c*m.DstRow+r*w:][:w], src[g*m.SrcGroup+i*m.SrcRep+r*m.SrcRow+c*w:][:w])
				}
			}
		}
	}
}

// matrixLens are the bytes matrices' src and dst span.
func matrixLens(m engine.Matrix, w int) (dst, src int) {
	return (m.Groups-1)*m.DstGroup + (m.Reps-1)*m.DstRep + (m.Cols-1)*m.DstRow + m.Rows*w,
		(m.Groups-1)*m.SrcGroup + (m.Reps-1)*m.SrcRep + (m.Rows-1)*m.SrcRow + m.Cols*w
}

// withGroups sets m's repetitions: reps matrices one after the other on
// both sides (gap words apart), in groups groups likewise.
func withGroups(m engine.Matrix, w, reps, groups, gap int) engine.Matrix {
	m.Reps, m.SrcRep, m.DstRep = reps, m.Rows*m.SrcRow+gap*w, m.Cols*m.DstRow+gap*w
	m.Groups, m.SrcGroup, m.DstGroup = groups, reps*m.SrcRep+gap*w, reps*m.DstRep+gap*w
	return m
}

// checkMatrix runs the table's call for m on dst and src, which it fills,
// and compares the result with matrixRef's; ok is false where the table
// has no call for m.
func checkMatrix(t *testing.T, name string, call engine.Call, m engine.Matrix, w int, dst, src []byte) {
	t.Helper()
	for i := range src {
		src[i] = byte(i*131 + i>>8 + 7)
	}
	for i := range dst {
		dst[i] = 0xA5
	}
	want := bytes.Clone(dst)
	matrixRef(want, src, m, w)
	call.Run(dst, src)
	if i := firstDiff(dst, want); i >= 0 {
		t.Fatalf("%s %s, %d-byte words %+v: dst byte %d is %#x, want %#x", name, call.Kernel(), w, m, i, dst[i], want[i])
	}
}

// TestMatrix checks the tile kernels of every table this CPU runs, of
// every word size (elements of 3 to 7 bytes whole included), against
// matrixRef: rows and columns from one tile to several, with and without
// a partial last tile each way, rows padded or not on either side, dst
// rows some KiB apart or not.
func TestMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 32))
	for name := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		for w := 1; w <= simd.MaxTileWidth; w++ {
			for i, k := range slices.Concat(tilesOf(set.Tiles, w), pagedTiles(set, w)) { // rows from each tile's on: the largest that fits moves them
				if k.NT {
					continue
				}
				b, cols := int(k.B), int(k.Chunk)/w
				for range many(300) {
					m := engine.Matrix{Rows: minRows(w, b) + rng.IntN(4*b), Cols: minCols(w, cols) + rng.IntN(4*cols)}
					if !takes(w, m.Cols, cols) {
						m.Cols += cols
					}
					m.SrcRow, m.DstRow = m.Cols*w+w*rng.IntN(3), m.Rows*w+w*rng.IntN(3)
					switch {
					case i >= len(tilesOf(set.Tiles, w)) && rng.IntN(2) == 0: // dst rows whole pages apart, which paged tiles take
						m.DstRow = (m.Rows*w + 4095) &^ 4095 << rng.IntN(2)
					case rng.IntN(4) == 0: // dst rows whole KiB apart, in few L1 sets: narrower bands
						m.DstRow = (m.Rows*w + 1023) &^ 1023 << rng.IntN(3)
					}
					m = withGroups(m, w, 1+rng.IntN(3), 1+rng.IntN(2), 0)
					dl, sl := matrixLens(m, w)
					call := set.Matrix(engine.SpaceSpan(dl), engine.DepthSpan(sl), m, w)
					if call == nil {
						t.Fatalf("%s: no call for %d-byte words %+v", name, w, m)
					}
					checkMatrix(t, name, call, m, w, make([]byte, dl), make([]byte, sl))
				}
			}
			// Fewer rows than the shortest tile of the table and its bases,
			// rows padded on both sides, which no lane kernel takes either.
			least := math.MaxInt
			for _, k := range tilesOf(set.Tiles, w) {
				least = min(least, tileRows(w, int(k.B)))
			}
			if least == math.MaxInt {
				continue
			}
			small := withGroups(engine.Matrix{Rows: least - 1, Cols: 64, SrcRow: 64*w + w, DstRow: least * w}, w, 1, 1, 0)
			if set.Matrix(engine.SpaceSpan(1<<20), engine.DepthSpan(1<<20), small, w) != nil {
				t.Errorf("%s: a call for %+v, smaller than a tile of %d rows", name, small, least)
			}
		}
	}
}

// tileRows is the fewest rows of a matrix of w-byte words a tile of b
// rows takes: simd.OddRows for elements of 3 to 7 bytes.
func tileRows(w, b int) int {
	if w&(w-1) != 0 {
		return max(b, simd.OddRows)
	}
	return b
}

// minRows is the fewest rows of the matrices drawn for a tile of b rows
// of w-byte words: tileRows, and more than a thin matrix has for 16-byte
// words, whose thin matrices go as runs where no lane kernel takes them
// (simd.Matrix).
func minRows(w, b int) int {
	if w == 16 {
		return max(b, simd.MaxBlock+1)
	}
	return tileRows(w, b)
}

// minCols is the fewest columns of the matrices drawn for a tile of cols
// columns of w-byte words (minRows).
func minCols(w, cols int) int {
	if w == 16 {
		return max(cols, simd.MaxBlock+1)
	}
	return cols
}

// takes reports whether a tile of cols columns of w-byte words takes a
// matrix of c columns: for elements of odd sizes, where its last column
// of tiles, shifted back, moves less than a third of the matrix again
// (simd.OddRows).
func takes(w, c, cols int) bool {
	return w&(w-1) == 0 || c%cols == 0 || c >= 2*cols
}

// pagedTiles are the paged tile kernels of w-byte words of a tier
// (simd.Table.PagedTiles).
func pagedTiles(set *simd.Kernels, w int) []simd.TileKernel { return tilesOf(set.PagedTiles, w) }

// tilesOf are the tile kernels of w-byte words among ks, in their order.
func tilesOf(ks []simd.TileKernel, w int) []simd.TileKernel {
	return slices.DeleteFunc(slices.Clone(ks), func(k simd.TileKernel) bool { return int(k.W) != w })
}

// TestMatrixStreaming checks the tile kernels' streaming twins against
// matrixRef, the paged tiles' (AVX2's quads) with dst rows whole pages
// apart and, where the first tile has no twin, not, and the stream tiles
// (AVX2's columns, twins of no plain kernel):
// matrices whose every column store is a whole line of a
// line-aligned dst, as simd.Matrix gives them, with rows and columns
// from one tile to several (more than a lane kernel takes). The call must
// be the twin's where dst is aligned, and the ordinary kernel's where it
// is not.
func TestMatrixStreaming(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 34))
	for name, table := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		for w := 1; w <= simd.MaxTileWidth; w++ {
			twin := false // whether the first tile has a streaming twin
			for paged, list := range [][]simd.TileKernel{table.Tiles, table.PagedTiles} {
				own := tilesOf(list, w)
				if len(own) < 2 || !own[1].NT { // the first tile and its twin
					continue
				}
				checkStreaming(t, rng, name, set, own[0], w, paged == 1)
				if paged == 0 {
					twin = true
				} else if !twin && len(tilesOf(table.StreamTiles, w)) == 0 {
					checkStreaming(t, rng, name, set, own[0], w, false) // a paged tile's twin as the stream tile of a matrix in the cache
				}
			}
			for _, k := range tilesOf(table.StreamTiles, w) {
				checkStreaming(t, rng, name, set, k, w, false)
			}
		}
	}
}

// checkStreaming is TestMatrixStreaming's check of tile kernel k, of
// w-byte words, on the kernels of table name, with dst rows whole pages
// apart where paged says.
func checkStreaming(t *testing.T, rng *rand.Rand, name string, set *simd.Kernels, k simd.TileKernel, w int, paged bool) {
	t.Helper()
	b, cols, line := int(k.B), int(k.Chunk)/w, 64/w // a tile's rows and columns; words a line
	for range many(100) {
		m := engine.Matrix{Rows: line * (max(b/line, 2, simd.MaxBlock/line+1) + rng.IntN(4)), Cols: max(cols, simd.MaxBlock+1) + rng.IntN(4*cols), Streaming: true}
		m.SrcRow, m.DstRow = m.Cols*w+w*rng.IntN(3), (m.Rows+line*rng.IntN(2))*w
		if paged {
			m.DstRow = (m.DstRow + 4095) &^ 4095
		}
		m = withGroups(m, w, 1+rng.IntN(3), 1+rng.IntN(2), line*rng.IntN(2))
		dl, sl := matrixLens(m, w)
		call := set.Matrix(engine.SpaceSpan(dl), engine.DepthSpan(sl), m, w)
		if call == nil || !strings.HasPrefix(call.Kernel(), fmt.Sprintf("tile%dx%d", b, w)) || !strings.HasSuffix(call.Kernel(), "NT") {
			t.Fatalf("%s: %d-byte words %+v: no streaming call of tiles of %d rows", name, w, m, b)
		}
		buf := make([]byte, dl+64+1)
		at := lineAligned(buf)
		checkMatrix(t, name, call, m, w, buf[at:at+dl], make([]byte, sl))
		checkMatrix(t, name+" unaligned", call, m, w, buf[at+1:at+1+dl], make([]byte, sl))
	}
}

// lineAligned is the offset of buf's first byte on a 64-byte boundary.
func lineAligned(buf []byte) int { return int(64-uintptr(unsafe.Pointer(&buf[0]))%64) % 64 }

// TestStreamTilesGrowStack runs the stream tiles (AVX2's byte columns
// keep a block of whole lines on the goroutine's stack, beyond NOSPLIT's
// limit, and so may grow it first) from a new goroutine under every
// depth of a recursion up to 64 KiB, so that some calls find too little
// stack left: each must move its matrix as matrixRef does.
func TestStreamTilesGrowStack(t *testing.T) {
	for name, table := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		for _, k := range table.StreamTiles {
			w := int(k.W)
			m := engine.Matrix{Rows: 2 * int(k.B), Cols: simd.MaxBlock + 64/w, Streaming: true, Reps: 1, Groups: 1}
			m.SrcRow, m.DstRow = m.Cols*w, m.Rows*w
			dl, sl := matrixLens(m, w)
			call := set.Matrix(engine.SpaceSpan(dl), engine.DepthSpan(sl), m, w)
			buf := make([]byte, dl+64)
			at := lineAligned(buf)
			dst, src := buf[at:at+dl], make([]byte, sl)
			if call == nil || !strings.HasSuffix(call.Kernel(), "NT") {
				t.Fatalf("%s: %d-byte words %+v: no streaming call", name, w, m)
			}
			checkMatrix(t, name, call, m, w, dst, src) // the streaming call, dst aligned
			want := bytes.Clone(dst)
			for depth := 0; depth < 1024; depth += 7 {
				clear(dst)
				done := make(chan struct{})
				go func() {
					defer close(done)
					deep(depth, func() { call.Run(dst, src) })
				}()
				<-done
				if !bytes.Equal(dst, want) {
					t.Fatalf("%s %s, depth %d: the call moved the matrix otherwise", name, call.Kernel(), depth)
				}
			}
		}
	}
}

// deep calls f under n frames of 64 bytes and more.
func deep(n int, f func()) {
	var pad [64]byte
	pad[n%64] = byte(n)
	if n == 0 {
		f()
		return
	}
	deep(n-1, f)
	if pad[n%64] != byte(n) {
		panic("deep: the frame changed")
	}
}

// TestThinMatrix checks the lane kernels' calls for matrices of at most
// simd.MaxBlock rows or columns held whole on one side, against
// matrixRef. Those of 16-byte words take lane kernels of their b or
// nothing (simd.Matrix): no tiles, no kernel of any b.
func TestThinMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 33))
	for name := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		for _, w := range []int{1, 2, 4, 8, 16} {
			calls := 0
			for range 400 {
				thin, long := 2+rng.IntN(simd.MaxBlock-1), 1+rng.IntN(100)
				m := engine.Matrix{Rows: thin, Cols: long, SrcRow: long*w + w*rng.IntN(3), DstRow: thin * w}
				if rng.IntN(2) == 0 {
					m = engine.Matrix{Rows: long, Cols: thin, SrcRow: thin * w, DstRow: long*w + w*rng.IntN(3)}
				}
				m = withGroups(m, w, 1+rng.IntN(3), 1+rng.IntN(2), rng.IntN(2))
				dl, sl := matrixLens(m, w)
				call := set.Matrix(engine.SpaceSpan(dl), engine.DepthSpan(sl), m, w)
				if call == nil {
					continue
				}
				if k := call.Kernel(); w == 16 && (strings.HasPrefix(k, "tile") || strings.Contains(k, "zipN")) {
					t.Fatalf("%s: 16-byte words %+v: %s, want a lane kernel of b lanes or none", name, m, k)
				}
				checkMatrix(t, name, call, m, w, make([]byte, dl), make([]byte, sl))
				calls++
			}
			if calls < 100 {
				t.Errorf("%s: %d-byte words: %d thin matrices of 400 had a call", name, w, calls)
			}
		}
	}
}

// TestMatrixGuardPages runs the tile kernels of every word size on
// matrices packed tight (rows w*cols bytes apart, no padding) against
// inaccessible pages, at every row and column count from one tile to past
// two; with -short, as under emulation, at those next to one tile and
// two.
func TestMatrixGuardPages(t *testing.T) {
	for name, table := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		for w := 1; w <= simd.MaxTileWidth; w++ {
			own := tilesOf(table.Tiles, w) // the base table's are tested under its own name
			paged, streams := len(own), len(own)+len(pagedTiles(set, w))
			for i, k := range slices.Concat(own, pagedTiles(set, w), tilesOf(set.StreamTiles, w)) {
				if k.NT && i < streams { // the twin of the tile before, which streaming rows take
					continue
				}
				cols := int(k.Chunk) / w
				for _, rows := range oneToTwo(minRows(w, int(k.B))) {
					for _, c := range oneToTwo(minCols(w, cols)) {
						if !takes(w, c, cols) {
							continue
						}
						// Rows of whole lines of dst stream where the kernels can;
						// paged tiles take dst rows a page apart.
						dstRow := rows * w
						if i >= paged && i < streams {
							dstRow = 4096
						}
						m := withGroups(engine.Matrix{Rows: rows, Cols: c, SrcRow: c * w, DstRow: dstRow, Streaming: true}, w, 2, 2, 0)
						dl, sl := matrixLens(m, w)
						call := set.Matrix(engine.SpaceSpan(dl), engine.DepthSpan(sl), m, w)
						f := "." + strings.TrimSuffix(call.Kernel(), "NT")
						if i >= streams { // a stream tile: where dst's lines take it, and no lane kernel
							f = "." + call.Kernel()
							if dstRow%64 != 0 || min(rows, c) <= simd.MaxBlock {
								f = ""
							}
						}
						if i >= paged && !strings.HasSuffix(runtime.FuncForPC(uintptr(*k.F)).Name(), f) { // the paged tile, or its twin, where dst's lines take it
							t.Fatalf("%s: %+v: the call of %s, not %s", name, m, call.Kernel(), runtime.FuncForPC(uintptr(*k.F)).Name())
						}
						inGuards(t, dl, sl, func(dst, src []byte) {
							checkMatrix(t, fmt.Sprint(name, " guarded"), call, m, w, dst, src)
						})
					}
				}
			}
		}
	}
}

// oneToTwo are the counts from one tile of n to past two, n to 2n+1; with
// -short, those next to the edges: n, n+1, n+2, 2n-1, 2n and 2n+1, where
// a tile overlaps the last one or a second tile begins.
func oneToTwo(n int) []int {
	var out []int
	for v := n; v <= 2*n+1; v++ {
		if !testing.Short() || v <= n+2 || v >= 2*n-1 {
			out = append(out, v)
		}
	}
	return out
}
