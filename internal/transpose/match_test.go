package transpose

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// naive transposes the flat indices 0..n-1 of a row-major tensor: out[k] is
// the input index that lands at output index k.
func naive(size, perm []int) []int32 {
	n := 1
	for _, s := range size {
		n *= s
	}
	src, out := make([]int32, n), make([]int32, n)
	for i := range src {
		src[i] = int32(i)
	}
	ref.Transpose(out, src, size, perm)
	return out
}

// flat is what the operator call g does to the flat indices 0..n-1.
func flat(g shape.Geometry) []int32 {
	n := g.Len()
	src := make([]int32, n)
	for i := range src {
		src[i] = int32(i)
	}
	dst := make([]int32, n)
	ref.Run(&g, dst, src)
	return dst
}

// agree fails t if Match's answer for (size, perm) moves data otherwise
// than the transpose; it reports whether there was a match.
func agree(t testing.TB, size, perm []int) bool {
	t.Helper()
	g, ok := Match(size, perm)
	if !ok {
		return false
	}
	if want, got := naive(size, perm), flat(g); !slices.Equal(want, got) {
		t.Fatalf("shape %v perm %v: matched %v, which moves data otherwise", size, perm, g)
	}
	return true
}

// written is form f at role sizes v as the caller writes it: rank 6, or 5
// without the batch dim.
func written(f *shape.Form, v [shape.Roles]int, rank int) (size, perm []int) {
	s6 := f.Sizes(v)
	size, perm = s6[:], f.Perm[:]
	if rank == 5 {
		size, perm = size[1:], make([]int, 5)
		for k := range perm {
			perm[k] = f.Perm[k+1] - 1
		}
	}
	return size, slices.Clone(perm)
}

// reshaped inserts a dim of size 1 at input position at, or splits input
// dim at into two adjacent factors a*rest, which no reader of the
// transpose can tell apart from the original.
func reshaped(size, perm []int, at, a int) ([]int, []int) {
	if size[at]%a != 0 {
		a = 1
	}
	var s2, p2 []int
	s2 = append(s2, size[:at]...)
	s2 = append(s2, a, size[at]/a)
	s2 = append(s2, size[at+1:]...)
	if a == 1 {
		s2[at], s2[at+1] = size[at], 1 // the size-1 dim goes after
	}
	for _, d := range perm {
		switch {
		case d < at:
			p2 = append(p2, d)
		case d == at:
			p2 = append(p2, at, at+1)
		default:
			p2 = append(p2, d+1)
		}
	}
	return s2, p2
}

func TestCanonicalForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{1, 2, 3, 4, 5}
	for i := range shape.Forms {
		f := &shape.Forms[i]
		for range 400 {
			var v [shape.Roles]int
			for r := range v {
				v[r] = sizes[rng.IntN(len(sizes))]
			}
			for _, rank := range []int{6, 5} {
				if rank == 5 {
					v[shape.Batch] = 1
				}
				size, perm := written(f, v, rank)
				name := fmt.Sprintf("%+v %v", *f, size)
				if !agree(t, size, perm) {
					t.Fatalf("%s perm %v: no match", name, perm)
				}
				for range 3 { // size-1 dims and split dims anywhere
					at := rng.IntN(len(size))
					size, perm = reshaped(size, perm, at, sizes[rng.IntN(len(sizes))])
					if !agree(t, size, perm) {
						t.Fatalf("%s reshaped to %v perm %v: no match", name, size, perm)
					}
				}
			}
		}
	}
}

// The sizes written in a form come back as the Params.
func TestNaturalParams(t *testing.T) {
	for i := range shape.Forms {
		f := &shape.Forms[i]
		v := [shape.Roles]int{shape.Batch: 2, shape.Channel: 3, shape.Height: 5, shape.Width: 7, shape.Block: 4}
		for _, rank := range []int{6, 5} {
			if rank == 5 {
				v[shape.Batch] = 1
			}
			size, perm := written(f, v, rank)
			g, ok := Match(size, perm)
			r := f.Request(v)
			want, err := r.Check()
			if err != nil || !ok || g != want {
				t.Errorf("%v: got %+v %v, want %+v (%v)", size, g, ok, want, err)
			}
		}
	}
}

