package transpose_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	_ "github.com/blockshuffle/blockshuffle/dispatch" // the tiers register, and one is chosen
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/simd"
	"github.com/blockshuffle/blockshuffle/internal/transpose"
	"github.com/blockshuffle/blockshuffle/internal/verify"
)

// TestGeneralTiers runs random transposes, planned with the kernels of
// every tier this machine runs, against the naive one: 100,000 of
// randomTranspose's shapes and 20,000 with matrices of tile size and more,
// 10,000 of those with no private cache, then a fifth as many streaming.
func TestGeneralTiers(t *testing.T) {
	count := 100_000
	if testing.Short() {
		count = 5_000
	}
	// One subtest a tier, pass and kind of shape: under Bochs, where this
	// test is the serial log's longest silence, each prints its name as it
	// starts.
	check := func(tier, pass string, count int, seed uint64, draw func(*rand.Rand) (size, perm []int, elem int)) {
		t.Run(tier+pass, func(t *testing.T) {
			transpose.CheckGeneral(t, engine.Lookup(tier), count, rand.New(rand.NewPCG(seed, 1)), draw)
		})
	}
	for _, tier := range verify.Tiers() {
		check(tier.Name, "", count, 33, transpose.RandomTranspose)
		check(tier.Name, "/matrices", count/5, 34, transpose.RandomMatrixTranspose)
	}
	// Again with no private cache, where AVX-512's tiles of matrices of
	// many short rows go in wide bands (simd's bandCols).
	restore := engine.SetPrivateCache(0)
	for _, tier := range verify.Tiers() {
		check(tier.Name, "/uncached/matrices", count/10, 38, transpose.RandomMatrixTranspose)
	}
	restore()
	// Again with every tensor taken for one past the cache: every zip, run
	// copy and tile takes its streaming twin where it has one, and AVX2's
	// half-line tiles of matrices of many short rows go in wide bands.
	defer engine.SetStreamMin(0)()
	for _, tier := range verify.Tiers() {
		check(tier.Name, "/streaming", count/5, 36, transpose.RandomTranspose)
		check(tier.Name, "/streaming/matrices", count/10, 37, transpose.RandomMatrixTranspose)
	}
}

// TestLastRows runs matrices whose rows are not whole tiles, with every
// tier's kernels, against the naive transpose: the last rows go in a
// shorter tile where one divides them (AVX-512's 16 rows of bytes under
// its 64: 80, 96, 144, 160 rows), else, in matrices one or two strips
// high, in strips spread evenly (24, 40, 72, 88, 112 rows), else in a
// tile shifted back; then again with every tensor taken for one past the
// cache, where none spreads.
func TestLastRows(t *testing.T) {
	var shapes [][3]int // rows, columns, element bytes
	for _, rows := range []int{24, 40, 48, 72, 80, 88, 96, 112, 144, 160} {
		for _, cols := range []int{64, 100, 300} {
			for _, elem := range []int{1, 2, 4} {
				shapes = append(shapes, [3]int{rows, cols, elem})
			}
		}
	}
	for _, streaming := range []bool{false, true} {
		for _, tier := range verify.Tiers() {
			i := 0
			draw := func(*rand.Rand) (size, perm []int, elem int) {
				s := shapes[i%len(shapes)]
				i++
				return []int{s[0], s[1]}, []int{1, 0}, s[2]
			}
			t.Run(fmt.Sprintf("%s/streaming=%v", tier.Name, streaming), func(t *testing.T) {
				if streaming {
					defer engine.SetStreamMin(0)()
				}
				transpose.CheckGeneral(t, engine.Lookup(tier.Name), 2*len(shapes), rand.New(rand.NewPCG(39, 1)), draw)
			})
		}
	}
}

