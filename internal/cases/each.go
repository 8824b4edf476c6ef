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
// the cases of both operators and both orders, in the layouts given (all
// of them if none).
func Of(dims [][4]int, b int, layouts ...shape.Layout) []Case {
	var out []Case
	for _, d := range dims {
		for _, c := range All(d[0], d[1], d[2], d[3], b) {
			if len(layouts) == 0 || slices.Contains(layouts, c.P.Layout) {
				out = append(out, c)
			}
		}
	}
	return out
}

// A Call is a case at one element width, validated: its geometry and a
// random source.
type Call struct {
	Case
	Elem int
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
		if err := ref.RunBytes(c.Op, c.want, c.Src, c.Elem, c.P); err != nil {
			c.t.Fatalf("%v es=%d: the reference: %v", c.Case, c.Elem, err)
		}
	}
	return c.want
}

// Each calls run with every case of cs at every element width of widths,
// with a source drawn from rng, and returns how many calls it made. A case
// that does not validate fails t: the cases are meant to be valid.
func Each(t testing.TB, rng *rand.Rand, cs []Case, widths []int, run func(c *Call)) int {
	t.Helper()
	n := 0
	for _, c := range cs {
		for _, es := range widths {
			size := c.Len() * es
			g, err := shape.Validate(c.Op, c.P, es, size, size, false)
			if err != nil {
				t.Fatalf("%v es=%d: %v", c, es, err)
			}
			run(&Call{Case: c, Elem: es, G: g, Src: random.Bytes(rng, size), t: t})
			n++
		}
	}
	return n
}
