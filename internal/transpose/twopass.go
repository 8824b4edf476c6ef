package transpose

import (
	"fmt"
	"slices"

	"github.com/blockshuffle/blockshuffle/internal/engine"
)

// A twoPass moves a transpose whose innermost work the kernels do not
// take in two passes through a buffer that each give the kernels their
// work. Where the buffer holds the dims (its layout) makes the passes:
//
//   - innerLast: the input's order, but for the dim that ends dst (inner),
//     which goes last. The first pass is a matrix as wide as the dims that
//     follow inner in src; the second moves runs of inner into place, each
//     run one element. 4x6x8x5x7x3 by [5,3,1,0,4,2] (an 8x3 matrix 105
//     words apart in src, 6720 in dst) is an 8x105 matrix, then runs of 8:
//     on a Zen 5, 4-byte elements at 0.05 of copy() in Go loops, 0.27 so.
//   - innerFirst: inner first, then dst's order: the first pass moves all
//     but inner, within each of its indexes, the second is a matrix of
//     inner's rows. PyTorch's pixel_shuffle to HWC, [1,3,2,2,H,W] by
//     [0,4,2,5,3,1], is then a DepthToSpace per channel, then 3xN matrices.
//   - unzipFirst and nextLast, for runs too short for the kernels, inner
//     being the words of an element of several (a 3-byte pixel), last in
//     src too. unzipFirst: the input's order, but for the dims before
//     inner in dst and in src, which go last, with inner between them.
//     The first pass unzips each row of elements into one row per word,
//     the second moves those rows and the dim before them as one matrix
//     (NCHW DepthToSpace, b = 2: a zip of 2x3 rows). nextLast: the
//     input's order, but for the dim before inner in dst, which goes
//     last. The first pass is a matrix whose columns are whole runs, the
//     second zips each run's words, a matrix of their rows.
//
// It goes chunk by chunk, so that its buffer is small and stays in cache:
// a chunk is the tensor with some input dims fixed at one index (fixed)
// and one cut into ranges of a few indexes (cut), at most chunkBytes
// where the dims a chunk must keep whole allow. Both passes of a chunk
// are strided transposes (nestOf) whose offsets step with the chunk.
//
// Its plan is an engine.Staged call, which runs the chunks.
type twoPass struct {
	layout
	bytes, buf int // of the tensors, and of the largest chunk
	// passes of a chunk of cut's whole range, and of its last, shorter
	// range (c 0: none).
	whole, last passes
	// The chunks' loops, outermost first: the fixed dims, then the ranges
	// of cut (N: how many; steps: of a range of whole's c), their steps in
	// bytes; and how many chunks they make.
	loops []engine.Loop
	count int
}

// A layout is where a two-pass transpose's buffer holds the dims.
type layout uint8

const (
	innerLast layout = iota
	innerFirst
	unzipFirst
	nextLast
)

// order is the buffer's dims of canonical form c in layout l, outermost
// first.
func (l layout) order(c *canonical) []int {
	n := c.n
	inner, before := c.perm[n-1], c.perm[n-2] // the dims that end dst
	var last []int                            // the buffer's innermost, in order
	switch l {
	case innerLast:
		last = []int{inner}
	case innerFirst:
		return append([]int{inner}, c.perm[:n-1]...)
	case unzipFirst: // inner is n-1, src's last
		last = []int{before, inner, n - 2}
	case nextLast:
		last = []int{before}
	}
	o := make([]int, 0, n)
	for j := range n {
		if !slices.Contains(last, j) {
			o = append(o, j)
		}
	}
	return append(o, last...)
}

// passes are the two passes of a chunk whose cut dim has c indexes: their
// forms, and their kernels' calls inside the loops they do not take.
type passes struct {
	c             int
	first, second wordForm
	run           [2]engine.Call
	buf           int // bytes of the buffer, its rows padded (padRows)
}

// chunkBytes is the size a two-pass transpose's chunks aim at: with both
// passes' reads and writes, within a core's L2.
var chunkBytes = 256 << 10

// maxChunk bounds a chunk, and so the buffers two-pass transposes keep:
// beyond it the dims that a chunk keeps whole are too large, and the Go
// loops move the transpose.
const maxChunk = 4 << 20

// newTwoPass returns the two passes of a transpose Check accepted, or
// nil: in chunks of the smallest size, from chunkBytes on, whose passes
// the kernels move in one of the layouts, the first such layout; else in
// the first layout whose passes the kernels move in chunks larger than
// asked, where the dims a chunk keeps whole are. A chunk of fewer rows may
// give a pass a matrix too narrow for the kernels (the second pass's
// columns merge the dims that follow each other in the buffer and in
// dst). A layout whose whole dims make its chunks large gives way to the
// next one whose buffer stays in cache: the pixel shuffle into HWC at
// 135x240 of 8-byte elements moved in innerLast as one 3.1 MB chunk, and
// moves in innerFirst in chunks of 230 KB.
func newTwoPass(size, perm []int, elem, bytes int, k engine.Kernels, layouts ...layout) *twoPass {
	c := canon(size, perm)
	return twoPassOfCanonical(&c, false, elem, bytes, k, layouts...)
}