// TestGeneralParallel runs transposes large enough to be split among
// goroutines, a matrix cut along its columns and runs cut along their
// innermost loop, with every tier's kernels, against the naive transpose.
// The first matrix's columns are whole lines of dst, which AVX-512's
// tiles write with streaming stores.
func TestGeneralParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("tensors of 16 MiB and more")
	}
	// Streaming starts at a quarter of the LLC, 8 MiB for 32 MiB, whatever
	// this machine reports (480 MiB on one Intel VM here).
	defer engine.SetStreamMin(8 << 20)()
	for _, c := range []struct {
		size, perm []int
		streams    bool
	}{
		{[]int{1, 64, 270, 480}, []int{0, 2, 3, 1}, true}, // one matrix
		{[]int{2, 600, 3500}, []int{0, 2, 1}, false},      // two, the kernels' repetitions
		{[]int{512, 64, 130}, []int{1, 0, 2}, false},      // runs
		{[]int{1, 1601, 1100}, []int{0, 2, 1}, false},     // tiles in blocks of rows (simd's stripsDown)
	} {
		n := 1
		for _, d := range c.size {
			n *= d
		}
		src, want, got := make([]uint32, n), make([]uint32, n), make([]uint32, n)
		for i := range src {
			src[i] = uint32(i)*2654435761 + 1
		}
		ref.Transpose(want, src, c.size, c.perm)
		for _, tier := range verify.Tiers() {
			clear(got)
			g := transpose.General(engine.Lookup(tier.Name), c.size, c.perm, 4, 4*n, 0)
			g.Run(engine.Bytes(got), engine.Bytes(src))
			r := g.Describe()
			if !slices.Equal(got, want) {
				t.Errorf("%s: %v by %v (%s): wrong output", tier.Name, c.size, c.perm, r)
			}
			if !strings.Contains(r.Plan, "pieces") {
				t.Errorf("%s: %v by %v: not split: %s", tier.Name, c.size, c.perm, r)
			}
			if c.streams && strings.HasPrefix(tier.Name, "avx512") && !strings.HasSuffix(r.Kernel, "NT") {
				t.Errorf("%s: %v by %v: not streamed: %s", tier.Name, c.size, c.perm, r)
			}
		}
	}
}

// TestTwoPassChunks runs transposes that move in two passes, with chunks
// as small as a few rows (fixed dims, the cut dim's ranges and its last,
// shorter one), with every tier's kernels, against the naive one.
func TestTwoPassChunks(t *testing.T) {
	count := 4_000
	if testing.Short() {
		count = 400
	}
	for _, tier := range verify.Tiers() {
		k := engine.Lookup(tier.Name)
		if tier.Name == "generic" {
			continue
		}
		for _, chunk := range []int{64, 700, 4096} {
			restore := transpose.SetChunkBytes(chunk)
			rng := rand.New(rand.NewPCG(35, uint64(chunk)))
			draw := func(rng *rand.Rand) (size, perm []int, elem int) {
				for {
					size, perm, elem = transpose.RandomTranspose(rng)
					r := shape.Request{Transpose: true, Elem: elem, Dims: size, Perm: perm}
					n, err := r.CheckTranspose()
					if err != nil {
						continue
					}
					if transpose.TwoPass(transpose.General(k, size, perm, elem, n, 0)) {
						return size, perm, elem
					}
				}
			}
			transpose.CheckGeneral(t, k, count, rng, draw)
			restore()
		}
	}
}

// TestTwoPassLayouts runs a transpose in each layout of two passes'
// buffer, with every SIMD tier's kernels, against the naive one, and
// checks that it takes that layout: each is the one its shape needs.
func TestTwoPassLayouts(t *testing.T) {
	// Chunks of a few rows, but as large as innerLast's whole dims in the
	// rank-6 case (3,360 bytes): a layout whose chunks cannot fit gives
	// way to one whose chunks can.
	defer transpose.SetChunkBytes(4096)()
	for _, c := range []struct {
		layout     string
		size, perm []int
		elem       int
		orNone     bool // or no two passes: a tier whose kernels take neither layout (NEON, of 8-byte words)
	}{
		{"innerLast", []int{4, 6, 8, 5, 7, 3}, []int{5, 3, 1, 0, 4, 2}, 4, false},
		{"innerFirst", []int{1, 3, 2, 2, 6, 40}, []int{0, 4, 2, 5, 3, 1}, 4, false}, // pixel_shuffle to HWC
		{"innerFirst", []int{1, 3, 2, 2, 6, 40}, []int{0, 4, 2, 5, 3, 1}, 8, true},  // where innerLast's chunks would be the whole tensor
		{"nextLast", []int{64, 100}, []int{1, 0}, 3, false},                         // a matrix of RGB pixels
		{"nextLast", []int{3000, 4, 5}, []int{1, 0, 2}, 1, false},                   // runs of 5 bytes, rows cut
		{"unzipFirst", []int{2, 2, 3, 5, 40}, []int{2, 3, 0, 4, 1}, 3, false},       // NCHW DepthToSpace, b = 2
	} {
		for _, tier := range verify.Tiers() {
			if tier.Name == "generic" {
				continue
			}
			k := engine.Lookup(tier.Name)
			if got := transpose.TwoPassLayout(k.Kernels, c.size, c.perm, c.elem); got != c.layout && (got != "" || !c.orNone) {
				t.Errorf("%s: %v by %v of %d-byte elements: two passes in layout %q, want %q", tier.Name, c.size, c.perm, c.elem, got, c.layout)
			}
			transpose.CheckGeneral(t, k, 1, rand.New(rand.NewPCG(38, 1)), func(*rand.Rand) ([]int, []int, int) { return c.size, c.perm, c.elem })
		}
	}
}

