package kernels

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/simd"
)

// bufferedShape is the block of the matrices of w-byte words, more than
// 1536 rows, whose tiles go through a buffer (internal/simd's buffered):
// 256 bytes of each dst row (256 rows of bytes, 32 of 8-byte words), 128
// columns.
func bufferedShape(w int) (rows, cols int) { return 256 / w, 128 }

// buffers reports whether a table's own tiles of w-byte words take
// matrices m, whose dst rows lie a multiple of 2 KiB apart, through a
// buffer, with set its tier's kernels: where they write less than a line
// of each dst row (bytes and 2-byte words), or where the matrix streams,
// they have no streaming twin and the tier's run copier has one; but
// where the tier's stream tiles take them, or its paged tiles' twins,
// their dst lines whole (every column of a stream
// tile is one). Rows whole pages apart take the
// table's paged tiles where it has them.
func buffers(set *simd.Kernels, table *simd.Table, m engine.Matrix, w int) bool {
	ks := tilesOf(table.Tiles, w)
	if p := tilesOf(table.PagedTiles, w); len(p) > 0 && engine.Paged(m.DstRow) {
		ks = p
	}
	if len(ks) == 0 {
		return false
	}
	twinless := m.Streaming && (len(ks) < 2 || !ks[1].NT)
	quads := slices.ContainsFunc(tilesOf(set.PagedTiles, w), func(k simd.TileKernel) bool {
		return k.NT && m.Rows >= int(k.B) && m.Cols >= int(k.Chunk)/w
	})
	if twinless && (len(tilesOf(set.StreamTiles, w)) > 0 || quads) && (m.Rows*w|m.DstRow|m.DstRep|m.DstGroup)%64 == 0 {
		return false
	}
	return twinless && set.CopyRunsNT != nil || w <= 2 && int(ks[0].B)*w < 64
}

// TestMatrixBuffered checks the calls that move tall matrices of 1- to
// 8-byte words, dst rows a multiple of 2 KiB apart, block by block
// through a buffer, against matrixRef: rows and columns a whole number of
// blocks or not, fewer left than a tile or more, with repetitions and
// groups, streaming (the copies out of the buffer then write dst with
// non-temporal stores) or not. Every tier whose tiles take such
// matrices so must use it.
func TestMatrixBuffered(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 35))
	for name, table := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		for _, w := range []int{1, 2, 4, 8} {
			for _, streaming := range []bool{false, true} {
				want, buffered := false, 0
				for range many(20) {
					rows, cols := bufferedShape(w)
					m := engine.Matrix{Rows: (1536/rows+1+rng.IntN(3))*rows + rng.IntN(2)*rng.IntN(rows), Cols: cols*(1+rng.IntN(2)) + rng.IntN(cols), Streaming: streaming}
					m.SrcRow, m.DstRow = m.Cols*w+w*rng.IntN(3), (m.Rows*w+2047)&^2047<<rng.IntN(2)
					m = withGroups(m, w, 1+rng.IntN(2), 1+rng.IntN(2), 32/w*rng.IntN(2))
					want = want || buffers(set, table, m, w)
					if checkStaged(t, name, set, m, w) {
						buffered++
					}
				}
				if want && buffered == 0 {
					t.Errorf("%s: %d-byte words, streaming %v: no matrix went through a buffer", name, w, streaming)
				}
			}
		}
	}
}

