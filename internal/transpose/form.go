package transpose

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/internal/engine"
)

// A wordForm is a transpose in canonical form (dims of size 1 dropped,
// dims that stay adjacent merged) moving words of word bytes: where the
// last dim stays last it copies runs; elsewhere it transposes a matrix
// between the dim that is contiguous in src and the one contiguous in
// dst, by a tier's tile kernels where it has them, in Go tiles where not,
// the other dims as outer loops.
type wordForm struct {
	word int // bytes a word
	canonical
	size int // bytes of the tensors
	nest
	// call is the kernels' call for the innermost work and the fold
	// innermost outer loops, or nil.
	call engine.Call
	fold int
	// want is what the form asks of the parallel policy.
	want engine.Want
	// pieces are the work cut for goroutines to share, where the tensor
	// may be split (Want.Splits): consecutive parts of what looped()
	// moves, in the order it moves them (cut.go).
	pieces []engine.Call
}

// A nest is the loops of a canonical form, in words: the outer loops in
// output order, around either runs (the last dim stays last) or a matrix.
type nest struct {
	outer                   int // outer loops
	count, srcStep, dstStep [maxRank]int
	runs                    bool
	runLen                  int           // words a run, if runs
	m                       engine.Matrix // in words, if not runs
}

// newWordForm is the canonical form of the transpose moving words of word
// bytes, on at most workers goroutines (0: automatic): the input gains a
// last dim of elem/word words, which stays last.
func newWordForm(size, perm []int, elem, word, workers int, k engine.Kernels) wordForm {
	var s, p [maxRank]int
	n := copy(s[:], size)
	copy(p[:], perm)
	s[n], p[n] = elem/word, n
	f := wordForm{word: word, canonical: canon(s[:n+1], p[:n+1])}
	f.size = word
	for _, d := range f.dims[:f.n] {
		f.size *= d
	}
	if f.n <= 1 {
		return f
	}
	dims := f.strided()
	for _, split := range []bool{true, false} {
		f.nest, _ = nestOf(dims, split)
		if f.m.Split == 0 || f.splitPays() {
			if f.call, f.fold = f.wholeCall(k); f.call != nil || f.m.Split == 0 {
				break
			}
		}
	}
	f.want = engine.WantOf(workers, f.work())
	if f.call != nil && f.want.Splits(f.size) {
		f.pieces = f.cut(k)
	}
	return f
}

// thinSide is the most words a matrix side may have for the kernels to
// zip or unzip it whole, near copy()'s speed, rather than move it by
// tiles (simd.MaxBlock).
const thinSide = 8

// splitPays reports whether the form's split matrix (engine.Matrix.Split)
// should go by the lane kernels in one pass, where they take it, rather
// than as a plain one, which the tiers' kernels take in two passes
// through a buffer: but for 6 lanes where both tensors fit a core's
// private cache. On a Zen 5, one goroutine, of a non-streaming copy,
// pixel_shuffle to HWC (dims [C,2,2,H,W] by [3,1,4,2,0]) in two passes
// and in one: C = 3, 135x240 of 8-byte words (3 MiB) 0.54-0.58 and
// 0.95-1.00, 540x960 of bytes 0.39-0.53 and 0.59-0.64 on AVX2,
// 0.37-0.48 and 0.75-0.94 on AVX-512 VBMI; C = 4, 56x56 of 4-byte words
// 0.22 and 0.70; and back (HWC to [C,2,2,H,W]) C = 3, 135x240 of 2-byte
// words 0.34-0.37 and 0.55-0.56 on AVX2. In the cache AVX2's lane
// kernels of 6 (a rare block size: their rows go in 32- and 16-byte
// chunks only) lost: [3,2,2,64,128] of bytes 0.40-0.43 and 0.39-0.41,
// of 4-byte words 0.38-0.43 and 0.30-0.40.
func (f *wordForm) splitPays() bool {
	lanes := f.m.Rows
	if f.m.DstSplit != 0 {
		lanes = f.m.Cols
	}
	return lanes != 6 || !engine.InPrivateCache(f.size)
}

// work is what the form's kernels do, for the parallel policy: runs, and
// matrices with a thin side, move as rows; other matrices by tiles, paged
// where dst's rows lie whole pages apart, crowded where half pages.
func (f *wordForm) work() engine.Work {
	switch {
	case f.runs || min(f.m.Rows, f.m.Cols) <= thinSide:
		return engine.Rows
	case engine.Paged(f.m.DstRow * f.word):
		return engine.PagedTiles
	case engine.Crowded(f.m.DstRow * f.word):
		return engine.CrowdedTiles
	}
	return engine.Tiles
}