// twoPassOfCanonical is newTwoPass of canonical form c, its chunks
// cutting what chunked's cutMore says.
func twoPassOfCanonical(c *canonical, cutMore bool, elem, bytes int, k engine.Kernels, layouts ...layout) *twoPass {
	if c.n < 2 {
		return nil
	}
	var over *twoPass // the first whose chunks its whole dims make larger than the budget
	for budget := chunkBytes; ; budget *= 2 {
		for _, l := range layouts {
			t := chunked(c, l, cutMore, elem, bytes, budget, k)
			if t == nil && l == nextLast { // chunks that cut its zips' rows, where whole rows take none
				t = chunked(c, l, true, elem, bytes, budget, k)
			}
			if t != nil && t.buf <= budget {
				return t
			}
			if over == nil {
				over = t
			}
		}
		if budget >= bytes || budget >= maxChunk {
			return over
		}
	}
}

// chunked returns the two passes of canonical form c with its buffer in
// layout l, in chunks of at most budget bytes where its dims allow, or
// nil; cutMore lets nextLast's chunks cut the rows of its zips, and
// innerLast's the first pass's columns.
func chunked(c *canonical, l layout, cutMore bool, elem, bytes, budget int, k engine.Kernels) *twoPass {
	n := c.n
	dims := c.strided() // in elements
	order := l.order(c)
	inner := order[n-1] // the buffer's innermost dim
	// A chunk keeps whole the dims of both passes' innermost work, which
	// the kernels must take as they take the whole tensor's. In
	// innerLast: inner, whose runs the second pass moves, and the input
	// dims after it, which merge into the columns of the first pass's
	// matrix; and the dim before inner in dst, the second pass's
	// one-element step in dst. In innerFirst: src's innermost dim and
	// dst's last two, the second pass's matrix rows (inner) and its
	// columns' innermost dim. In unzipFirst: src's last two, the first
	// pass's rows, and dst's one before inner, which the second pass's
	// rows merge with inner. In nextLast: inner, the words of an
	// element, and the buffer's innermost, the rows of the second pass's
	// zips, which stay long (a 1000x1000 matrix of 3-byte elements moved
	// at 0.8 of copy() so on a Zen 4, 0.56 in ranges of 87 rows); or,
	// with cutMore, where no chunk of whole rows works, inner alone.
	// With cutMore, innerLast's chunks cut the outermost dim after inner.
	whole := func(j int) bool {
		switch l {
		case innerFirst:
			return j == n-1 || j == c.perm[n-1] || j == c.perm[n-2]
		case unzipFirst:
			return j >= n-2 || j == c.perm[n-2]
		case nextLast:
			return j == n-1 || !cutMore && j == inner
		}
		return j >= inner && !(cutMore && j == inner+1) || j == c.perm[n-2]
	}
	// Fix input dims from the outermost while what is left of the tensor
	// is larger than a chunk; cut the next into ranges that fit one.
	t := &twoPass{layout: l, bytes: bytes}
	var fixed [maxRank]bool
	cut, per, left := -1, 0, bytes // per: bytes of one index of cut
	for j := 0; j < n && left > budget; j++ {
		if whole(j) {
			continue
		}
		rest := left / dims[j].n
		if rest > budget {
			fixed[j], left = true, rest
			continue
		}
		cut, per = j, rest
		break
	}
	if cut < 0 && left > maxChunk {
		return nil
	}
	t.whole.c, t.buf = 1, left
	if cut >= 0 {
		// Ranges as nearly equal as the budget allows, so that the last
		// is no sliver too narrow for the kernels (1024x1024 of 3-byte
		// elements: ranges of 85 columns left one of 4).
		d := dims[cut].n
		ranges := (d + budget/per - 1) / (budget / per)
		t.whole.c = (d + ranges - 1) / ranges
		t.last.c = d % t.whole.c
		t.buf = t.whole.c * per
	}
	for _, p := range []*passes{&t.whole, &t.last} {
		if p.c != 0 && !p.plan(dims, fixed, cut, order, l == innerLast, elem, k) {
			return nil
		}
	}
	for j := range n {
		if fixed[j] {
			t.loops = append(t.loops, engine.Loop{N: dims[j].n, Src: dims[j].src * elem, Dst: dims[j].dst * elem})
		}
	}
	if cut >= 0 {
		c := t.whole.c
		t.loops = append(t.loops, engine.Loop{N: (dims[cut].n + c - 1) / c, Src: c * dims[cut].src * elem, Dst: c * dims[cut].dst * elem})
	}
	t.count = 1
	for _, l := range t.loops {
		t.count *= l.N
	}
	return t
}