// TestMatrixBufferedGuardPages runs the buffered calls on matrices whose
// last dst row and last src row end against inaccessible pages, src
// packed tight, dst rows an odd multiple of 2 KiB apart, at the row and
// column counts next to a whole number of blocks and of tiles, streaming
// or not.
func TestMatrixBufferedGuardPages(t *testing.T) {
	for name, table := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		for _, w := range []int{1, 2, 4, 8} {
			rows, cols := bufferedShape(w)
			for _, r := range []int{(1536/rows + 1) * rows, (1536/rows+1)*rows + 1, (1536/rows+2)*rows - 1} {
				for i, c := range []int{cols, cols + 1, cols + 15, cols + 16, 2*cols - 1, 2 * cols} {
					// dst rows an odd multiple of 2 KiB apart: not whole
					// pages, which AVX2's streaming quads take in place.
					streaming, dstRow := w > 2 || i%2 == 0, (r*w+2047)&^2047|2048
					m := withGroups(engine.Matrix{Rows: r, Cols: c, SrcRow: c * w, DstRow: dstRow, Streaming: streaming}, w, 1, 1, 0)
					if testing.Short() && c != cols+1 || !buffers(set, table, m, w) {
						continue
					}
					checkStagedGuarded(t, name, set, m, w)
				}
			}
		}
	}
}

// checkStaged plans matrices m of w-byte words with a tier's kernels,
// checks the call against matrixRef and reports whether it goes through
// a buffer.
func checkStaged(t *testing.T, name string, set *simd.Kernels, m engine.Matrix, w int) bool {
	t.Helper()
	dl, sl := matrixLens(m, w)
	call := set.Matrix(engine.SpaceSpan(dl), engine.DepthSpan(sl), m, w)
	if call == nil {
		t.Fatalf("%s: no call for %d-byte words %+v", name, w, m)
	}
	checkMatrix(t, name, call, m, w, make([]byte, dl), make([]byte, sl))
	return staged(call)
}

// checkStagedGuarded plans matrices m of w-byte words with a tier's
// kernels, fails unless the call goes through a buffer, and checks it
// against matrixRef with the tensors' last bytes against inaccessible
// pages.
func checkStagedGuarded(t *testing.T, name string, set *simd.Kernels, m engine.Matrix, w int) {
	t.Helper()
	dl, sl := matrixLens(m, w)
	call := set.Matrix(engine.SpaceSpan(dl), engine.DepthSpan(sl), m, w)
	if call == nil || !staged(call) {
		t.Fatalf("%s: %d-byte words %+v: the call %v, not through a buffer", name, w, m, call)
	}
	inGuards(t, dl, sl, func(dst, src []byte) {
		checkMatrix(t, fmt.Sprint(name, " guarded"), call, m, w, dst, src)
	})
}

// staged reports whether a call goes through a buffer: an engine.Staged
// call, alone or first.
func staged(call engine.Call) bool {
	if cs, ok := call.(engine.Calls); ok {
		call = cs[0]
	}
	_, ok := call.(*engine.Staged)
	return ok
}

// The dst rows of the matrices the padded calls take, whose src rows lie
// a multiple of 4 KiB apart: packed or a few words more apart (in every
// L1 set), an odd multiple of 2 KiB apart (in two sets), or whole pages
// apart in a matrix that streams (in one set: bytes by streaming tiles);
// or both src and dst rows an odd multiple of 2 KiB apart, where tiles of
// more than 8 rows crowd the two sets with dst's lines (simd's crowdsSrc).
type padKind int

const (
	spread padKind = iota
	crowded
	streamed
	bothCrowded
)

// padKinds are every padKind.
var padKinds = []padKind{spread, crowded, streamed, bothCrowded}

// paddedShape is the block of the padded matrices of w-byte words of a
// kind (internal/simd's padded).
func paddedShape(w int, kind padKind) (rows, cols int) {
	return simd.PaddedBlock(paddedMatrix(nil, 1, 1, w, kind).DstRow, w, kind == streamed)
}

// pads reports whether a table's tiles of w-byte words take matrices of
// a kind through a padded buffer: words of 1 or 2 bytes, in tiles of more
// than 8 rows (more than 8 lines in one L1 set, or 4 in each of two where
// dst's rows crowd them too; NEON's tiles of 2-byte words have 8);
// streamed ones, bytes in tiles that stream (streamingTiles).
func pads(table *simd.Table, w int, kind padKind) bool {
	ks := tilesOf(table.Tiles, w)
	return w <= 2 && len(ks) > 0 && ks[0].B > 8 && (kind != streamed || w == 1 && streamingTiles(table, w))
}