// TestTwoPassPaddedRows runs transposes in two passes whose buffer rows
// would lie a multiple of 2 KiB apart, with every SIMD tier's kernels,
// against the naive one, and checks that the plan pads the rows.
func TestTwoPassPaddedRows(t *testing.T) {
	for _, c := range []struct {
		size, perm []int
		elem       int
	}{
		{[]int{4096, 3}, []int{1, 0}, 7},                   // HWC into planes: nextLast, rows of 4096 bytes
		{[]int{4, 2, 2, 5, 2048}, []int{0, 3, 1, 4, 2}, 3}, // NCHW DepthToSpace b = 2: unzipFirst
	} {
		for _, tier := range verify.Tiers() {
			if tier.Name == "generic" {
				continue
			}
			k := engine.Lookup(tier.Name)
			want, padded := transpose.TwoPassBuffers(k.Kernels, c.size, c.perm, c.elem)
			if want == 0 {
				continue // no two passes: a tier without the kernels (NEON)
			}
			if padded <= want {
				t.Errorf("%s: %v by %v of %d-byte elements: a buffer of %d bytes, want more than %d", tier.Name, c.size, c.perm, c.elem, padded, want)
			}
			transpose.CheckGeneral(t, k, 2, rand.New(rand.NewPCG(41, 1)), func(*rand.Rand) ([]int, []int, int) { return c.size, c.perm, c.elem })
		}
	}
}

// TestWholeElements runs transposes of elements of several words that
// only lane kernels of the element's whole width take (zip3x3 of a
// 3-byte pixel, zip2x6 and zip3x6), in one pass or two, with every x86
// SIMD tier's kernels (NEON has other widths), against the naive one.
// The tensors fit in the cache, where no gather of several groups goes
// ahead of two passes.
func TestWholeElements(t *testing.T) {
	defer engine.SetPrivateCache(1 << 20)()
	for _, c := range []struct {
		size, perm []int
		elem       int
		kernel     string // a kernel of the plan
	}{
		{[]int{3, 4096}, []int{1, 0}, 3, "zip3x3"},                            // planes of RGB pixels into HWC
		{[]int{1000, 3}, []int{1, 0}, 6, "unzip3x6"},                          // HWC into planes
		{[]int{1, 3, 2, 2, 45, 80}, []int{0, 4, 2, 5, 3, 1}, 6, "zip3x6"},     // pixel_shuffle to HWC, two passes
		{[]int{1, 3, 14, 16, 14, 16}, []int{0, 2, 4, 3, 5, 1}, 12, "zip3x12"}, // ViT patchify
		{[]int{1, 3, 2, 2, 45, 80}, []int{0, 4, 2, 5, 3, 1}, 9, "zip3x9"},     // two passes, runs of 27 bytes
	} {
		for _, tier := range verify.Tiers() {
			if !strings.HasPrefix(tier.Name, "avx") {
				continue
			}
			k := engine.Lookup(tier.Name)
			if r := routeOf(k, c.size, c.perm, c.elem); !strings.Contains(r.Plan+" "+r.Kernel, c.kernel) {
				t.Errorf("%s: %v by %v of %d-byte elements: %s, want %s", tier.Name, c.size, c.perm, c.elem, r, c.kernel)
			}
			transpose.CheckGeneral(t, k, 1, rand.New(rand.NewPCG(40, 1)), func(*rand.Rand) ([]int, []int, int) { return c.size, c.perm, c.elem })
		}
	}
}

