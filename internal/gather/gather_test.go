package gather_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/gather"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/random"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// machines are the windows of every ISA with gather kernels.
func machines() map[string]isa.Windows {
	out := map[string]isa.Windows{}
	for _, i := range isa.All {
		if i.Windows.Vector > 0 {
			out[i.Name] = i.Windows
		}
	}
	return out
}

// kernel runs reps tiles of program p, srcRep and dstRep bytes apart: src
// starts at the first tile's source base plus p.Origin, dst at its output.
type kernel func(p *gather.Prog, dst, src []byte, reps, srcRep, dstRep int)

// run performs a planned call on whole tensors dst and src with k, as the
// gather calls of internal/simd do: Walk's units in two pieces, where
// there are two, and each repeat's body run as many times, shifted.
func run(pl *gather.Plan, k kernel, dst, src []byte) {
	sb, db := 0, 0 // the shift of the repeats around
	f := func(p *gather.Prog, s, d, reps, srcRep int) {
		if p == nil {
			panic("no program for a tile")
		}
		k(p, dst[db+d:], src[sb+s+p.Origin:], reps, srcRep, pl.Fwd.Tile)
	}
	repeat := func(count, srcStep, dstStep int, body func()) {
		for i := range count {
			sb, db = sb+i*srcStep, db+i*dstStep
			body()
			sb, db = sb-i*srcStep, db-i*dstStep
		}
	}
	u := pl.Units()
	pl.Walk(len(src), 0, u/2, f, repeat)
	pl.Walk(len(src), u/2, u, f, repeat)
}

// emulate is a kernel that does what the assembly does, window by window,
// and fails the test if a window or a vector leaves its slice.
func emulate(t *testing.T, w isa.Windows) kernel {
	return func(p *gather.Prog, dst, src []byte, reps, srcRep, dstRep int) {
		stride := 1 + p.Groups*w.PerGroup
		for r := range reps {
			s, d := src[r*srcRep:], dst[r*dstRep:]
			for st := range p.Steps {
				at := int(p.Offs[st*stride])
				if at < 0 || at+w.Vector > len(d) || at+w.Vector > p.Tile {
					t.Fatalf("vector %d at %d of a tile of %d leaves dst (%d bytes)", st, at, p.Tile, len(d))
				}
				for k := range p.Groups * w.PerGroup {
					o := int(p.Offs[st*stride+1+k])
					if o < 0 || o+w.Window > len(s) || o+w.Window > p.Span {
						t.Fatalf("window %d of vector %d at %d leaves src (%d bytes, span %d)", k, st, o, len(s), p.Span)
					}
				}
				for l := range w.Vector {
					d[at+l] = s[p.Bytes(w, st, l)]
				}
			}
		}
	}
}

// check runs one case with every machine's plan, if it has one, against
// the reference, and reports how many machines planned it.
func check(t *testing.T, g shape.Geometry, elem int, rng *rand.Rand) (planned, edges int) {
	t.Helper()
	g.Elem = elem
	n := g.Len() * elem
	src := random.Bytes(rng, n)
	want := make([]byte, n)
	ref.RunBytes(&g, want, src)
	for name, w := range machines() {
		p, ok := gather.New(w, &g)
		if !ok {
			continue
		}
		planned++
		if len(p.Edges) > 0 {
			edges++
		}
		got := make([]byte, n)
		run(p, emulate(t, w), got, src)
		if !bytes.Equal(got, want) {
			t.Fatalf("%v, %d-byte elements, %s windows: wrong output (plan %+v)", g, elem, name, *p)
		}
	}
	return planned, edges
}

func TestPlans(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var all []shape.Geometry
	all = append(all, cases.Edge()...)
	for _, d := range [][5]int{{1, 64, 13, 13, 2}, {2, 3, 5, 7, 3}, {1, 16, 8, 8, 8}, {3, 2, 4, 3, 4}, {1, 4, 28, 28, 2}} {
		all = append(all, cases.All(d[0], d[1], d[2], d[3], d[4])...)
	}
	all = append(all, cases.Random(rng, 300, 1<<14)...)
	planned, edges, total := 0, 0, 0
	for _, c := range all {
		for _, elem := range []int{1, 2, 4, 8, 3} {
			if c.Len()*elem > 1<<17 {
				continue
			}
			p, e := check(t, c, elem, rng)
			planned, edges, total = planned+p, edges+e, total+len(machines())
		}
	}
	if planned < total/4 {
		t.Fatalf("only %d of %d (case, machine) pairs had a plan", planned, total)
	}
	// Small calls whose tiles' windows leave the source both ways run
	// edge programs: some of the cases must.
	if edges == 0 {
		t.Fatal("no plan had an edge program")
	}
	t.Logf("%d of %d (case, machine) pairs planned, %d with edge programs", planned, total, edges)
}

// TestEdges: the one tile of a small call, whose windows leave the source
// both ways, gets an edge program whose windows stay inside it.
func TestEdges(t *testing.T) {
	w := machines()["AVX512VBMI"]
	r := shape.Request{Elem: 1, Dims: []int{1, 36, 10, 10, 3}}
	g, err := r.Check()
	if err != nil {
		t.Fatal(err)
	}
	pl, ok := gather.New(w, &g)
	if !ok {
		t.Fatal("no plan")
	}
	if len(pl.Edges) != 1 {
		t.Fatalf("%v: %d edge programs, want 1", pl, len(pl.Edges))
	}
	e := pl.Edges[0]
	if e.Base+e.Prog.Origin < 0 || e.Base+e.Prog.Origin+e.Prog.Span > 3600 {
		t.Errorf("edge program at %d: windows from %d to %d, want inside [0, 3600)", e.Base, e.Base+e.Prog.Origin, e.Base+e.Prog.Origin+e.Prog.Span)
	}
}