// streamingTiles reports whether a table's tiles of w-byte words stream
// out of padded blocks: its tile kernels with streaming twins (twins), or
// for bytes its stream tiles (AVX2's columns), which take matrices of
// whole lines of dst rows only.
func streamingTiles(table *simd.Table, w int) bool {
	return twins(table, w) || w == 1 && len(tilesOf(table.StreamTiles, w)) > 0
}

// twins reports whether a table has tile kernels of w-byte words with
// streaming twins.
func twins(table *simd.Table, w int) bool {
	return slices.ContainsFunc(tilesOf(table.Tiles, w), func(k simd.TileKernel) bool { return k.NT })
}

// paddedMatrix is a matrix of w-byte words of rows rows and cols
// columns of a kind, src rows a multiple of 4 KiB apart (rng nil: 4 KiB
// exactly, and packed dst rows where spread).
func paddedMatrix(rng *rand.Rand, rows, cols, w int, kind padKind) engine.Matrix {
	intN := func(n int) int {
		if rng == nil {
			return 0
		}
		return rng.IntN(n)
	}
	m := engine.Matrix{Rows: rows, Cols: cols, SrcRow: (cols*w + 4095) &^ 4095 << intN(2), DstRow: rows*w + w*intN(3)}
	switch kind {
	case bothCrowded:
		m.SrcRow = (cols*w+2047)&^2047 | 2048
		fallthrough
	case crowded:
		m.DstRow = (rows*w+2047)&^2047 | 2048
	case streamed:
		m.DstRow, m.Streaming = (rows*w+4095)&^4095, true
	}
	return m
}

// TestMatrixPadded checks the calls that move matrices of bytes and
// 2-byte words whose src rows lie a multiple of 4 KiB apart block by
// block through a padded buffer, against matrixRef: rows and columns a
// whole number of blocks or not, fewer columns left than a tile or more,
// with repetitions and groups, dst rows of every kind. Every tier whose
// tiles of such words pads must take them so.
func TestMatrixPadded(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 36))
	for name, table := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		for _, w := range []int{1, 2} {
			if len(tilesOf(table.Tiles, w)) == 0 {
				continue
			}
			for _, kind := range padKinds {
				want, padded := pads(table, w, kind), 0
				for i := range many(8) {
					rows, cols := paddedShape(w, kind)
					reps, groups, down, across := 1+rng.IntN(2), 1+rng.IntN(2), 1+rng.IntN(5), 1+rng.IntN(2)
					if kind == streamed { // blocks of half the L2: tensors of at most 8 MiB, for the emulators' 256 MiB
						reps, groups, down, across = 1, 1, 1+rng.IntN(3), 1
					}
					moreRows, moreCols := rng.IntN(2)*rng.IntN(rows), rng.IntN(2)*rng.IntN(cols)
					if i == 0 && kind == streamed { // whole lines of each dst row, as AVX2's byte columns need
						moreRows, moreCols = 0, 0
					}
					m := paddedMatrix(rng, rows/2*down+moreRows, cols*across+moreCols, w, kind)
					if checkStaged(t, name, set, withGroups(m, w, reps, groups, 32/w*rng.IntN(3)), w) {
						padded++
					}
				}
				if want && padded == 0 {
					t.Errorf("%s: %d-byte words, dst rows of kind %d: no matrix went through a padded buffer", name, w, kind)
				}
			}
		}
	}
}

// TestMatrixPaddedGuardPages runs the padded calls on matrices whose last
// dst row and last src row end against inaccessible pages, at the row
// and column counts next to a whole number of blocks and of tiles, and
// with fewer rows than a block (a block of whole tiles then).
func TestMatrixPaddedGuardPages(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 37))
	for name, table := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		for _, w := range []int{1, 2} {
			for _, kind := range padKinds {
				if !pads(table, w, kind) {
					continue
				}
				rows, cols := paddedShape(w, kind)
				for _, r := range []int{rows / 2, rows/2 + 1, rows, rows + 1, 2*rows - 1, 2 * rows} {
					if kind == streamed && !twins(table, w) && r*w%64 != 0 {
						continue // the stream tiles' columns are whole lines
					}
					for _, c := range []int{cols, cols + 1, cols + 15, cols + 16, 2*cols - 1} {
						if testing.Short() && c != cols+1 {
							continue
						}
						checkStagedGuarded(t, name, set, withGroups(paddedMatrix(rng, r, c, w, kind), w, 1, 1, 0), w)
					}
				}
			}
		}
	}
}

