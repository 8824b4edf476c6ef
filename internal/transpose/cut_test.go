package transpose_test

import (
	"math/bits"
	"runtime"
	"slices"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/transpose"
	"github.com/blockshuffle/blockshuffle/internal/verify"
)

// cutCases are shapes whose cuts went wrong once (issue 47): matrices
// whose columns would cut narrower than a tile, a matrix of few columns,
// a short outer loop, attention heads, runs too long for their count, a
// tensor of 20 TiB on the Go loops.
var cutCases = []struct {
	size, perm []int
	elem       int
}{
	{[]int{12000, 12001}, []int{1, 0}, 4},
	{[]int{16411, 16417}, []int{1, 0}, 4},
	{[]int{12000, 12001}, []int{1, 0}, 8},
	{[]int{8192, 8192}, []int{1, 0}, 4},
	{[]int{2000, 64000}, []int{1, 0}, 4},
	{[]int{1000000, 20}, []int{1, 0}, 4},
	{[]int{1, 3, 2, 1000, 1000}, []int{2, 1, 0, 4, 3}, 4},
	{[]int{2, 2, 2, 1000, 1000}, []int{2, 1, 0, 4, 3}, 4},
	{[]int{1, 2048, 32, 128}, []int{0, 2, 1, 3}, 2},
	{[]int{2, 3, 1000000}, []int{1, 0, 2}, 4},
	{[]int{1 << (bits.UintSize/2 + 8), 4, 5}, []int{1, 0, 2}, 1}, // 1<<40 on 64-bit, 1<<24 on 32
	{[]int{1, 64, 270, 480}, []int{0, 2, 3, 1}, 4},
}

// TestCutsKeepKernels: at GOMAXPROCS 8 on 8 cores, every case runs on 8
// goroutines, and every piece starts with the kernel the uncut call
// moves the tensor with, its streaming twin included.
func TestCutsKeepKernels(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	defer engine.SetShares(256<<10, 8)()
	for _, tier := range verify.Tiers() {
		k := engine.Lookup(tier.Name)
		for _, c := range cutCases {
			plan := func(workers int) *engine.Prepared {
				r := shape.Request{Transpose: true, Elem: c.elem, Workers: workers, Dims: c.size, Perm: c.perm}
				p, err := transpose.Plan(k, &r)
				if err != nil {
					t.Fatalf("%v by %v: %v", c.size, c.perm, err)
				}
				return p
			}
			whole, cut := plan(1).Describe(), plan(0)
			if r := cut.Describe(); r.Workers != 8 {
				t.Errorf("%s: %v by %v: %s, want 8 goroutines", tier.Name, c.size, c.perm, r)
			}
			for i, kernel := range cut.PieceKernels() {
				if kernel != whole.Kernel {
					t.Errorf("%s: %v by %v: piece %d starts with %s, the uncut call with %s (%s)", tier.Name, c.size, c.perm, i, kernel, whole.Kernel, cut.Describe())
					break
				}
			}
		}
	}
}

// TestCutsMove: tensors cut into many small pieces, along every kind of
// level (outer loops, heads token by token, bands and rows of tiles,
// segments of long runs), move as the naive transpose does, with every
// tier's kernels.
func TestCutsMove(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer engine.SetShares(16<<10, 4)()
	for _, c := range []struct {
		size, perm []int
		elem       int
	}{
		{[]int{1201, 1203}, []int{1, 0}, 4},
		{[]int{400, 401}, []int{1, 0}, 8},
		{[]int{1601, 1031}, []int{1, 0}, 8}, // tiles in blocks of rows
		{[]int{30011, 20}, []int{1, 0}, 4},
		{[]int{20, 30011}, []int{1, 0}, 4},
		{[]int{3, 2, 100, 103}, []int{1, 0, 3, 2}, 4},
		{[]int{1, 512, 16, 64}, []int{0, 2, 1, 3}, 2},
		{[]int{2, 3, 100003}, []int{1, 0, 2}, 4},
		{[]int{1, 16, 135, 240}, []int{0, 2, 3, 1}, 4},
		{[]int{135, 240, 2, 32}, []int{0, 2, 1, 3}, 4},
		{[]int{100000, 4, 5}, []int{1, 0, 2}, 1},
		{[]int{6400, 100, 3}, []int{2, 0, 1}, 2},
	} {
		n := c.elem
		for _, d := range c.size {
			n *= d
		}
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(i*7 + i>>9)
		}
		want := transpose.NaiveBytes(src, c.size, c.perm, c.elem)
		for _, tier := range verify.Tiers() {
			r := shape.Request{Transpose: true, Elem: c.elem, Dims: c.size, Perm: c.perm}
			p, err := transpose.Plan(engine.Lookup(tier.Name), &r)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, n)
			p.Run(got, src)
			if !slices.Equal(got, want) {
				t.Errorf("%s: %v by %v: wrong output (%s)", tier.Name, c.size, c.perm, p.Describe())
			}
			if len(p.PieceKernels()) < 4 {
				t.Errorf("%s: %v by %v: %d pieces (%s)", tier.Name, c.size, c.perm, len(p.PieceKernels()), p.Describe())
			}
		}
	}
}
