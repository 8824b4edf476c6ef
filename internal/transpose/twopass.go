package transpose

import (
	"fmt"
	"sync"

	"github.com/blockshuffle/blockshuffle/internal/engine"
)

// A twoPass moves a transpose whose innermost matrix is smaller than the
// kernels' tiles, both its sides strided (4x6x8x5x7x3 by [5,3,1,0,4,2]: an
// 8x3 matrix 105 words apart in src, 6720 in dst), in two passes through
// a buffer of the tensor's size that each give the kernels their work:
// the first moves the dim that ends dst behind all the others, a matrix
// as wide as the dims that follow it in src (8x105), and the second
// moves runs of that dim into place, each run one element. On a Zen 5
// that case of 4-byte elements moved at 0.05 of copy() with the Go loops,
// 0.27 in two passes; of bytes, whose runs of 8 no run copier takes, at
// 0.008 with the Go loops, 0.15 with runs as 8-byte words.
type twoPass struct {
	first, second General
	bufs          sync.Pool // of *[]byte, each the tensor's size
}

// newTwoPass returns the two passes of a transpose Check accepted, or nil
// where the kernels would not move both.
func newTwoPass(size, perm []int, elem, bytes int, k engine.Kernels) *twoPass {
	last := len(perm) - 1
	for last >= 0 && size[perm[last]] == 1 {
		last--
	}
	if last < 0 {
		return nil
	}
	inner := perm[last] // the input dim that ends dst
	var first, at, mid, second [maxRank]int
	n := 0
	for d := range size {
		if d != inner {
			first[n], n = d, n+1
		}
	}
	first[n] = inner
	for i, d := range first[:len(size)] {
		at[d], mid[i] = i, size[d]
	}
	// The second pass moves the inner dim's runs as elements of
	// size[inner] times the size: runs of 8 bytes become 8-byte words,
	// which the tiles and zips take, where a run copier would not.
	n = 0
	for _, d := range perm {
		if d != inner {
			second[n], n = at[d], n+1
		}
	}
	t := &twoPass{
		first:  newGeneral(size, first[:len(size)], elem, bytes, k, false),
		second: newGeneral(mid[:n], second[:n], elem*size[inner], bytes, k, false),
	}
	if t.first.words.call == nil || t.second.words.call == nil {
		return nil
	}
	t.bufs.New = func() any { b := make([]byte, bytes); return &b }
	return t
}

func (t *twoPass) run(dst, src []byte) {
	b := t.bufs.Get().(*[]byte)
	t.first.Run(*b, src)
	t.second.Run(dst, *b)
	t.bufs.Put(b)
}

func (t *twoPass) String() string {
	return fmt.Sprintf("in two passes through a buffer: %s; then %s", t.first.String(), t.second.String())
}
