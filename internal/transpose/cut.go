package transpose

import "github.com/blockshuffle/blockshuffle/internal/engine"

// How a form is cut into pieces for goroutines. A piece is a range of
// what the uncut call moves, in the order it moves it: the form's loops
// (levels), outermost first, are flattened into one sequence of
// iterations, and the pieces are consecutive ranges of it. So each piece
// writes the part of dst the uncut call writes in that stretch, with the
// uncut call's kernel: inside a matrix the levels are bands of its
// columns and blocks of its rows in the units its kernels keep
// (engine.Kernels.MatrixUnits: whole tiles, whole lines of dst), inside a
// run segments of runSegment bytes, and a level's last iteration takes
// the rest, so no part is narrower than a unit. Any shape whose tensor is
// large enough is cut into as many pieces as the policy asks, however
// few its outer iterations.

// A level is one loop of a form as its pieces cut it: n iterations of
// unit each, the last taking the rest of whole, and the steps, in bytes,
// of one of those in src and dst. An outer loop has units of one
// iteration.
type level struct {
	n, unit, whole int
	src, dst       int
}

// runSegment is the length of the segments a run of more than two is cut
// into, a multiple of a cache line.
const runSegment = 64 << 10

// levels are the loops of f, with kernels k, outermost first.
func (f *wordForm) levels(k engine.Kernels) []level {
	w := f.word
	out := make([]level, 0, f.outer+2)
	for i := range f.outer {
		out = append(out, level{f.count[i], 1, f.count[i], f.srcStep[i] * w, f.dstStep[i] * w})
	}
	if f.runs {
		if f.pixelMajor() { // the kernel takes x outside the rows
			out[f.outer-2], out[f.outer-1] = out[f.outer-1], out[f.outer-2]
		}
		if run := f.runLen * w; run >= 2*runSegment {
			out = append(out, level{run / runSegment, runSegment, run, 1, 1})
		}
		return out
	}
	m := f.matrix(w)
	cols, rows := k.MatrixUnits(m, w)
	cols, rows = max(1, min(cols, m.Cols)), max(1, min(rows, m.Rows))
	return append(out,
		level{m.Cols / cols, cols, m.Cols, w, m.DstRow},
		level{m.Rows / rows, rows, m.Rows, m.SrcRow, w})
}

// cut cuts the work of f into pieces, as many as the policy says (Want.
// Pieces); nil where fewer than two, or where the kernels k have no call
// for a piece.
func (f *wordForm) cut(k engine.Kernels) []engine.Call {
	levels := f.levels(k)
	total := 1
	for _, l := range levels {
		total *= l.n
	}
	n := f.want.Pieces(total, f.size)
	if n < 2 {
		return nil
	}
	c := cutter{f: f, k: k, levels: levels, at: make([]int, len(levels)), inKernel: f.outer - f.fold}
	pieces := make([]engine.Call, n)
	for i := range n {
		calls := c.piece(0, engine.Share(i, n, total), engine.Share(i+1, n, total), nil)
		if c.failed {
			return nil
		}
		pieces[i] = engine.Calls(calls)
		if len(calls) == 1 {
			pieces[i] = calls[0]
		}
	}
	return pieces
}

// A cutter makes the calls of pieces of a form.
type cutter struct {
	f        *wordForm
	k        engine.Kernels
	levels   []level
	at       []int // the iteration of each level outside the one being cut
	inKernel int   // levels from here on are inside a kernel call
	whole    []engine.Call
	failed   bool // a kernel call was nil
}

// piece appends the calls of iterations [lo, hi) of the levels from k on
// flattened, inside iteration at[j] of each level j < k.
func (c *cutter) piece(k, lo, hi int, out []engine.Call) []engine.Call {
	if lo >= hi {
		return out
	}
	block := 1
	for _, l := range c.levels[k+1:] {
		block *= l.n
	}
	i0, r0, i1, r1 := lo/block, lo%block, hi/block, hi%block
	if i0 == i1 {
		c.at[k] = i0
		return c.piece(k+1, r0, r1, out)
	}
	if r0 > 0 { // the end of a partial iteration
		c.at[k] = i0
		out = c.piece(k+1, r0, block, out)
		i0++
	}
	if i1 > i0 { // whole iterations
		c.at[k] = i0
		out = append(out, c.iterations(k, i1-i0))
	}
	if r1 > 0 { // the start of a partial iteration
		c.at[k] = i1
		out = c.piece(k+1, 0, r1, out)
	}
	return out
}

