package kernels

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/simd"
	"github.com/blockshuffle/blockshuffle/internal/stack"
)

// stackCases are NCHW calls of block size 2 for the stacked-row kernels,
// as depth-side (n, C', h, w): YOLO's, rows of one element, H = 1, N > 1,
// rows that fill a register exactly (16 and 32 bytes) or leave rows over
// in a group, and rows of every length up to stack.MaxRow with 1-byte
// elements (every count of rows per register).
func stackCases() [][4]int {
	out := [][4]int{
		{1, 64, 13, 13}, {2, 3, 5, 7}, {1, 1, 1, 1}, {3, 2, 3, 5}, {1, 16, 28, 28},
		{1, 3, 1, 1}, {2, 5, 1, 9}, {1, 4, 7, 1}, {1, 2, 9, 16}, {2, 1, 5, 32}, {1, 7, 3, 11},
	}
	for w := 1; w <= stack.MaxRow; w++ {
		out = append(out, [4]int{1, 3, 5, w})
	}
	return out
}

// eachStackPlan calls run with the stacked-row kernel and plan of every
// case, order, op and element width and every table under test, and the
// output the reference writes.
func eachStackPlan(t *testing.T, run func(name string, f *simd.StackFunc, p *stack.Plan, g *shape.Geometry, want, src []byte)) {
	rng := rand.New(rand.NewPCG(9, 10))
	planned := 0
	for name := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		cases.Each(t, rng, cases.Of(stackCases(), 2, false), []int{1, 2, 3, 4, 6, 8, 16}, func(c *cases.Call) {
			if f, p := set.StackPlan(&c.G); p != nil {
				planned++
				run(name, f, p, &c.G, c.Want(), c.Src)
			}
		})
	}
	for _, set := range tablesUnderTest() {
		if set.StackZip[2] != nil && planned == 0 {
			t.Fatal("no case had a stacked-row plan")
		}
	}
	t.Logf("%d plans run", planned)
}

// runStack runs plan p with kernel f from src into dst.
func runStack(f *simd.StackFunc, p *stack.Plan, dst, src []byte) {
	space, depth := dst, src
	if p.ToDepth {
		space, depth = src, dst
	}
	f.Once(space, depth, p.Tab[:], simd.StackArgs{Stacks: p.Stacks, Step: p.Step, Last: p.Last, LastDepth: p.LastDepth, Plane: p.Plane})
}

// TestStack runs every stacked-row plan of the cases with the kernels
// against the reference, into outputs with random bytes around them, which
// must stay.
func TestStack(t *testing.T) {
	eachStackPlan(t, func(name string, f *simd.StackFunc, p *stack.Plan, g *shape.Geometry, want, src []byte) {
		pad := bytes.Repeat([]byte{0xa5}, 64)
		buf := append(append(append([]byte{}, pad...), make([]byte, len(want))...), pad...)
		runStack(f, p, buf[64:64+len(want)], src)
		if !bytes.Equal(buf[64:64+len(want)], want) || !bytes.Equal(buf[:64], pad) || !bytes.Equal(buf[64+len(want):], pad) {
			t.Fatalf("%s: %s: wrong output with plan %v", name, describeGeometry(g), p)
		}
	})
}

// TestStackGuardPages runs every stacked-row plan with both tensors right
// against inaccessible pages, before and after: a load or store whose mask
// let a byte outside them through would fault.
func TestStackGuardPages(t *testing.T) {
	eachStackPlan(t, func(name string, f *simd.StackFunc, p *stack.Plan, g *shape.Geometry, want, src []byte) {
		inGuards(t, len(want), len(src), func(dst, s []byte) {
			copy(s, src)
			poison(dst, want)
			runStack(f, p, dst, s)
			if !bytes.Equal(dst, want) {
				t.Fatalf("%s: %s: wrong output in guarded memory", name, describeGeometry(g))
			}
		})
	})
}

// TestStackChoice holds OnePass to this CPU's rule: a SpaceToDepth runs in
// stacks wherever they have a plan, a DepthToSpace only on the rows
// isa.ZipStackRow allows, every other row in the bundles.
func TestStackChoice(t *testing.T) {
	most, whole := isa.ZipStackRow()
	for name, table := range tablesUnderTest() {
		set := simd.KernelsOf(name)
		if table.StackZip[1] == nil {
			continue
		}
		for row := 1; row <= stack.MaxRow; row++ {
			for _, g := range cases.Of([][4]int{{1, 4, 6, row}}, 2, false) {
				g.Elem = 1
				plan, _ := set.OnePass(&g)
				_, stacked := plan.(*stack.Plan)
				_, planned := set.StackPlan(&g)
				want := planned != nil && (g.ToDepth || row <= most || whole && (row == stack.Vector || row == stack.Vector/2))
				if stacked != want {
					t.Errorf("%s: %s: in stacks %v, want %v (rows of up to %d bytes, whole registers %v)", name, describeGeometry(&g), stacked, want, most, whole)
				}
			}
		}
	}
}