// TestMatrixPaddedOutgrown checks the padded calls of matrices that
// outgrow the shared cache (engine.PaddedTiles), whose tiles stream out
// of taller and wider blocks, against matrixRef: one matrix of each
// width, its dst rows spread, as large as it takes.
func TestMatrixPaddedOutgrown(t *testing.T) {
	if testing.Short() {
		t.Skip("tensors of 16 MiB or more")
	}
	bytes := 1 << 20
	for !engine.Streams(engine.PaddedTiles, bytes) {
		bytes *= 2
	}
	rng := rand.New(rand.NewPCG(7, 38))
	for name, table := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		for _, w := range []int{1, 2} {
			if !pads(table, w, spread) || !streamingTiles(table, w) {
				continue
			}
			rows := 640 / w // two blocks and a half of 256 bytes of each dst row
			m := withGroups(paddedMatrix(rng, rows, bytes/(rows*w)+rng.IntN(100), w, spread), w, 1, 1, 0)
			m.Streaming = true
			if !simd.StreamsPadded(&m, w) {
				t.Fatalf("%s: %d-byte words %+v: the padded blocks do not stream", name, w, m)
			}
			if !checkStaged(t, name, set, m, w) {
				t.Errorf("%s: %d-byte words %+v: not through a buffer", name, w, m)
			}
		}
	}
}

// TestStreamingInPlace: where isa.CrowdedStreams says, a streaming
// matrix of 2-byte words whose src and dst rows crowd the L1 (2 KiB
// apart), and whose padded blocks would not stream, goes in place in the
// streaming twins where the tier's tiles have them, right; without the
// streaming, and on other CPUs, through a padded buffer.
func TestStreamingInPlace(t *testing.T) {
	const w = 2
	for name, table := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		if !twins(table, w) {
			continue
		}
		for _, streaming := range []bool{false, true} {
			m := engine.Matrix{Rows: 512, Cols: 320, SrcRow: 2048, DstRow: 2048, Reps: 1, Groups: 1, Streaming: streaming}
			want := !streaming || !isa.CrowdedStreams()
			if got := checkStaged(t, name, set, m, w); got != want {
				t.Errorf("%s: %+v: through a padded buffer %v, want %v", name, m, got, want)
			}
		}
	}
}

// TestMatrixBufferedWholeLines checks that streaming matrices whose dst
// rows are no whole number of lines apart (but 32-byte aligned, which
// the streaming run copier takes) stay in place on every tier: the
// copies out of the buffer would leave each line's halves to two blocks,
// far apart (2000x2500 of 2-byte words, avx2 tier, on a Zen 5: 0.38 of a
// non-streaming copy so, 0.54 in place). Few columns (dst rows) keep the
// tensors to a few MiB: the Bochs guests have 256 MiB in all.
func TestMatrixBufferedWholeLines(t *testing.T) {
	for name := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		for _, c := range []struct{ rows, cols, w int }{{2000, 300, 2}, {3000, 260, 4}, {2008, 300, 4}} {
			m := engine.Matrix{Rows: c.rows, Cols: c.cols, SrcRow: c.cols * c.w, DstRow: c.rows * c.w, Reps: 1, Groups: 1, Streaming: true}
			if checkStaged(t, name, set, m, c.w) {
				t.Errorf("%s: %dx%d of %d-byte words, streaming: through a buffer, dst rows %d bytes apart", name, c.rows, c.cols, c.w, m.DstRow)
			}
		}
	}
}