// TestSplitLanes runs transposes whose thin side lies in two dims
// (engine.Matrix.Split): pixel_shuffle to HWC ([N,C,2,2,H,W] by
// [0,4,2,5,3,1]) and back, C of 2 to 4, with every tier's kernels,
// against the naive one; and checks that the SIMD tiers move those of
// 4-, 6- and 8-byte words beyond the private cache in one pass of their
// lane kernels, as the plan says.
func TestSplitLanes(t *testing.T) {
	forward, back := []int{0, 4, 2, 5, 3, 1}, []int{0, 5, 2, 4, 1, 3}
	draw := func(rng *rand.Rand) (size, perm []int, elem int) {
		n, c, h, w := 1+rng.IntN(2), 2+rng.IntN(3), 1+rng.IntN(40), 1+rng.IntN(40)
		elem = []int{1, 2, 4, 8, 3, 6, 16}[rng.IntN(7)]
		if rng.IntN(2) == 0 {
			return []int{n, c, 2, 2, h, w}, forward, elem
		}
		return []int{n, h, 2, w, 2, c}, back, elem
	}
	count := 2_000
	if testing.Short() {
		count = 300
	}
	for _, tier := range verify.Tiers() {
		k := engine.Lookup(tier.Name)
		transpose.CheckGeneral(t, k, count, rand.New(rand.NewPCG(42, 1)), draw)
		if tier.Name == isa.Generic {
			continue
		}
		for _, c := range []struct {
			size, perm []int
			lanes      string
		}{
			{[]int{1, 3, 2, 2, 64, 256}, forward, "zip6x"},
			{[]int{1, 64, 2, 256, 2, 3}, back, "unzip6x"},
			{[]int{2, 2, 2, 2, 32, 256}, forward, "zip4x"},
			{[]int{1, 32, 2, 256, 2, 4}, back, "unzip8x"},
		} {
			for _, elem := range []int{4, 8} {
				n := elem
				for _, d := range c.size {
					n *= d
				}
				// beyond this CPU's private cache: its 256 rows (or
				// columns) doubled until the tensor outgrows it
				size, at := slices.Clone(c.size), slices.Index(c.size, 256)
				for n <= max(isa.CacheSizes().Private, 1<<20) {
					size[at] *= 2
					n *= 2
				}
				r := transpose.General(k, size, c.perm, elem, n, 1).Describe()
				if !strings.Contains(r.Plan, " in two dims, ") || !strings.HasPrefix(r.Kernel, c.lanes) {
					t.Errorf("%s: %v by %v of %d-byte elements: %s, want one pass of %s", tier.Name, size, c.perm, elem, r, c.lanes)
				}
				transpose.CheckGeneral(t, k, 1, rand.New(rand.NewPCG(43, 1)), func(*rand.Rand) ([]int, []int, int) { return size, c.perm, elem })
			}
		}
	}
}

// TestOperatorsAsTransposes runs operators whose elements are of several
// words and whose rows no kernel takes, with every SIMD tier's kernels,
// against the reference: as their rank-6 transposes where the kernels
// take those (NCHW DepthToSpace of 3-byte elements in two passes, or
// gathered where the tier has gather kernels and a plan that goes ahead
// of two passes, which in cache takes one group of windows), else by rows
// in Go.
func TestOperatorsAsTransposes(t *testing.T) {
	defer engine.SetPrivateCache(1 << 20)() // the tensors below fit: gathers go ahead of two passes by their groups alone
	rng := rand.New(rand.NewPCG(39, 1))
	for _, c := range []struct {
		g                        shape.Geometry
		plan, gathered, oneGroup string // on tiers without gather kernels; with; with plans of one group ahead of two passes
	}{
		{shape.Geometry{N: 2, Cp: 3, H: 5, W: 40, B: 2, Elem: 3}, "two passes", "two passes", "gather"},
		{shape.Geometry{N: 1, Cp: 1, H: 9, W: 70, B: 2, ToDepth: true, CRD: true, Elem: 6}, "unzip2x6", "unzip2x6", "unzip2x6"}, // a lane kernel of 6-byte runs
		{shape.Geometry{N: 1, Cp: 3, H: 4, W: 50, B: 2, NHWC: true, CRD: true, Elem: 5}, "5-byte elements one by one", "gather", "gather"},
		{shape.Geometry{N: 2, Cp: 5, H: 7, W: 33, B: 2, Elem: 7}, "7-byte elements one by one", "gather", "gather"},
		{shape.Geometry{N: 1, Cp: 2, H: 6, W: 40, B: 4, ToDepth: true, Elem: 11}, "two passes", "two passes", "two passes"}, // a gather of two groups would lose
	} {
		g := c.g
		g.C = g.Cp * g.B * g.B
		for _, tier := range verify.Tiers() {
			if tier.Name == "generic" {
				continue
			}
			r := g.Request()
			p, err := engine.Lookup(tier.Name).Prepare(&r, engine.PlanOperator)
			if err != nil {
				t.Fatal(err)
			}
			want := c.plan
			if w := windows(tier.Name); w.Ahead >= 1 {
				want = c.oneGroup
			} else if w.Vector > 0 {
				want = c.gathered
			}
			if d := p.Describe(); !strings.Contains(d.Plan+"; "+d.Kernel, want) {
				t.Errorf("%s: %+v: %s; %s, want %q in it", tier.Name, g, d.Plan, d.Kernel, want)
			}
			src := make([]byte, g.Len()*g.Elem)
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			verify.Check(t, tier.Name, tier.Run, &g, make([]byte, len(src)), src)
		}
	}
}

