package cases

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/random"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Of expands sets of depth-side dims (n, C', h, w) at block size b into
// the cases of both operators and both orders, in the layouts given (NCHW
// false, NHWC true; all of them if none).
func Of(dims [][4]int, b int, nhwc ...bool) []shape.Geometry {
	var out []shape.Geometry
	for _, d := range dims {
		for _, c := range All(d[0], d[1], d[2], d[3], b) {
			if len(nhwc) == 0 || slices.Contains(nhwc, c.NHWC) {
				out = append(out, c)
			}
		}
	}
	return out
}

// A Call is a case at one element width (G.Elem), and a random source.
type Call struct {
	G    shape.Geometry
	Src  []byte
	want []byte
	t    testing.TB
}

// Want is the output the reference writes from c.Src, computed on first
// use: most of a test's time under emulation, spent only on the calls a
// test runs.
func (c *Call) Want() []byte {
	if c.want == nil {
		c.want = make([]byte, len(c.Src))
		ref.RunBytes(&c.G, c.want, c.Src)
	}
	return c.want
}

// Each calls run with every case of cs at every element width of widths,
// with a source drawn from rng, and returns how many calls it made.
func Each(t testing.TB, rng *rand.Rand, cs []shape.Geometry, widths []int, run func(c *Call)) int {
	t.Helper()
	n := 0
	for _, g := range cs {
		for _, es := range widths {
			g.Elem = es
			run(&Call{G: g, Src: random.Bytes(rng, g.Len()*es), t: t})
			n++
		}
	}
	return n
}
