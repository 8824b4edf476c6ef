package stack

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// rowCases are the cases above plus, with 1-byte elements, rows of every
// length bundles take, H = 1 and 2 (a group of one or two bundles in CRD),
// and N = 2.
func rowCases() [][4]int {
	out := append([][4]int{}, nchw2...)
	for w := 1; w <= MaxBundleRow; w++ {
		out = append(out, [4]int{2, 2, 1, w}, [4]int{1, 3, 2, w})
	}
	return out
}

// eachBundles calls run with every bundle plan of every case, order, op and
// element width, a random source and the reference's output, and checks
// that exactly the calls NewBundles documents have one.
func eachBundles(t *testing.T, run func(p *Bundles, g *shape.Geometry, want, src []byte)) {
	planned := 0
	cases.Each(t, rand.New(rand.NewPCG(3, 4)), cases.Of(rowCases(), 2, false), []int{1, 2, 3, 4, 8, 16}, func(c *cases.Call) {
		d := c.G
		bundles := d.C / 4 * d.H
		if c.G.CRD {
			bundles = d.H
		}
		p, ok := NewBundles(&c.G)
		row := d.W * c.G.Elem
		if want := c.G.Elem <= 8 && c.G.Elem != 3 && row >= MinRow && row <= MaxBundleRow && bundles >= 2; ok != want {
			t.Fatalf("%v elem %d: planned %v", c.G, c.G.Elem, ok)
		}
		if ok {
			planned++
			run(&p, &c.G, c.Want(), c.Src)
		}
	})
	t.Logf("%d plans", planned)
}

// TestBundlesInterpret runs every plan in Go, slop included, against the
// reference, and checks that BundlesReach covers exactly the tensors and that
// the slop of every bundle but the last of a group stays inside the next
// bundle's rows, on both sides (what BundlesReach assumes).
func TestBundlesInterpret(t *testing.T) {
	eachBundles(t, func(p *Bundles, g *shape.Geometry, want, src []byte) {
		depth, space, ok := BundlesReach(p.N, p.Elem, p.Bundles, p.Plane, p.Groups, p.Group)
		if slop := RowSpan(p.N, p.Elem) - p.N; !ok || depth != len(src) || space != len(src) || slop < 0 || slop >= p.N {
			t.Fatalf("%v: reach %d %d %v, slop %d, for %d bytes (%v)", g, depth, space, ok, slop, len(src), p)
		}
		if !bytes.Equal(interpreted(p, g.ToDepth, src), want) {
			t.Fatalf("%v elem %d: wrong output (%v)", g, g.Elem, p)
		}
	})
}

// TestRowsReachRejects: arguments no plan makes, or whose reach would
// overflow, are refused before any kernel runs.
func TestRowsReachRejects(t *testing.T) {
	const big = int(^uint(0) >> 1)
	for _, a := range [][6]int{ // n, w, bundles, plane, groups, group
		{MinRow - 1, 1, 1, 0, 1, 0}, {MaxBundleRow + 1, 1, 1, 0, 1, 0}, {8, 0, 1, 0, 1, 0}, {8, 16, 1, 0, 1, 0},
		{8, 1, 0, 0, 1, 0}, {8, 1, countMax + 1, 0, 1, 0}, {8, 1, 1, -1, 1, 0}, {8, 1, 1, 0, 0, 0},
		{8, 1, 1, 0, 1, -1}, {8, 1, 1, big / 2, 1, 0}, {8, 1, 1, 0, 3, big / 4}, {8, 3, 1, 0, 1, 0}, {12, 8, 1, 0, 1, 0},
	} {
		if _, _, ok := BundlesReach(a[0], a[1], a[2], a[3], a[4], a[5]); ok {
			t.Errorf("BundlesReach%v: accepted", a)
		}
	}
	// Two bundles of 13-byte rows, planes 100 bytes apart, two groups 1000
	// bytes apart: the last row of the last plane of the second group
	// ends at 1000 + 300 + 2*13, the space side at 1000 + 8*13.
	if d, s, ok := BundlesReach(13, 1, 2, 100, 2, 1000); !ok || d != 1326 || s != 1104 {
		t.Errorf("BundlesReach = %d, %d, %v; want 1326, 1104, true", d, s, ok)
	}
}
