package kernels

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/gather"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/simd"
)

// gatherCases are calls for the gather kernels: every op, order and layout
// at block sizes 2, 3, 4 and 8 on small maps whose rows are shorter than a
// vector (where the plans are used), YOLO's, and a few with N > 1, H or
// W = 1 and odd widths, of 1- to 8-byte elements (5 and 7 among them);
// each tensor also as the input of the other op,
// where it is one.
func gatherCases() []shape.Geometry {
	var out []shape.Geometry
	for _, d := range [][5]int{ // n, C', h, w, b on the depth side
		{1, 64, 13, 13, 2}, {2, 3, 5, 7, 2}, {1, 4, 1, 9, 3}, {1, 2, 6, 1, 4}, {3, 2, 3, 5, 4},
		{1, 8, 4, 4, 8}, {1, 1, 2, 3, 8}, {2, 5, 3, 3, 3}, {1, 16, 28, 28, 2}, {1, 3, 1, 1, 2},
	} {
		for _, c := range cases.All(d[0], d[1], d[2], d[3], d[4]) {
			out = append(out, c)
			r := c.Request()
			r.Op ^= 1 // the other op, on the same input
			if g, err := r.Check(); err == nil {
				out = append(out, g)
			}
		}
	}
	return out
}

// eachGatherPlan calls run with every gather plan of every case, element
// width and table under test, and the output the reference writes.
func eachGatherPlan(t *testing.T, run func(name string, g *shape.Geometry, p *gather.Plan, calls engine.Calls, want, src []byte)) {
	rng := rand.New(rand.NewPCG(7, 8))
	planned, edges := 0, 0
	groups := map[string]map[int]bool{} // per table, the kernels' groups the plans ran
	for name := range tablesUnderTest() {
		groups[name] = map[int]bool{}
		set := simd.KernelsOf(name)
		cases.Each(t, rng, gatherCases(), []int{1, 2, 4, 8, 3, 5, 7}, func(c *cases.Call) {
			plan, calls, ok := set.GatherPlan(&c.G)
			if !ok {
				return
			}
			planned++
			groups[name][plan.Fwd.Groups], groups[name][plan.Bwd.Groups] = true, true
			for _, e := range plan.Edges {
				groups[name][e.Prog.Groups] = true
			}
			if len(plan.Edges) > 0 {
				edges++
			}
			run(name, &c.G, plan, calls, c.Want(), c.Src)
		})
	}
	for name, set := range tablesUnderTest() {
		for g, k := range set.Gather {
			if k == nil {
				continue
			}
			// Edge programs too: small calls whose windows leave the
			// source both ways.
			if planned == 0 || edges == 0 {
				t.Fatalf("%d cases had a gather plan, %d with edge programs: want some of each", planned, edges)
			}
			if !groups[name][g] {
				t.Errorf("%s: no plan ran the gather kernel of %d groups", name, g)
			}
		}
	}
	t.Logf("%d plans run, %d with edge programs", planned, edges)
}

// TestGather runs every gather plan of the cases with the kernels against
// the reference: into an output with random bytes around it, which must
// stay, then with both tensors right against inaccessible pages, before and
// after, where a window or a vector that reached a byte outside them would
// fault. One test does both, as the plans and the reference outputs are
// most of its time under emulation.
func TestGather(t *testing.T) {
	eachGatherPlan(t, func(name string, g *shape.Geometry, p *gather.Plan, calls engine.Calls, want, src []byte) {
		run := func(dst, src []byte) {
			if g.ToDepth {
				calls.Run(src, dst)
			} else {
				calls.Run(dst, src)
			}
		}
		pad := bytes.Repeat([]byte{0xa5}, 64)
		buf := append(append(append([]byte{}, pad...), make([]byte, len(want))...), pad...)
		run(buf[64:64+len(want)], src)
		if !bytes.Equal(buf[64:64+len(want)], want) || !bytes.Equal(buf[:64], pad) || !bytes.Equal(buf[64+len(want):], pad) {
			t.Fatalf("%s: %s: wrong output with plan %v", name, describeGeometry(g), p)
		}
		inGuards(t, len(want), len(src), func(dst, s []byte) {
			copy(s, src)
			poison(dst, want)
			run(dst, s)
			if !bytes.Equal(dst, want) {
				t.Fatalf("%s: %s: wrong output in guarded memory", name, describeGeometry(g))
			}
		})
	})
}

func describeGeometry(g *shape.Geometry) string {
	return fmt.Sprintf("%v elem %d", g, g.Elem)
}