// plan plans both passes of a chunk of the transpose of dims (with its
// input dims' steps, in elements of elem bytes): fixed dims one index,
// cut p.c of them, the others whole. The buffer holds the chunk's dims in
// order, outermost first, its rows padded (padRows); where its innermost
// ends dst too (runs), the second pass moves its runs as elements. It
// reports whether the kernels move both passes.
func (p *passes) plan(dims []dim, fixed [maxRank]bool, cut int, order []int, runs bool, elem int, k engine.Kernels) bool {
	n := len(dims)
	counts := make([]int, n)
	for j, d := range dims {
		switch {
		case fixed[j]:
			counts[j] = 1
		case j == cut:
			counts[j] = p.c
		default:
			counts[j] = d.n
		}
	}
	buf := make([]int, n) // the buffer's steps
	step := 1
	for i := n - 1; i >= 0; i-- {
		buf[order[i]], step = step, step*counts[order[i]]
		if i == n-1 && !runs {
			step = padRows(step, elem)
		}
	}
	p.buf = step * elem
	inner, run := order[n-1], 1 // the second pass's element: a run of inner, or one element
	if runs {
		run = dims[inner].n
	}
	first, second := make([]dim, 0, n), make([]dim, 0, n)
	for j := range n {
		first = append(first, dim{counts[j], dims[j].src, buf[j]})
		if !runs || j != inner {
			second = append(second, dim{counts[j], buf[j] / run, dims[j].dst / run})
		}
	}
	var ok1, ok2 bool
	p.first, ok1 = stridedForm(first, elem, k)
	p.second, ok2 = stridedForm(second, elem*run, k)
	if !ok1 || !ok2 {
		return false
	}
	p.run = [2]engine.Call{p.first.looped(), p.second.looped()}
	return true
}

// padRows is the step, in elements of elem bytes, between the rows of
// row elements of the buffer (its innermost dim, where the second pass
// moves no runs of it): row, or, where rows so far apart would fall in
// few L1 sets (engine.Crowded: a multiple of 2 KiB apart), the fewest
// elements more that make them a line or more longer (the kernels took
// the passes of every one of 13,080 random transposes so padded, as they
// took them unpadded). On a Zen 5, one goroutine, of a 256 KiB-chunked
// copy, NHWC to NCHW of 3 channels of 7-byte elements went in two passes
// through rows 4 KiB apart: 4096x3 (in the L2) at 0.05 on the avx2 tier
// and 0.16 on avx512vbmi, 4000x3 at 0.16 and 0.24.
func padRows(row, elem int) int {
	if !engine.Crowded(row * elem) {
		return row
	}
	return row + (lineBytes+elem-1)/elem
}

// lineBytes is the size of a cache line.
const lineBytes = 64

// minMatrix is the fewest bytes a pass's matrices may hold: the kernels
// move a 32-byte register at least each, and smaller matrices give them
// too little work per row. On a Zen 4, NHWC CRD DepthToSpace of 5-byte
// elements (passes of 2x5 byte matrices, then 15x2) ran at 0.57 of the
// Go loops; the 3x3 matrices of 4-byte words in pixel_shuffle to HWC of
// 12-byte elements at 0.73 of copy().
const minMatrix = 32

// stridedForm is the form of a transpose given as dims with their steps
// in elements of elem bytes, moving words as engine.Word says, or whole
// elements of several words where the kernels take those and not the
// words, with the kernels k; ok is false where they have no call for it,
// or where its matrices are smaller than minMatrix.
func stridedForm(dims []dim, elem int, k engine.Kernels) (f wordForm, ok bool) {
	for _, word := range [2]int{engine.Word(elem, engine.MaxTileWord), elem} {
		f = wordForm{word: word, size: elem}
		words := elem / word
		in := make([]dim, 0, len(dims)+1)
		for _, d := range dims {
			in = append(in, dim{d.n, d.src * words, d.dst * words})
			f.size *= d.n
		}
		in = append(in, dim{words, 1, 1})
		if f.nest, ok = nestOf(in, false); ok && (f.runs || f.m.Rows*f.m.Cols*word >= minMatrix) {
			if f.call, f.fold = f.wholeCall(k); f.call != nil {
				return f, true
			}
		}
		if word == elem { // an element of one word: tried once
			break
		}
	}
	return f, false
}