// wholeCall is the call of the tier's kernels for the innermost work of f
// and as many of its innermost outer loops as they take, and their
// number; or nil.
func (f *wordForm) wholeCall(k engine.Kernels) (engine.Call, int) {
	fold := min(2, f.outer)
	if f.runs {
		fold = min(3, f.outer)
	}
	extent := make([]int, 0, fold+2)
	extent = append(extent, f.count[f.outer-fold:f.outer]...)
	if !f.runs {
		extent = append(extent, f.m.Cols, f.m.Rows)
	}
	return f.kernelAt(k, fold, extent, 0, 0), fold
}

// kernelAt is the call of the tier's kernels k for part of the innermost
// work of f and its fold innermost outer loops, starting src and dst
// bytes into the tensors: extent holds the iterations of each of those
// loops, outermost first, then, for runs, the bytes of each (all of
// them where it ends there), for a matrix its columns and rows. It is
// nil where the kernels have no call for it.
func (f *wordForm) kernelAt(k engine.Kernels, fold int, extent []int, src, dst int) engine.Call {
	w := f.word
	// loop i from the innermost: count, and steps in bytes; a loop of one.
	loop := func(i int) (count, src, dst int) {
		if i < fold {
			j := f.outer - 1 - i
			return extent[fold-1-i], f.srcStep[j] * w, f.dstStep[j] * w
		}
		return 1, 0, 0
	}
	if f.runs {
		count, sx, dx := loop(0)
		rows, sr, dr := loop(1)
		groups, sg, dg := loop(2)
		r := engine.TransposeRuns{Len: f.runLen * w, Count: count, SrcX: sx, DstX: dx, Rows: rows, SrcRow: sr, DstRow: dr, Groups: groups, SrcGroup: sg, DstGroup: dg,
			Streaming: engine.Streams(f.work(), f.size)}
		if len(extent) > fold {
			r.Len = extent[fold]
		}
		reach := func(x, row, group int) int { return r.Len + (count-1)*x + (rows-1)*row + (groups-1)*group }
		return k.TransposeRuns(engine.SpaceSpan(dst+reach(dx, dr, dg)).From(dst), engine.DepthSpan(src+reach(sx, sr, sg)).From(src), r)
	}
	m := f.matrix(w)
	m.Streaming, m.Outgrown = engine.Streams(f.work(), f.size), engine.Streams(engine.PaddedTiles, f.size)
	m.Reps, m.SrcRep, m.DstRep = loop(0)
	m.Groups, m.SrcGroup, m.DstGroup = loop(1)
	m.Cols, m.Rows = extent[fold], extent[fold+1]
	srcReach, dstReach := m.Reach(w)
	return k.Matrix(engine.SpaceSpan(dst+dstReach).From(dst), engine.DepthSpan(src+srcReach).From(src), m, w)
}

// A dim is one dim of a transpose as a nest takes it: n iterations, src
// and dst words apart.
type dim struct{ n, src, dst int }

// strided is a canonical form of two dims or more as dims, with the
// strides of row-major tensors.
func (f *canonical) strided() []dim {
	n := f.n
	// in[j] is input dim j's stride in src, out[k] output dim k's in dst.
	var in, out [maxRank]int
	in[n-1], out[n-1] = 1, 1
	for j := n - 2; j >= 0; j-- {
		in[j] = in[j+1] * f.dims[j+1]
		out[j] = out[j+1] * f.dims[f.perm[j+1]]
	}
	dims := make([]dim, n)
	for k, j := range f.perm[:n] {
		dims[j] = dim{f.dims[j], in[j], out[k]}
	}
	return dims
}