// TestNoPlan: a call shorter than a vector has no plan.
func TestNoPlan(t *testing.T) {
	w := machines()["AVX512VBMI"]
	r := shape.Request{Elem: 1, Dims: []int{1, 4, 1, 1, 2}}
	tiny, _ := r.Check()
	if p, ok := gather.New(w, &tiny); ok {
		t.Errorf("a 4-byte call has plan %v, want none (less than a vector)", p)
	}
}

// TestShort: only NCHW DepthToSpace with output rows shorter than a
// vector, on kernels whose plans beat the row kernels there.
func TestShort(t *testing.T) {
	w := isa.Windows{Vector: 64, ShortRows: true}
	for _, c := range []struct {
		toDepth, nhwc bool
		w, b          int // depth-side width, block size
		elem          int
		want          bool
	}{
		{false, false, 13, 2, 1, true},  // 26-byte rows
		{false, false, 13, 2, 2, true},  // 52
		{false, false, 16, 2, 2, false}, // 64
		{false, true, 13, 2, 1, false},  // NHWC
		{true, false, 13, 2, 1, false},  // SpaceToDepth
		{false, false, 13, 1, 1, false}, // b = 1, a copy
	} {
		g := shape.Geometry{ToDepth: c.toDepth, NHWC: c.nhwc, B: c.b, Elem: c.elem, N: 1, C: c.b * c.b, H: 2, W: c.w, Cp: 1}
		if got := gather.Pays(&g, w); got != c.want {
			t.Errorf("%+v: Short = %v, want %v", c, got, c.want)
		}
		if w := (isa.Windows{Vector: 64}); gather.Pays(&g, w) {
			t.Errorf("%+v: Short = true on kernels without ShortRows", c)
		}
	}
}

// TestAhead: a plan of more groups than W.Ahead goes ahead of costly two
// passes (which split its elements into words, on tensors beyond a core's
// cache) where its output reads each source line whole before moving on,
// or its reps go in blocks.
func TestAhead(t *testing.T) {
	w := machines()["AVX2"]
	w.Ahead = 0
	for _, c := range []struct {
		name         string
		size, stride []int
		elem         int
		blocks       int // the block budget (block): 0, none
		want         bool
	}{
		// [b][H][W] rows zipped into [H][W][b]: each plane's rows read along.
		{"DepthToSpace b = 2, NCHW", []int{64, 2, 480, 2}, []int{480, 64 * 2 * 480, 1, 64 * 480}, 5, 0, true},
		// [H][W][b] unzipped: each line read for both planes, far apart.
		{"SpaceToDepth b = 2, NCHW", []int{2, 64, 240}, []int{1, 480, 2}, 3, 0, false},
		// A matrix: a word or two of each line, then the next line.
		{"2000x2000 matrix", []int{2000, 2000}, []int{1, 2000}, 7, 0, false},
		// NCHW to NHWC of three channels: three planes read along.
		{"NCHW to NHWC", []int{224 * 224, 3}, []int{1, 224 * 224}, 7, 0, true},
		// As SpaceToDepth above, whose reps go in blocks: each line read
		// from memory once, for both planes.
		{"SpaceToDepth b = 2, NCHW, in blocks", []int{2, 64, 240}, []int{1, 480, 2}, 3, 4096, true},
	} {
		restore := gather.SetBlockBudget(c.blocks)
		p, ok := gather.Nest(w, c.size, c.stride, c.elem)
		restore()
		if !ok {
			t.Fatalf("%s: no plan", c.name)
		}
		if got := p.Ahead(true); got != c.want {
			t.Errorf("%s (%v): ahead %v, want %v", c.name, p, got, c.want)
		}
		if p.Ahead(false) || gather.AheadWindows(w, false).MaxGroups > 0 {
			t.Errorf("%s (%v): ahead of two passes that cost little", c.name, p)
		}
		w1 := w
		w1.Ahead = p.Fwd.Groups
		if p, _ := gather.Nest(w1, c.size, c.stride, c.elem); !p.Ahead(false) {
			t.Errorf("%s: a plan of %d groups with W.Ahead %d: not ahead", c.name, p.Fwd.Groups, w1.Ahead)
		}
	}
}

// TestBlocks: plans whose reps read more than the block budget, and that
// have loops that come back to what the reps read (SpaceToDepth in NCHW),
// run in blocks of two reps or more with those loops inside, and still
// move every element where it goes.
func TestBlocks(t *testing.T) {
	defer gather.SetBlockBudget(2048)()
	rng := rand.New(rand.NewPCG(3, 4))
	blocked := 0
	for _, d := range [][5]int{{1, 8, 20, 24, 2}, {2, 3, 9, 10, 3}, {1, 4, 16, 16, 4}} {
		for _, g := range cases.All(d[0], d[1], d[2], d[3], d[4]) {
			for _, elem := range []int{1, 3, 5, 7} {
				check(t, g, elem, rng)
				g.Elem = elem
				if p, ok := gather.New(machines()["AVX2"], &g); ok {
					restore := gather.SetBlockBudget(1 << 30)
					whole, _ := gather.New(machines()["AVX2"], &g)
					restore()
					if len(p.Outer) > len(whole.Outer) {
						blocked++
						if p.Reps < 2 { // a block of one rep only reorders the loops
							t.Errorf("%+v: blocks of %d rep", g, p.Reps)
						}
					}
				}
			}
		}
	}
	if blocked == 0 {
		t.Fatal("no plan ran in blocks")
	}
	t.Logf("%d plans in blocks", blocked)
}