// gathers reports whether the tier of the given name has gather kernels.
func gathers(tier string) bool { return windows(tier).Vector > 0 }

// windows is how the gather kernels a tier runs read their windows: its
// own, or its base's.
func windows(tier string) isa.Windows {
	for _, i := range isa.All {
		switch {
		case i.TierName != tier:
		case i.Windows.Vector == 0 && i.Base != "":
			return isa.Named(i.Base).Windows
		default:
			return i.Windows
		}
	}
	return isa.Windows{}
}

// TestGathered runs transposes that the kernels move neither in one pass
// nor in two (elements of 5 and 7 bytes, whose widths no lane kernel
// has, in matrices too short for their tiles or in shapes two passes do
// not split), with every SIMD tier's kernels, against the naive one: gathered
// where the tier has gather kernels, else in Go; then one large enough
// to be cut into pieces for goroutines.
func TestGathered(t *testing.T) {
	for _, c := range []struct {
		size, perm []int
		elem       int
	}{
		{[]int{3, 4096}, []int{1, 0}, 5},
		{[]int{1, 3, 2, 2, 45, 80}, []int{0, 4, 2, 5, 3, 1}, 5},
		{[]int{2, 3, 11, 13}, []int{0, 2, 3, 1}, 5},
		{[]int{1, 3, 2, 2, 9, 10}, []int{0, 4, 2, 5, 3, 1}, 7},
		{[]int{5, 13}, []int{1, 0}, 7},
		{[]int{3, 5}, []int{1, 0}, 5},                   // a tensor of one vector and a few bytes: an edge program
		{[]int{4, 3, 5, 3, 3}, []int{0, 2, 4, 1, 3}, 5}, // NHWC CRD SpaceToDepth, b = 3: seven AVX2 windows a vector
	} {
		for _, tier := range verify.Tiers() {
			if tier.Name == "generic" {
				continue
			}
			k := engine.Lookup(tier.Name)
			r := routeOf(k, c.size, c.perm, c.elem)
			if got := strings.Contains(r.Plan, "gather"); got != gathers(tier.Name) {
				t.Errorf("%s: %v by %v of %d-byte elements: %s; gathered %v, want %v", tier.Name, c.size, c.perm, c.elem, r, got, !got)
			}
			transpose.CheckGeneral(t, k, 1, rand.New(rand.NewPCG(41, 1)), func(*rand.Rand) ([]int, []int, int) { return c.size, c.perm, c.elem })
		}
	}
	if testing.Short() {
		return
	}
	size, perm := []int{1, 64, 270, 480}, []int{0, 2, 3, 1} // 41 MB of 5-byte elements
	src, want := make([][5]byte, 64*270*480), make([][5]byte, 64*270*480)
	for i := range src {
		src[i] = [5]byte{byte(i), byte(i >> 8), byte(i >> 16), byte(i * 7), 5}
	}
	ref.Transpose(want, src, size, perm)
	for _, tier := range verify.Tiers() {
		if !gathers(tier.Name) {
			continue
		}
		g := transpose.General(engine.Lookup(tier.Name), size, perm, 5, 5*len(src), 0)
		got := make([][5]byte, len(src))
		g.Run(engine.Bytes(got), engine.Bytes(src))
		if r := g.Describe(); !slices.Equal(got, want) || len(g.PieceKernels()) < 2 {
			t.Errorf("%s: %v by %v of 5-byte elements (%s): right %v, %d pieces", tier.Name, size, perm, r, slices.Equal(got, want), len(g.PieceKernels()))
		}
	}
}

