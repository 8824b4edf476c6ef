package engine

import "sync"

// A Staged call moves a tensor through a buffer of its own, chunk by
// chunk, with two calls a chunk: the first from the chunk of src into the
// buffer, the second from the buffer into the chunk of dst. It is how
// internal/transpose runs a transpose in two passes, and internal/simd
// a matrix's tiles through a buffer. The chunks are the iterations of
// Loops, outermost first; those of the innermost loop's last iteration
// take Last's calls where they have them (a shorter or longer range).
type Staged struct {
	Buf         int // bytes of a chunk's buffer
	Loops       []Loop
	Whole, Last [2]Call
	Count       int // the chunks: the product of the loops' counts
}

// A Loop is N iterations, Src and Dst bytes apart in the two tensors.
type Loop struct{ N, Src, Dst int }

func (s *Staged) Run(dst, src []byte) { s.chunks(dst, src, 0, s.Count) }

// Kernel names the first call's kernel.
func (s *Staged) Kernel() string { return s.Whole[0].Kernel() }

// Pieces are the chunks cut into n calls of consecutive chunks (at most
// one a chunk), for the goroutines of a prepared call to share.
func (s *Staged) Pieces(n int) []Call {
	n = max(1, min(n, s.Count))
	ranges := make([]stagedRange, n)
	out := make([]Call, n)
	for i := range n {
		ranges[i] = stagedRange{s, Share(i, n, s.Count), Share(i+1, n, s.Count)}
		out[i] = &ranges[i]
	}
	return out
}

// A stagedRange is chunks [lo, hi) of a staged call.
type stagedRange struct {
	s      *Staged
	lo, hi int
}

func (c *stagedRange) Run(dst, src []byte) { c.s.chunks(dst, src, c.lo, c.hi) }
func (c *stagedRange) Kernel() string      { return c.s.Kernel() }

// chunks moves chunks [lo, hi) through a buffer of its own.
func (s *Staged) chunks(dst, src []byte, lo, hi int) {
	buf := takeBuf(s.Buf)
	defer giveBuf(buf)
	last := len(s.Loops) - 1
	for i := lo; i < hi; i++ {
		so, do, calls := 0, 0, &s.Whole
		for k, r := last, i; k >= 0; k-- {
			l := s.Loops[k]
			at := r % l.N
			r /= l.N
			so, do = so+at*l.Src, do+at*l.Dst
			if k == last && s.Last[0] != nil && at == l.N-1 {
				calls = &s.Last
			}
		}
		calls[0].Run(buf, src[so:])
		calls[1].Run(dst[do:], buf)
	}
}

// bufs are the staged calls' buffers: a run takes one and gives it back,
// and none is ever freed, so that runs allocate nothing once there are as
// many as runs at once (a sync.Pool is emptied by every GC, and a run
// after it allocated its buffer again).
var bufs struct {
	sync.Mutex
	free [][]byte
}

// minBuf is the least a buffer holds, so that most runs can reuse any:
// internal/transpose's chunks aim at 256 KiB.
const minBuf = 256 << 10

// takeBuf returns a buffer of n bytes.
func takeBuf(n int) []byte {
	bufs.Lock()
	var b []byte
	if k := len(bufs.free); k > 0 {
		b, bufs.free = bufs.free[k-1], bufs.free[:k-1]
	}
	bufs.Unlock()
	if cap(b) < n {
		b = make([]byte, max(n, minBuf))
	}
	return b[:n]
}

func giveBuf(b []byte) {
	bufs.Lock()
	bufs.free = append(bufs.free, b)
	bufs.Unlock()
}
