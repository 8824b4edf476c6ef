package transpose

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/internal/engine"
)

// A twoPass moves a transpose whose innermost matrix is smaller than the
// kernels' tiles, both its sides strided (4x6x8x5x7x3 by [5,3,1,0,4,2]: an
// 8x3 matrix 105 words apart in src, 6720 in dst), in two passes through
// a buffer that each give the kernels their work: the first moves the dim
// that ends dst (inner) behind all the others, a matrix as wide as the
// dims that follow it in src (8x105), and the second moves runs of that
// dim into place, each run one element. On a Zen 5 that case of 4-byte
// elements moved at 0.05 of copy() with the Go loops, 0.27 in two passes.
//
// It goes chunk by chunk, so that its buffer is small and stays in cache:
// a chunk is the tensor with some input dims fixed at one index (fixed)
// and one cut into ranges of a few indexes (cut), at most chunkBytes
// where the dims a chunk must keep whole allow. Both passes of a chunk
// are strided transposes (nestOf) whose offsets step with the chunk.
//
// Its plan is an engine.Staged call, which runs the chunks.
type twoPass struct {
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

// passes are the two passes of a chunk whose cut dim has c indexes: their
// forms, and their kernels' calls inside the loops they do not take.
type passes struct {
	c             int
	first, second wordForm
	run           [2]engine.Call
}

// chunkBytes is the size a two-pass transpose's chunks aim at: with both
// passes' reads and writes, within a core's L2.
var chunkBytes = 256 << 10

// maxChunk bounds a chunk, and so the buffers two-pass transposes keep:
// beyond it the dims that a chunk keeps whole are too large, and the Go
// loops move the transpose.
const maxChunk = 4 << 20

// newTwoPass returns the two passes of a transpose Check accepted, or nil
// where the kernels would not move both. Its chunks are the smallest, from
// chunkBytes on, whose passes the kernels move: a chunk of fewer rows may
// give a pass a matrix too narrow for them (the second pass's columns
// merge the dims that follow each other in the buffer and in dst).
func newTwoPass(size, perm []int, elem, bytes int, k engine.Kernels) *twoPass {
	c := canon(size, perm)
	if c.n < 2 {
		return nil
	}
	for budget := chunkBytes; ; budget *= 2 {
		if t := chunked(&c, elem, bytes, budget, k); t != nil {
			return t
		}
		if budget >= bytes || budget >= maxChunk {
			return nil
		}
	}
}

// chunked returns the two passes of canonical form c in chunks of at
// most budget bytes where its dims allow, or nil.
func chunked(c *canonical, elem, bytes, budget int, k engine.Kernels) *twoPass {
	n := c.n
	dims := c.strided() // in elements
	inner := c.perm[n-1]
	// A chunk keeps whole the dims of both passes' innermost work, which
	// the kernels must take as they take the whole tensor's: inner, whose
	// runs the second pass moves, and the input dims after it, which
	// merge into the columns of the first pass's matrix; and the dim
	// before inner in dst, the second pass's one-element step in dst.
	whole := func(j int) bool { return j >= inner || j == c.perm[n-2] }
	// Fix input dims from the outermost while what is left of the tensor
	// is larger than a chunk; cut the next into ranges that fit one.
	t := &twoPass{bytes: bytes}
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
		t.whole.c = min(dims[cut].n, budget/per)
		t.last.c = dims[cut].n % t.whole.c
		t.buf = t.whole.c * per
	}
	for _, p := range []*passes{&t.whole, &t.last} {
		if p.c != 0 && !p.plan(dims, fixed, cut, inner, elem, k) {
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
// cut p.c of them, the others whole. The buffer holds the chunk's input
// dims in order but for inner, then inner. It reports whether the
// kernels move both passes.
func (p *passes) plan(dims []dim, fixed [maxRank]bool, cut, inner, elem int, k engine.Kernels) bool {
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
	// The buffer's steps, inner innermost.
	buf := make([]int, n)
	step := counts[inner]
	buf[inner] = 1
	for j := n - 1; j >= 0; j-- {
		if j != inner {
			buf[j], step = step, step*counts[j]
		}
	}
	first, second := make([]dim, 0, n), make([]dim, 0, n)
	run := dims[inner].n // the second pass's element: a run of inner
	for j := range n {
		first = append(first, dim{counts[j], dims[j].src, buf[j]})
		if j != inner {
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

// stridedForm is the form of a transpose given as dims with their steps
// in elements of elem bytes, moving words as engine.Word says, with the
// kernels k; ok is false where they have no call for it.
func stridedForm(dims []dim, elem int, k engine.Kernels) (f wordForm, ok bool) {
	f.word = engine.Word(elem, engine.MaxTileWord)
	words := elem / f.word
	f.size = elem
	in := make([]dim, 0, len(dims)+1)
	for _, d := range dims {
		in = append(in, dim{d.n, d.src * words, d.dst * words})
		f.size *= d.n
	}
	in = append(in, dim{words, 1, 1})
	if f.nest, ok = nestOf(in); !ok {
		return f, false
	}
	f.call, f.fold = f.wholeCall(k)
	return f, f.call != nil
}

// staged is the call that runs the passes, chunk by chunk.
func (t *twoPass) staged() *engine.Staged {
	return &engine.Staged{Buf: t.buf, Loops: t.loops, Whole: t.whole.run, Last: t.last.run, Count: t.count}
}

// String says how the passes move the tensors.
func (t *twoPass) String() string {
	p := &t.whole
	return fmt.Sprintf("transpose in two passes through chunks of %d bytes: %s, by %s; then %s, by %s",
		t.buf, p.first.how(), p.run[0].Kernel(), p.second.how(), p.run[1].Kernel())
}