// TestShortRunsAsWords: runs of 2, 4 or 8 bytes that stay innermost move
// as words of that size, a matrix of them, on every tier, and right.
func TestShortRunsAsWords(t *testing.T) {
	for _, c := range []struct {
		size, perm []int
		elem       int
		plan       string
	}{
		{[]int{40, 30, 2}, []int{1, 0, 2}, 4, "8-byte words: 40x30 matrices"},
		{[]int{3, 17, 19, 2}, []int{0, 2, 1, 3}, 1, "2-byte words: 17x19 matrices"},
		{[]int{5, 33, 2, 2}, []int{1, 0, 2, 3}, 1, "4-byte words: 5x33 matrices"},
	} {
		for _, tier := range verify.Tiers() {
			k := engine.Lookup(tier.Name)
			if d := routeOf(k, c.size, c.perm, c.elem); !strings.Contains(d.Plan, c.plan) {
				t.Errorf("%s: %v by %v of %d-byte elements: %s, want %q in it", tier.Name, c.size, c.perm, c.elem, d.Plan, c.plan)
			}
			transpose.CheckGeneral(t, k, 1, rand.New(rand.NewPCG(40, 1)), func(*rand.Rand) ([]int, []int, int) { return c.size, c.perm, c.elem })
		}
	}
}

// TestThinSide: the parallel policy takes as rows the matrices the
// kernels zip or unzip whole.
func TestThinSide(t *testing.T) {
	if transpose.ThinSide != simd.MaxBlock {
		t.Errorf("thinSide = %d, the kernels zip sides of up to %d words", transpose.ThinSide, simd.MaxBlock)
	}
}

// TestGatherAhead: beyond the cache a gather plan of several groups goes
// ahead of two passes where it reads the source's lines whole (NCHW
// DepthToSpace), not where it comes back to them for other planes of its
// output (NCHW SpaceToDepth b = 4); in the cache, only by its groups.
func TestGatherAhead(t *testing.T) {
	zip := shape.Geometry{N: 2, Cp: 3, H: 5, W: 40, B: 2, Elem: 3}
	unzip := shape.Geometry{N: 1, Cp: 2, H: 32, W: 640, B: 4, ToDepth: true, Elem: 11}
	for _, c := range []struct {
		cache int
		g     shape.Geometry
		want  func(w isa.Windows) string
	}{
		{0, zip, func(isa.Windows) string { return "gather" }},
		{0, unzip, func(isa.Windows) string { return "two passes" }},
		{1 << 30, zip, func(w isa.Windows) string {
			if w.Ahead >= 1 {
				return "gather" // of one group
			}
			return "two passes"
		}},
	} {
		restore := engine.SetPrivateCache(c.cache)
		g := c.g
		g.C = g.Cp * g.B * g.B
		for _, tier := range verify.Tiers() {
			w := windows(tier.Name)
			if w.Vector == 0 {
				continue
			}
			r := g.Request()
			p, err := engine.Lookup(tier.Name).Prepare(&r, engine.PlanOperator)
			if err != nil {
				t.Fatal(err)
			}
			if d, want := p.Describe(), c.want(w); !strings.Contains(d.Plan, want) {
				t.Errorf("%s, a private cache of %d bytes: %+v: %s, want %q in it", tier.Name, c.cache, g, d.Plan, want)
			}
		}
		restore()
	}
}

// hasTiles reports whether a SIMD tier's kernels (nil: the generic
// tier's) have tiles of w-byte words, its own or its base's.
func hasTiles(set *simd.Kernels, w int) bool {
	return set != nil && slices.ContainsFunc(set.Tiles, func(k simd.TileKernel) bool { return int(k.W) == w })
}