// iterations is the call of n whole iterations of level k from at[k], in
// iteration at[j] of each level j < k: a Repeat of one iteration's call
// outside the kernel, the kernel's call inside.
func (c *cutter) iterations(k, n int) engine.Call {
	if k >= c.inKernel {
		return c.kernel(k, n)
	}
	src, dst := c.offsets(k)
	l := c.levels[k]
	return &engine.Repeat{N: n, Space: dst, Depth: src, SpaceStep: l.dst, DepthStep: l.src, Call: c.wholeOf(k + 1)}
}

// wholeOf is the call of every iteration of the levels from k on, from
// the tensors' start.
func (c *cutter) wholeOf(k int) engine.Call {
	if c.whole == nil {
		c.whole = make([]engine.Call, len(c.levels))
	}
	if c.whole[k] == nil {
		saved := append([]int(nil), c.at...)
		clear(c.at)
		c.whole[k] = c.iterations(k, c.levels[k].n)
		copy(c.at, saved)
	}
	return c.whole[k]
}

// offsets are the bytes into src and dst of iteration at[j] of each
// level j <= k.
func (c *cutter) offsets(k int) (src, dst int) {
	for j, l := range c.levels[:k+1] {
		src += c.at[j] * l.unit * l.src
		dst += c.at[j] * l.unit * l.dst
	}
	return src, dst
}

// span is the part of level j that the call of n iterations of level k
// takes: its first unit and its units.
func (c *cutter) span(j, k, n int) (from, units int) {
	l := c.levels[j]
	first, count := 0, l.n
	switch {
	case j < k:
		first, count = c.at[j], 1
	case j == k:
		first, count = c.at[j], n
	}
	from = first * l.unit
	if first+count == l.n {
		return from, l.whole - from
	}
	return from, count * l.unit
}

// kernel is the kernels' call of n iterations of level k from at[k], in
// iteration at[j] of each level j < k, every level after k whole; nil
// (and failed set) where the kernels have none.
func (c *cutter) kernel(k, n int) engine.Call {
	f := c.f
	var src, dst int
	extent := make([]int, len(c.levels))
	for j, l := range c.levels {
		from, units := c.span(j, k, n)
		src += from * l.src
		dst += from * l.dst
		extent[j] = units
	}
	if f.pixelMajor() { // back in the order of the form's loops
		extent[f.outer-2], extent[f.outer-1] = extent[f.outer-1], extent[f.outer-2]
	}
	call := f.kernelAt(c.k, f.fold, extent[c.inKernel:], src, dst)
	if call == nil {
		c.failed = true
		return &engine.Calls{}
	}
	return call
}

// pixelMajor reports whether the kernels take the runs of f, whole, with
// their two innermost outer loops swapped (engine.TransposeRuns.PixelMajor):
// attention heads split (2048 tokens of 32 heads of 256 bytes) stream
// token by token, reading src in order; cut head by head, the pieces ran
// at 0.72 of the uncut call's speed on one goroutine of a Zen 4.
func (f *wordForm) pixelMajor() bool {
	if !f.runs || f.fold < 2 {
		return false
	}
	w, x, r := f.word, f.outer-1, f.outer-2
	runs := engine.TransposeRuns{Len: f.runLen * w, Count: f.count[x], SrcX: f.srcStep[x] * w, DstX: f.dstStep[x] * w,
		Rows: f.count[r], SrcRow: f.srcStep[r] * w, DstRow: f.dstStep[r] * w, Streaming: engine.Streams(f.work(), f.size)}
	return runs.PixelMajor()
}
