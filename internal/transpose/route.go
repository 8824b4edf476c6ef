package transpose

import (
	"fmt"
	"slices"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// The one rule of a transpose's route, from its request down to its
// kernels, in the order it is tried:
//
//  1. the request's check (shape.Request.CheckTranspose);
//  2. a block shuffle of more than one block (MatchShuffle) is its
//     operator's prepared call (engine.Kit.Operator);
//  3. an identity, once dims of size 1 are dropped and adjacent dims
//     merged, is a copy;
//  4. the canonical form's innermost work (runs, or a matrix) by the
//     tier's kernels, with as many outer loops as they take; runs of 2,
//     4 or 8 bytes are words, of a matrix of the dims around them;
//  5. elements of several words (3, 6, 12 bytes) whole, where the tier's
//     lane kernels take their width and not the words', or its tiles
//     (AVX2's, of 3 to 15 bytes but 11 and 13: simd.OddRows);
//  6. a gather plan, where the tier has gather kernels, that goes ahead
//     of two passes (gather.Plan.Ahead: of one group of source windows
//     per output vector on AVX-512 VBMI; or, beyond the cache, reading
//     each source line whole or in blocks, where two passes would split
//     elements into words): any element size, one pass;
//  7. two passes through a buffer, where the tier's kernels take a matrix,
//     or runs too short for them (elements of several words), only so
//     (twopass.go), each pass in words or, failing those, in whole
//     elements, after any gather plan of at most isa.Windows.Rivals
//     groups where a pass moves whole elements by tiles, writes thin rows
//     of split elements by tiles or, beyond the private cache, zips whole
//     elements in lanes shorter than a vector (twoPass.gatherFirst);
//  8. any other gather plan;
//  9. the generic tier's kernels, Go tiles and copies, planned as in 4.
//
// Each is cut into pieces for goroutines where the parallel policy lets
// the tensor split (engine.Want), and streams where engine.Streams says.

// Plan is the engine.Planner of transposes: it checks a transpose's
// request and plans it on tier t, a block shuffle (MatchShuffle) as its
// op's prepared call, any other by General. It is where a transpose's
// route is chosen.
func Plan(t *engine.Kit, r *shape.Request) (*engine.Prepared, error) {
	bytes, err := r.CheckTranspose()
	if err != nil {
		return nil, err
	}
	if g, ok := MatchShuffle(r.Dims, r.Perm); ok && !(g.NHWC && bytes > 0 && copiesRuns(t, r.Dims, r.Perm, r.Elem)) {
		g.Elem, g.Workers = r.Elem, r.Workers // it moves the same bytes, on the same goroutines
		return t.Operator(&g), nil
	}
	return General(t, r.Dims, r.Perm, r.Elem, bytes, r.Workers), nil
}

// copiesRuns reports whether tier t's kernels move a transpose of a
// tensor that is not empty as copies of runs: an NHWC block shuffle that they do moves as fast as its
// operator's row calls do, by the same run copier (0.95 to 1.02 of them
// on a Zen 4, one goroutine), and is cut for goroutines along any of its
// loops, where its operator's plan is cut along its groups only, of which
// attention heads split (1x2048x32x128 by 0,2,1,3: a DepthToSpace of
// b = 32) have one.
func copiesRuns(t *engine.Kit, size, perm []int, elem int) bool {
	f := newWordForm(size, perm, elem, engine.Word(elem, engine.MaxTileWord), 1, t.Kernels)
	return f.n > 1 && f.runs && f.call != nil
}

// wholeWords reports whether form e of 16-byte words, which the tier's
// kernels take, moves its matrices faster whole than as runs of 8-byte
// words: thin ones (the lane kernels' zips and unzips, the only kernels
// simd.Matrix gives such words of at most thinSide rows or columns), and
// others whose rows in dst are whole lines, or 2 KiB long. Tiles would
// straddle lines where those rows are short and not whole lines, while
// runs write each row whole (on an Intel Xeon, one goroutine, of a
// non-streaming copy, in tiles and by runs: 49x20000 0.51 and 0.72,
// 127x10000 0.63 and 0.75, 201x6000 0.65 and 0.62; [10,70,62] by
// [2,1,0], 10x62 matrices, 25-26 GB/s and 40).
func wholeWords(e *wordForm) bool {
	m, w := e.m, e.word // m in words
	lines := (m.Rows*w)%64 == 0 && (m.DstRow*w)%64 == 0
	return !e.runs && (e.work() == engine.Rows || lines || m.Rows*w >= 2048)
}

// MatchShuffle is Match where the op's blocks are more than one: those
// the ops' kernels move. A shuffle of one block (H = W = 1 on the depth
// side) is a plain transpose of its dims b, b and C', which a General's
// tiles move faster: NCHW to NHWC of 1x3x224x224 float32 ran at 0.03 of
// copy() as DepthToSpace of one pixel on a Zen 5, 0.57 as a matrix.
func MatchShuffle(size, perm []int) (shape.Geometry, bool) {
	g, ok := Match(size, perm)
	return g, ok && g.H*g.W > 1
}

// General plans, on tier t, a transpose whose request passed its check,
// on at most workers goroutines (0: automatic, as Params.Workers), as a
// prepared call whose calls take dst as their space tensor and src as
// their depth one: the tier's kernels' call inside Repeats of the outer
// loops it does not take, or its pieces for goroutines; a gather plan or
// two passes through a buffer where the tier's kernels take the
// innermost matrix only so (see gathered); else the generic tier's
// kernels, Go tiles and copies, planned alike. Elements move as
// engine.Word says.
func General(t *engine.Kit, size, perm []int, elem, bytes, workers int) *engine.Prepared {
	p, _ := general(t, size, perm, elem, bytes, workers)
	return p
}

// general is General, and whether it moves the tensor otherwise than by
// the generic tier's Go tiles and copies of runs.
func general(t *engine.Kit, size, perm []int, elem, bytes, workers int) (*engine.Prepared, bool) {
	if bytes == 0 {
		return engine.NewPrepared(0, engine.One, nil, nil, nil, t.Name, engine.Text("transpose: an empty tensor")), true
	}
	word := engine.Word(elem, engine.MaxTileWord)
	f := newWordForm(size, perm, elem, word, workers, t.Kernels)
	if f.n <= 1 {
		return copyOf(t.Name, bytes, workers), true
	}
	if run := f.runLen * word; f.runs && run <= engine.MaxTileWord && run&(run-1) == 0 {
		// Runs of 2, 4 or 8 bytes, too short for the run copiers, are
		// words: the transpose of the dims around them moves them whole
		// ([1000,1000,2] of float32 by [1,0,2] is a matrix of 8-byte
		// words), where two passes would split and zip them, and the
		// generic tier copy them one by one.
		return general(t, slices.Clone(f.dims[:f.n-1]), slices.Clone(f.perm[:f.n-1]), run, bytes, workers)
	}
	runs := f.runs // of words
	switch {
	case f.call == nil && word < elem:
		// Elements of several words, whole: the lane kernels take some
		// such widths (zip3x3 of a 3-byte pixel, zip2x6), AVX2's tiles
		// those of 3 to 15 bytes.
		f = newWordForm(size, perm, elem, elem, workers, t.Kernels)
	case f.runs && f.runLen*word == elem && elem == 2*engine.MaxTileWord:
		// 16-byte elements, which the run copiers move one by one, a
		// quarter of a line of dst each: whole, as 16-byte words, where
		// the tier's kernels take them (on an Intel Xeon, one goroutine,
		// 2048x2048 at 12 GB/s in AVX2's tiles and 20-22 in AVX-512's, by
		// runs at 3-4) and wholeWords says.
		if e := newWordForm(size, perm, elem, elem, workers, t.Kernels); e.call != nil && wholeWords(&e) {
			f = e
		}
	}
	if f.call == nil {
		// Two passes that split elements or runs into words cost more
		// than a gather plan beyond the cache (gather.Plan.Ahead).
		costly := runs && !engine.InPrivateCache(bytes)
		if g := gathered(t, &f.canonical, f.word, bytes, workers, costly, engine.TwoPasses); g != nil {
			return g, true
		}
		p := twoPassOf(size, perm, elem, word, bytes, runs, t.Kernels)
		if p == nil && word < elem && !f.runs {
			p = twoPassOf(size, perm, elem, elem, bytes, false, t.Kernels)
		}
		if p == nil && word == elem && !f.runs {
			p = splitTwoPass(size, perm, elem, bytes, false, t.Kernels)
		}
		if p != nil && p.gatherFirst(elem, engine.InPrivateCache(bytes)) {
			if g := gathered(t, &f.canonical, f.word, bytes, workers, costly, engine.OtherKernels); g != nil {
				return g, true
			}
		}
		if p == nil {
			if g := gathered(t, &f.canonical, f.word, bytes, workers, costly, engine.GoLoops); g != nil {
				return g, true
			}
			// Chunks that cut the zips' lanes, after the gathers:
			// 12x2073600 bytes into 2073600x12 on a Zen 5, one
			// goroutine, of copy(), avx2 0.04 (Go) -> 0.39, avx512vbmi
			// 0.49 gathered, 0.39 so.
			if word == elem && !f.runs {
				p = splitTwoPass(size, perm, elem, bytes, true, t.Kernels)
			}
		}
		if p != nil {
			s := p.staged()
			var pieces []engine.Call
			want := engine.WantOf(workers, engine.Tiles)
			if want.Splits(bytes) && p.count > 1 {
				pieces = s.Pieces(want.Pieces(p.count, bytes))
			}
			return prepared(t, bytes, want, pieces, s, p), true
		}
	}
	own := f.call != nil
	if !own {
		f = newWordForm(size, perm, elem, word, workers, engine.Generic().Kernels)
	}
	return prepared(t, bytes, f.want, f.pieces, f.looped(), f.text()), own
}

// gathered is the prepared call of a transpose, canonical form c of
// word-byte words, as tier t's gather plan that goes ahead of rival,
// costly where set (gather.Plan.Ahead); or nil where t has none. Every
// plan goes ahead of Go's loops, which move elements one by one (NCHW
// DepthToSpace b = 2 of 5-byte elements, 1x64x270x480, on an Intel Xeon,
// one goroutine, of a non-streaming copy: 0.42 in Go, 0.83 by AVX-512
// VBMI's gather, 0.77-0.92 by AVX2's). Its calls are cut for goroutines
// along its outermost loop.
func gathered(t *engine.Kit, c *canonical, word, bytes, workers int, costly bool, rival engine.Rival) *engine.Prepared {
	ds := c.strided()
	out, stride := make([]int, c.n), make([]int, c.n)
	for k, j := range c.perm[:c.n] {
		out[k], stride[k] = ds[j].n, ds[j].src
	}
	plan, units, calls := t.Kernels.Gathered(engine.SpaceSpan(bytes), engine.DepthSpan(bytes), out, stride, word, costly, rival)
	if plan == nil {
		return nil
	}
	want := engine.WantOf(workers, engine.Tiles)
	var pieces []engine.Call
	if want.Splits(bytes) && units > 1 {
		k := want.Pieces(units, bytes)
		for i := range k {
			pieces = append(pieces, engine.Calls(calls(engine.Share(i, k, units), engine.Share(i+1, k, units))))
		}
	}
	return prepared(t, bytes, want, pieces, engine.Calls(calls(0, units)), plan)
}

// prepared is the prepared call of call on tier t, shared by goroutines
// as pieces where there are any.
func prepared(t *engine.Kit, bytes int, want engine.Want, pieces []engine.Call, call engine.Call, plan fmt.Stringer) *engine.Prepared {
	if pieces == nil {
		return engine.NewPrepared(bytes, engine.One, []engine.Call{call}, nil, nil, t.Name, plan)
	}
	return engine.NewPrepared(bytes, want, pieces, indexes(len(pieces)), []engine.Call{call}, t.Name, plan)
}

func init() { engine.AsTranspose = asTranspose }

// asTranspose is engine.AsTranspose: operator g as its rank-6 transpose
// (shape.Forms) on tier t, where t's kernels take it; else nil.
func asTranspose(t *engine.Kit, g *shape.Geometry) *engine.Prepared {
	f := g.Form()
	size := f.Sizes([shape.Roles]int{shape.Batch: g.N, shape.Channel: g.Cp, shape.Height: g.H, shape.Width: g.W, shape.Block: g.B})
	if p, own := general(t, size[:], f.Perm[:], g.Elem, g.Len()*g.Elem, g.Workers); own {
		return p
	}
	return nil
}

// twoPassOf is the two passes of a transpose whose innermost work the
// kernels k do not take, if they take both passes: for a matrix, in the
// buffer's layouts innerLast, then innerFirst; for runs, too short for
// the run copiers (elements of several words), in nextLast, then
// unzipFirst, the words of an element a dim of their own.
func twoPassOf(size, perm []int, elem, word, bytes int, runs bool, k engine.Kernels) *twoPass {
	if !runs {
		return newTwoPass(size, perm, elem, bytes, k, innerLast, innerFirst)
	}
	n := len(size)
	words := append(append(make([]int, 0, n+1), size...), elem/word)
	return newTwoPass(words, append(append(make([]int, 0, n+1), perm...), n), word, bytes, k, nextLast, unzipFirst)
}

// copyOf is the prepared call of a transpose that moves nothing but
// copies bytes bytes: Go's copy (the generic tier's runs), cut into
// pieces for goroutines where the tensor may be split. The pieces, as
// many as 4096 for a huge tensor, share two copies, of the two lengths
// they have, each shifted to its place.
func copyOf(tier string, bytes, workers int) *engine.Prepared {
	k, text := engine.Generic().Kernels, engine.Text(fmt.Sprintf("transpose: a copy of %d bytes", bytes))
	want := engine.WantOf(workers, engine.Rows)
	n := want.Pieces(bytes, bytes)
	if !want.Splits(bytes) || n < 2 {
		want, n = engine.One, 1
	}
	var copies [3]engine.Call // of the whole, and of the pieces' two lengths (Share)
	for i, m := range [3]int{bytes, bytes / n, bytes/n + 1} {
		copies[i] = k.TransposeRuns(engine.SpaceSpan(m), engine.DepthSpan(m), engine.TransposeRuns{Len: m, Count: 1, Rows: 1, Groups: 1})
	}
	whole := copies[:1]
	pieces, idx, calls := whole, []int(nil), []engine.Call(nil)
	if n > 1 {
		shifted := make([]engine.Repeat, n)
		pieces, idx, calls = make([]engine.Call, n), indexes(n), whole
		for i := range n {
			lo, hi := engine.Share(i, n, bytes), engine.Share(i+1, n, bytes)
			shifted[i] = engine.Repeat{N: 1, Space: lo, Depth: lo, Call: copies[1+(hi-lo)-bytes/n]}
			pieces[i] = &shifted[i]
		}
	}
	return engine.NewPrepared(bytes, want, pieces, idx, calls, tier, text)
}

// indexes are 0, 1, ..., n-1: the pieces of a prepared call whose calls
// are one piece each.
func indexes(n int) []int {
	at := make([]int, n)
	for i := range at {
		at[i] = i
	}
	return at
}