// TestWideWords checks which transposes of 16-byte elements move them
// whole, as 16-byte words: matrices whose dst rows are whole lines or
// 2 KiB long, on the tiers with tiles of such words; thin ones that a
// lane kernel of their b takes, on every SIMD tier; the others as runs
// of 8-byte words.
func TestWideWords(t *testing.T) {
	for _, c := range []struct {
		size        []int
		tiles, thin bool // whole where the tier has tiles of 16-byte words; on any SIMD tier
	}{
		{[]int{64, 64}, true, false},   // dst rows of 1 KiB, whole lines
		{[]int{64, 36}, true, false},   // dst rows of 1 KiB, whole lines
		{[]int{129, 40}, true, false},  // dst rows over 2 KiB
		{[]int{49, 100}, false, false}, // dst rows short, not whole lines
		{[]int{127, 100}, false, false},
		{[]int{4, 100}, false, true},      // a zip of 4 lanes
		{[]int{3, 100}, false, false},     // 3 lanes: no kernel of their own
		{[]int{6, 200, 6}, false, false},  // 6x6 matrices, rows not held whole
		{[]int{16, 200, 16}, true, false}, // 16x16 matrices, dst rows whole lines
		{[]int{10, 70, 62}, false, false}, // 10x62 matrices: dst rows 64 lines apart, of 2.5 lines
	} {
		n := 16
		for _, d := range c.size {
			n *= d
		}
		perm := []int{1, 0}
		if len(c.size) == 3 {
			perm = []int{2, 1, 0}
		}
		for _, tier := range verify.Tiers() {
			k := engine.Lookup(tier.Name)
			d := transpose.General(k, c.size, perm, 16, n, 1).Describe()
			set, _ := k.Kernels.(*simd.Kernels)
			tiles := hasTiles(set, 16)
			want := c.tiles && tiles || c.thin && set != nil
			if got := strings.Contains(d.Plan, "16-byte words"); got != want {
				t.Errorf("%s: %v of 16-byte elements: %s, want 16-byte words: %v", tier.Name, c.size, d.Plan, want)
			}
			transpose.CheckGeneral(t, k, 1, rand.New(rand.NewPCG(44, 1)), func(*rand.Rand) ([]int, []int, int) { return c.size, perm, 16 })
		}
	}
}

// TestOddTiles: elements of 3 to 15 bytes go whole through the tiles of
// their width, where the tier has them, in matrices of 8 rows or more
// whose last column of tiles moves little again (simd.OddRows): in one
// pass, or in two (innerLast) where the matrix is not the innermost work;
// other matrices otherwise (a gather, two passes of words, or Go).
func TestOddTiles(t *testing.T) {
	for _, c := range []struct {
		size, perm []int
		elem       int
		plan       string // where the tier has tiles of the width
	}{
		{[]int{64, 48}, []int{1, 0}, 3, "3-byte words: 64x48 matrices"},
		{[]int{2, 9, 33}, []int{0, 2, 1}, 5, "5-byte words: 9x33 matrices"},
		{[]int{40, 30}, []int{1, 0}, 6, "6-byte words: 40x30 matrices"},
		{[]int{33, 8}, []int{1, 0}, 7, "7-byte words: 33x8 matrices"},
		{[]int{4, 6, 8, 5, 7, 3}, []int{5, 3, 1, 0, 4, 2}, 5, "two passes through chunks of 100800 bytes: 5-byte words: 8x105 matrices"},
		{[]int{3, 40, 30}, []int{0, 2, 1}, 12, "12-byte words: 40x30 matrices"},
		{[]int{9, 20}, []int{1, 0}, 14, "14-byte words: 9x20 matrices"},
		{[]int{7, 64}, []int{1, 0}, 5, ""},   // too few rows
		{[]int{40, 3}, []int{1, 0}, 10, ""},  // a last tile moving a third again
		{[]int{40, 30}, []int{1, 0}, 11, ""}, // no tiles of 11-byte elements
	} {
		for _, tier := range verify.Tiers() {
			k := engine.Lookup(tier.Name)
			d := routeOf(k, c.size, c.perm, c.elem)
			set, _ := k.Kernels.(*simd.Kernels)
			tiles := hasTiles(set, c.elem)
			if odd := strings.Contains(d.Plan, fmt.Sprintf("%d-byte words:", c.elem)); tiles && c.plan != "" && !strings.Contains(d.Plan, c.plan) || odd && (!tiles || c.plan == "") {
				t.Errorf("%s: %v by %v of %d-byte elements: %s, want %q in it: %v", tier.Name, c.size, c.perm, c.elem, d.Plan, c.plan, tiles && c.plan != "")
			}
			transpose.CheckGeneral(t, k, 1, rand.New(rand.NewPCG(43, 1)), func(*rand.Rand) ([]int, []int, int) { return c.size, c.perm, c.elem })
		}
	}
}

// TestThinTiles: a transpose whose two passes would split its elements
// into words and write rows of fewer bytes than a vector by tiles (NCHW
// to NHWC of three 7-byte channels: 21 bytes a row) goes to a gather
// where the tier has one; one whose thin side is the tiles' source rows
// (NHWC to NCHW) stays in two passes.
func TestThinTiles(t *testing.T) {
	for _, c := range []struct {
		size, perm []int
		elem       int
		want       string // where the tier has gathers
	}{
		{[]int{3, 4096}, []int{1, 0}, 7, "gather"},
		{[]int{4, 4096}, []int{1, 0}, 7, "gather"},
		{[]int{4096, 3}, []int{1, 0}, 7, "two passes"},
	} {
		for _, tier := range verify.Tiers() {
			if !gathers(tier.Name) {
				continue
			}
			k := engine.Lookup(tier.Name)
			if d := routeOf(k, c.size, c.perm, c.elem); !strings.Contains(d.Plan, c.want) {
				t.Errorf("%s: %v by %v of %d-byte elements: %s, want %q in it", tier.Name, c.size, c.perm, c.elem, d.Plan, c.want)
			}
			transpose.CheckGeneral(t, k, 1, rand.New(rand.NewPCG(44, 1)), func(*rand.Rand) ([]int, []int, int) { return c.size, c.perm, c.elem })
		}
	}
}

