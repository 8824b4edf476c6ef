package stack

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// nchw2 are NCHW calls of block size 2 on the depth side (n, C', h, w):
// YOLO's, rows of one element, H = 1, N > 1, rows that fill a register
// exactly or leave a remainder of rows per group.
var nchw2 = [][4]int{
	{1, 64, 13, 13}, {2, 3, 5, 7}, {1, 1, 1, 1}, {3, 2, 3, 5}, {1, 16, 28, 28},
	{1, 3, 1, 1}, {2, 5, 1, 9}, {1, 4, 7, 1}, {1, 2, 9, 16}, {2, 1, 5, 32}, {1, 7, 3, 11},
}

// each calls run with every plan of every case, order, op, element width
// and stack, with a random source and the reference's output.
func each(t *testing.T, run func(p *Plan, g *shape.Geometry, want, src []byte)) {
	planned := 0
	cases.Each(t, rand.New(rand.NewPCG(1, 2)), cases.Of(nchw2, 2, false), []int{1, 2, 3, 4, 8, 16}, func(c *cases.Call) {
		for _, grain := range []int{1, 2, 4, -1} { // -1: paired
			paired := grain < 0
			if paired {
				grain = 1
			}
			p, ok := New(&c.G, grain, paired)
			row := c.G.W * c.G.Elem
			if ok != (row <= MaxRow && c.G.Elem%grain == 0 && (!paired || c.G.Elem == 1)) {
				t.Fatalf("%v elem %d grain %d: planned %v", c.G, c.G.Elem, grain, ok)
			}
			if ok {
				planned++
				run(p, &c.G, c.Want(), c.Src)
			}
		}
	})
	t.Logf("%d plans", planned)
}

// interpreted runs a plan's Go model of its kernels from src into a new
// output.
func interpreted(p interface{ Interpret(space, depth []byte) }, toDepth bool, src []byte) []byte {
	dst := make([]byte, len(src))
	if !toDepth {
		p.Interpret(dst, src)
	} else {
		p.Interpret(src, dst)
	}
	return dst
}

// TestInterpret runs every plan's table in Go against the reference and
// checks that Reach covers exactly the tensors.
func TestInterpret(t *testing.T) {
	each(t, func(p *Plan, g *shape.Geometry, want, src []byte) {
		depth, space, ok := p.Reach()
		if !ok || depth != len(src) || space != len(src) {
			t.Fatalf("%v: reach %d %d %v for %d bytes (%v)", g, depth, space, ok, len(src), p)
		}
		if !bytes.Equal(interpreted(p, g.ToDepth, src), want) {
			t.Fatalf("%v elem %d stack %d paired %v: wrong output (%v)", g, g.Elem, p.Grain, p.Paired, p)
		}
	})
}

// TestReachRejects: arguments no plan makes, or whose reach would overflow,
// are refused before any kernel runs.
func TestReachRejects(t *testing.T) {
	tab := make([]byte, TabBytes)
	tab[MaskDepth] = 0x0f // 4 bytes
	const big = int(^uint(0) >> 1)
	for _, a := range [][5]int{ // stacks, step, last, lastDepth, plane
		{0, 4, 0, 0, 4}, {1, 0, 0, 0, 4}, {1, Vector + 1, 0, 0, 100}, {1, 4, -1, 0, 4},
		{1, 4, 0, 0, 3}, {1, 4, 0, 0, 0}, {1, 4, big, 0, 4}, {1, 4, 0, 0, big / 2},
		{countMax + 1, 4, 0, 0, 4},
		{1, 4, 8, 38, 10},  // the last stack would cross a segment's end
		{1, 4, 12, 12, 10}, // lastDepth is not where byte 12 lies (42)
		{1, 2, 0, 0, 4},    // the depth mask is longer than a stack
	} {
		if _, _, ok := Reach(tab, a[0], a[1], a[2], a[3], a[4]); ok {
			t.Errorf("Reach%v: accepted", a)
		}
	}
	if _, _, ok := Reach(tab[:TabBytes-1], 1, 4, 0, 0, 4); ok {
		t.Error("a short table was accepted")
	}
	// Segments of 6 bytes, stacks of 4: the second stack takes bytes 4 and 5
	// of the first segment and 0 and 1 of the second, which lies 24 bytes
	// on, so the last plane's last byte is 18+24+1; on the space side, one
	// register of 16 bytes four times 4 bytes on.
	tab[MaskSpace] = 0xff
	tab[MaskSpace+1] = 0xff
	if d, s, ok := Reach(tab, 2, 4, 8, 26, 6); !ok || d != 44 || s != 32 {
		t.Errorf("Reach = %d, %d, %v; want 44, 32, true", d, s, ok)
	}
	// A third stack is the last, at byte 8 (26 on the depth side).
	if d, s, ok := Reach(tab, 3, 4, 8, 26, 6); !ok || d != 48 || s != 48 {
		t.Errorf("Reach = %d, %d, %v; want 48, 48, true", d, s, ok)
	}
}