// randomShape draws rank dims from dims, turning to 1 any that would take
// the element count, which it returns too, past limit.
func randomShape(rng *rand.Rand, rank int, dims []int, limit int) ([]int, int) {
	size := make([]int, rank)
	n := 1
	for k := range size {
		if size[k] = dims[rng.IntN(len(dims))]; n*size[k] > limit {
			size[k] = 1
		}
		n *= size[k]
	}
	return size, n
}

// 100,000 random transposes: every match moves data as the transpose does.
func TestRandomNoFalsePositive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dims := []int{1, 1, 2, 2, 2, 3, 4, 5, 6}
	matched := 0
	const pairs = 100_000
	for range pairs {
		rank := rng.IntN(8)
		size, _ := randomShape(rng, rank, dims, 4096)
		perm := rng.Perm(rank)
		if rng.IntN(2) == 0 { // also the near misses: a form with two dims swapped
			f := &shape.Forms[rng.IntN(len(shape.Forms))]
			var v [shape.Roles]int
			for r := range v {
				v[r] = 1 + rng.IntN(4)
			}
			size, perm = written(f, v, 6)
			a, b := rng.IntN(6), rng.IntN(6)
			perm[a], perm[b] = perm[b], perm[a]
		}
		if agree(t, size, perm) {
			matched++
		}
	}
	t.Logf("%d of %d random transposes matched an op", matched, pairs)
	if matched < pairs/20 {
		t.Errorf("only %d matches: the test no longer exercises the matcher", matched)
	}
}

// Exhaustively: a small transpose that moves data as some op does is matched.
func TestRandomNoFalseNegative(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dims := []int{1, 2, 2, 3, 4}
	cases := 3000
	if testing.Short() {
		cases = 300
	}
	for range cases {
		rank := 1 + rng.IntN(6)
		size, n := randomShape(rng, rank, dims, 96)
		perm := rng.Perm(rank)
		want := naive(size, perm)
		if agree(t, size, perm) {
			continue
		}
		if g, found := anyOp(n, want); found {
			t.Fatalf("shape %v perm %v is %v, not matched", size, perm, g)
		}
	}
}

// anyOp searches every op, order, layout and factorization of n for one
// that moves the flat indices as want.
func anyOp(n int, want []int32) (shape.Geometry, bool) {
	var div []int
	for d := 1; d <= n; d++ {
		if n%d == 0 {
			div = append(div, d)
		}
	}
	for _, op := range []uint8{shape.DepthToSpace, shape.SpaceToDepth} {
		for _, nn := range div {
			for _, c := range div {
				for _, h := range div {
					if n%(nn*c*h) != 0 {
						continue
					}
					for _, bs := range div[1:] { // BlockSize 1 is the identity, always matched
						for _, o := range []uint8{shape.DCR, shape.CRD} {
							for _, l := range []uint8{shape.NCHW, shape.NHWC} {
								r := shape.Request{Op: op, Order: o, Layout: l, Elem: 1, Dims: []int{nn, c, h, n / (nn * c * h), bs}}
								g, err := r.Check()
								if err != nil {
									continue
								}
								if slices.Equal(flat(g), want) {
									return g, true
								}
							}
						}
					}
				}
			}
		}
	}
	return shape.Geometry{}, false
}

func TestInvalid(t *testing.T) {
	for _, c := range []struct{ size, perm []int }{
		{[]int{2, 3}, []int{0}},
		{[]int{2, 3}, []int{0, 0}},
		{[]int{2, 3}, []int{0, 2}},
		{[]int{2, -3}, []int{1, 0}},
		{[]int{math.MaxInt / 2, 3, 2}, []int{0, 2, 1}},
	} {
		if g, ok := Match(c.size, c.perm); ok {
			t.Errorf("%v %v: matched %v", c.size, c.perm, g)
		}
	}
	// Empty and identity transposes match as a plain copy.
	for _, c := range []struct{ size, perm []int }{
		{[]int{}, []int{}},
		{[]int{4, 0, 3}, []int{2, 0, 1}},
		{[]int{3, 4, 5}, []int{0, 1, 2}},
		{[]int{3, 1, 5}, []int{1, 0, 2}},
	} {
		g, ok := Match(c.size, c.perm)
		if !ok || g.B != 1 {
			t.Errorf("%v %v: got %v %v, want a match with BlockSize 1", c.size, c.perm, g, ok)
		}
		agree(t, c.size, c.perm)
	}
}