// nestOf is the nest of a transpose given as dims, in any order, with any
// strides: its dims of size 1 dropped and those that continue each other
// on both sides merged, the outer loops in output order (the largest dst
// step first) around either runs, where one dim has a step of one word on
// both sides, or a matrix between the dim of one word's step in dst (its
// rows) and the one in src (its columns), its thin side in two levels
// where split says and a dim allows (splitOf). ok is false where a side
// has no such dim, or for dims of one element.
func nestOf(dims []dim, split bool) (l nest, ok bool) {
	var d [maxRank + 1]dim
	n := 0
	for _, x := range dims { // in src order: the largest step first
		if x.n == 1 {
			continue
		}
		i := n
		for ; i > 0 && d[i-1].src < x.src; i-- {
			d[i] = d[i-1]
		}
		d[i], n = x, n+1
	}
	m := 0
	for _, x := range d[:n] {
		if m > 0 && d[m-1].src == x.n*x.src && d[m-1].dst == x.n*x.dst {
			d[m-1] = dim{d[m-1].n * x.n, x.src, x.dst}
			continue
		}
		d[m], m = x, m+1
	}
	rows, cols := -1, -1
	for i, x := range d[:m] {
		if x.dst == 1 {
			rows = i
		}
		if x.src == 1 {
			cols = i
		}
	}
	if rows < 0 || cols < 0 {
		return l, false
	}
	two := -1 // the second level of split rows or columns
	if split && rows != cols {
		two = splitOf(d[:m], rows, cols)
	}
	for j, x := range d[:m] { // the outer loops in output order
		if j == rows || j == cols || j == two {
			continue
		}
		i := l.outer
		for ; i > 0 && l.dstStep[i-1] < x.dst; i-- {
			l.count[i], l.srcStep[i], l.dstStep[i] = l.count[i-1], l.srcStep[i-1], l.dstStep[i-1]
		}
		l.count[i], l.srcStep[i], l.dstStep[i] = x.n, x.src, x.dst
		l.outer++
	}
	l.runs = rows == cols
	if l.runs {
		l.runLen = d[rows].n
	} else {
		l.m = engine.Matrix{Rows: d[rows].n, Cols: d[cols].n, SrcRow: d[rows].src, DstRow: d[cols].dst}
	}
	switch {
	case two < 0:
	case d[two].dst == l.m.Rows: // the rows, lanes that dst holds together
		l.m.Split, l.m.SrcSplit, l.m.Rows = l.m.Rows, d[two].src, l.m.Rows*d[two].n
	default: // the columns, lanes that src holds together
		l.m.Split, l.m.DstSplit, l.m.Cols = l.m.Cols, d[two].dst, l.m.Cols*d[two].n
	}
	return l, true
}

// splitOf is the dim of ds, if any (else -1), that makes two levels of a
// matrix's thin side (engine.Matrix.Split), where rows and cols are its
// rows and columns: the next dim in dst after the rows, where dst holds
// each column's words of both whole, or the next in src after the
// columns, where src holds each row's words of both whole; at most
// thinSide words in all.
func splitOf(ds []dim, rows, cols int) int {
	r, c := ds[rows], ds[cols]
	for j, x := range ds {
		switch {
		case j == rows || j == cols:
		case x.dst == r.n && c.dst == x.n*r.n && x.n*r.n <= thinSide:
			return j
		case x.src == c.n && r.src == x.n*c.n && x.n*c.n <= thinSide:
			return j
		}
	}
	return -1
}

// matrix is the nest's matrix with its steps in bytes of w-byte words.
func (l *nest) matrix(w int) engine.Matrix {
	m := l.m
	m.SrcRow, m.DstRow, m.SrcSplit, m.DstSplit = m.SrcRow*w, m.DstRow*w, m.SrcSplit*w, m.DstSplit*w
	return m
}

// looped is the kernels' call inside Repeats of the outer loops it does
// not take, the outermost outside.
func (f *wordForm) looped() engine.Call {
	c, w := f.call, f.word
	for i := f.outer - f.fold - 1; i >= 0; i-- {
		c = &engine.Repeat{N: f.count[i], SpaceStep: f.dstStep[i] * w, DepthStep: f.srcStep[i] * w, Call: c}
	}
	return c
}

// text says how a form moves the tensors, but for the kernel, which a
// prepared call's route names.
func (f *wordForm) text() engine.Text {
	if f.n <= 1 {
		return engine.Text(fmt.Sprintf("transpose: a copy of %d bytes", f.size))
	}
	return engine.Text(fmt.Sprintf("transpose of dims %v by %v, %s", f.dims[:f.n], f.perm[:f.n], f.how()))
}

// how says how a form moves its words.
func (f *wordForm) how() string {
	if f.runs {
		return fmt.Sprintf("%d-byte words: runs of %d words%s", f.word, f.runLen, f.shared())
	}
	split := ""
	if m := f.m; m.Split > 0 {
		side, n := "rows", m.Rows
		if m.DstSplit != 0 {
			side, n = "columns", m.Cols
		}
		split = fmt.Sprintf(" (%s in two dims, %d by %d)", side, n/m.Split, m.Split)
	}
	return fmt.Sprintf("%d-byte words: %dx%d matrices%s into %dx%d%s", f.word, f.m.Rows, f.m.Cols, split, f.m.Cols, f.m.Rows, f.shared())
}

// shared says how many pieces goroutines share, if any.
func (f *wordForm) shared() string {
	if f.pieces == nil {
		return ""
	}
	return fmt.Sprintf(", in %d pieces for goroutines", len(f.pieces))
}