// TestShortLanes: a transpose whose two passes would zip lanes shorter
// than a vector (NHWC CRD DepthToSpace, b = 3, of three 3-byte channels:
// lanes of 27 bytes) goes to a gather, where the tier has one, beyond the
// private cache, and stays in two passes inside it.
func TestShortLanes(t *testing.T) {
	for _, c := range []struct {
		size []int
		want string // where the tier has gathers
	}{
		{[]int{448, 448, 3, 3, 3}, "gather"},
		{[]int{8, 8, 3, 3, 3}, "two passes"},
	} {
		perm, n := []int{0, 3, 1, 4, 2}, 3
		for _, d := range c.size {
			n *= d
		}
		if c.want == "gather" && engine.InPrivateCache(n) {
			t.Fatalf("%v of 3-byte elements fits in the private cache: want a larger shape", c.size)
		}
		for _, tier := range verify.Tiers() {
			if !gathers(tier.Name) {
				continue
			}
			k := engine.Lookup(tier.Name)
			if d := routeOf(k, c.size, perm, 3); !strings.Contains(d.Plan, c.want) {
				t.Errorf("%s: %v by %v of 3-byte elements: %s, want %q in it", tier.Name, c.size, perm, d.Plan, c.want)
			}
			transpose.CheckGeneral(t, k, 1, rand.New(rand.NewPCG(45, 1)), func(*rand.Rand) ([]int, []int, int) { return c.size, perm, 3 })
		}
	}
}

// TestSplitTwoPass: a transpose whose output's or input's innermost dim
// is too thin for tiles and too thick for a zip (NCHW to NHWC and back of
// 9 to 15 channels of 1- and 2-byte elements) moves by the kernels on
// every SIMD tier, not Go's tiles (in two passes of zips, a dim split in
// two factors, where the tier has no tiles for it), and right.
func TestSplitTwoPass(t *testing.T) {
	for _, c := range []struct {
		size, perm []int
		elem       int
	}{
		{[]int{12, 5000}, []int{1, 0}, 1},
		{[]int{9, 3001}, []int{1, 0}, 1},
		{[]int{2, 10, 30, 40}, []int{0, 2, 3, 1}, 1},
		{[]int{3, 14, 17, 19}, []int{0, 2, 3, 1}, 1},
		{[]int{12, 777}, []int{1, 0}, 2},
		{[]int{12, 400_000}, []int{1, 0}, 1}, // whole lanes over maxChunk: chunks cut them
		{[]int{15, 3000}, []int{1, 0}, 1},
		{[]int{5000, 12}, []int{1, 0}, 1},
		{[]int{3001, 9}, []int{1, 0}, 1},
		{[]int{2, 30, 40, 10}, []int{0, 3, 1, 2}, 1},
		{[]int{3000, 15}, []int{1, 0}, 1},
		{[]int{300_000, 12}, []int{1, 0}, 1},
	} {
		for _, tier := range verify.Tiers() {
			k := engine.Lookup(tier.Name)
			d := routeOf(k, c.size, c.perm, c.elem)
			if _, simd := k.Kernels.(*simd.Kernels); simd && strings.Contains(d.String(), "generic:") {
				t.Errorf("%s: %v by %v of %d-byte elements: %s, want the tier's kernels", tier.Name, c.size, c.perm, c.elem, d)
			}
			transpose.CheckGeneral(t, k, 1, rand.New(rand.NewPCG(46, 1)), func(*rand.Rand) ([]int, []int, int) { return c.size, c.perm, c.elem })
		}
	}
}

// routeOf is the route General plans for a transpose of elem-byte
// elements on tier k, on one goroutine.
func routeOf(k *engine.Kit, size, perm []int, elem int) engine.Route {
	n := elem
	for _, d := range size {
		n *= d
	}
	return transpose.General(k, size, perm, elem, n, 1).Describe()
}