// gatherFirst reports whether a gather plan (of at most Rivals groups)
// goes ahead of these two passes, where one:
//   - moves words whose size is not a power of two (whole elements of 3
//     to 15 bytes) by tiles, matrices neither of whose sides is thin
//     (NCHW SpaceToDepth, b = 2, of 1x64x270x480 of 5-byte elements on
//     AVX2, one goroutine, 0.70 of mem gathered, 0.36 in two passes);
//   - moves, by tiles, matrices of words of an element split in several
//     into rows of fewer bytes than a vector: a tile kernel writes such
//     rows in a strip of whole tiles and one shifted back over most of
//     it. On a Zen 5, one goroutine, of a 256 KiB-chunked copy, NCHW to
//     NHWC of three 7-byte channels (rows of 21 bytes, 3x4096) ran at
//     0.16 on avx2 in two passes, 0.28-0.29 gathered; NHWC CRD
//     DepthToSpace b = 2 of 1x64x270x480 7-byte elements (rows of 28) at
//     0.37-0.38 and 0.44-0.51, avx512vbmi 0.35-0.39 and 0.64-0.66. Where
//     the thin side is the tiles' source rows (NHWC to NCHW, 4096x3), the
//     gathers did not gain (avx512bw 0.21-0.22 in two passes, 0.16);
//   - or, beyond the private cache (inCache false), zips or unzips whole
//     elements in lanes of fewer bytes than a vector (matrices with a
//     thin side whose long side is short), each lane's end its whole
//     work: NHWC CRD DepthToSpace of 1x27x224x224 b = 3 of 3-byte
//     elements, Zen 5, of copy(), avx2 0.24-0.27 in two passes,
//     0.27-0.32 gathered, avx512vbmi 0.21-0.27 and 0.38-0.42; in the L2,
//     1x12x64x64 b = 2 of 6-byte elements, avx2 0.15-0.16 and 0.10.
//     Where the passes split elements into words, gather.Plan.Ahead
//     weighs them (costly).
func (t *twoPass) gatherFirst(elem int, inCache bool) bool {
	for _, f := range []*wordForm{&t.whole.first, &t.whole.second} {
		switch {
		case f.runs:
		case f.work() != engine.Rows: // tiles
			if f.word&(f.word-1) != 0 || f.word < elem && f.m.Rows*f.word < thinBytes {
				return true
			}
		case f.word == elem && max(f.m.Rows, f.m.Cols)*f.word < thinBytes && !inCache:
			return true
		}
	}
	return false
}

// thinBytes is the size of an AVX2 vector.
const thinBytes = 32

// staged is the call that runs the passes, chunk by chunk.
func (t *twoPass) staged() *engine.Staged {
	return &engine.Staged{Buf: t.whole.buf, Loops: t.loops, Whole: t.whole.run, Last: t.last.run, Count: t.count}
}

// String says how the passes move the tensors.
func (t *twoPass) String() string {
	p := &t.whole
	return fmt.Sprintf("transpose in two passes through chunks of %d bytes: %s, by %s; then %s, by %s",
		t.buf, p.first.how(), p.run[0].Kernel(), p.second.how(), p.run[1].Kernel())
}

// splitTwoPass is the two passes of a transpose whose output's or
// input's innermost dim is too thin for tiles and too thick for a zip's
// lanes (9 to 15 words: NCHW to NHWC of 12 uint8 channels, or back):
// that dim split in two factors, each pass a zip of one factor's lanes
// (of words of the other's on the way), in innerLast for the output's
// dim, unzipFirst for the input's; with cutColumns, asked where the
// uncut split found none, in innerLast's chunks that cut its zips' lanes
// (whole ones leave none of at most maxChunk). Nil where the dim has no
// factors or the kernels take neither split.
func splitTwoPass(size, perm []int, elem, bytes int, cutColumns bool, k engine.Kernels) *twoPass {
	const maxSplit = 8 // a zip's b; planning 13x720720 bytes with every factor of 720720 took 30 ms
	c := canon(size, perm)
	n := c.n
	if n < 2 || n >= maxRank {
		return nil
	}
	first, second := c.perm[n-1], n-1 // the innermost dims of dst and src
	if c.dims[second] < c.dims[first] {
		first, second = second, first // the thinner first
	}
	for _, j := range [2]int{first, second} {
		l, d := innerLast, c.dims[j]
		if j == n-1 {
			if cutColumns {
				continue // unzipFirst's chunks are the uncut ones
			}
			l = unzipFirst
		}
		for a := 2; a <= maxSplit && a < d; a++ {
			for _, outer := range [2]int{a, d / a} {
				if d%a != 0 {
					break
				}
				s := c.split(j, outer)
				if t := twoPassOfCanonical(&s, cutColumns, elem, bytes, k, l); t != nil {
					return t
				}
			}
		}
	}
	return nil
}
