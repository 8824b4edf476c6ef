// Package gather plans calls whose rows are too short for the row kernels
// (YOLO's 13x13 maps: 13-byte rows) as one pass over the output, in
// vectors: each output vector is shuffled from a few source windows, the
// bytes it needs wherever they lie. Row kernels pay a loop iteration and
// partial vectors per row; here a 64-byte vector may take pieces of eight
// rows from four planes in one shuffle.
//
// The shuffles repeat: the output is a loop nest over six dims (the call
// as a transpose), and a tile of a few of its inner iterations, copied
// again one stride further on, covers the call. A plan holds the program
// of one tile (per output vector, where the windows start and which byte
// of them each output byte takes) and the loops that repeat it. Plans are
// built once per shape and ISA and kept with their prepared calls; the
// kernels that run them are package kernels' gather kernels, through
// internal/simd.
package gather

import (
	"fmt"
	"math"

	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// MaxTile bounds a tile, in bytes, and so a program's size: a tile of
// 4 KiB takes at most 12 KiB of index vectors (3 groups of AVX-512 VBMI
// windows per 64 bytes), which stay in L1 next to the data.
const MaxTile = 4096

// MaxEdges bounds a plan's edge programs (see Plan.Edges): at most one
// tile's worth of index vectors each.
const MaxEdges = 8

// MaxRuns bounds a plan's calls (see Plan.Walk): the runs of tiles and
// repeats that move it, whatever the tensor's size.
const MaxRuns = 1024

// unbounded leaves windows where cover places them (see program): far
// beyond any source, and far from overflow.
const unbounded = math.MaxInt / 4

// A Prog is the program of one tile, for a gather kernel of Groups groups:
// Steps output vectors, each written at Offs[s*stride] bytes into the tile
// (stride = 1 + Groups*PerGroup), from the windows at the next
// Groups*PerGroup offsets, relative to the tile's source base plus Origin,
// shuffled by Groups index vectors at Idx[s*Groups*Vector:]. Every offset
// is >= 0; the windows reach Span bytes from the base plus Origin, the
// vectors Tile bytes from the tile's start.
type Prog struct {
	Steps, Groups int
	Offs          []int32
	Idx           []byte
	Origin, Span  int
	Tile          int
}

// A Plan runs a call as tiles: for each iteration of the Outer loops, Reps
// tiles SrcRep and Tile bytes apart, then, if Rem, one more tile RemSrc and
// RemDst bytes after the iteration's start (it overlaps the last one and
// rewrites the same bytes). Fwd places each vector's windows upward from
// the lowest byte it needs, Bwd downward from the highest: Fwd for tiles
// whose windows stay before the end of the source, Bwd for the last ones,
// and an edge program of its own for a tile that neither suits (Edges).
type Plan struct {
	W              isa.Windows
	Fwd, Bwd       Prog
	Reps, SrcRep   int
	Rem            bool
	RemSrc, RemDst int
	Outer          []Loop
	Edges          []Edge

	tile    []dim // the dims of one tile
	nest    []dim // the call's loop nest (see dims)
	blocked bool  // its reps go in blocks (block)
}

// An Edge is the program of the tile at source base Base, for a tile whose
// windows would leave the source both ways, placed Fwd or Bwd: its own
// windows are moved to lie inside the source.
type Edge struct {
	Base int
	Prog Prog
}

// A Loop is n iterations, each src and dst bytes further on.
type Loop struct{ N, Src, Dst int }

// dim is one dim of the output's loop nest: n iterations, each s bytes
// further on in the source.
type dim struct{ n, s int }

// New plans a validated, non-empty call for kernels of windows w, or
// reports false if no tile of at most MaxTile bytes covers it with
// MaxGroups groups per vector. Of the tiles that do, it takes the one of
// least cost (see cost).
func New(w isa.Windows, g *shape.Geometry) (*Plan, bool) {
	size, stride := g.Loops()
	return Nest(w, size[:], stride[:], g.Elem)
}

// Nest plans, for kernels of windows w, a move whose output is the loop
// nest size, outermost first, each iteration of dim k stride[k] elements
// further on in the source, of elem-byte elements: any transpose (a
// DepthToSpace is one of six dims). It reports false as New does.
func Nest(w isa.Windows, size, stride []int, elem int) (*Plan, bool) {
	n := elem
	for _, x := range size {
		n *= x
	}
	if w.Vector == 0 || n < w.Vector {
		return nil, false
	}
	d := dims(size, stride, elem)
	var best *Plan
	bestCost := 0
	for _, t := range tilings(d, w.Vector) {
		p, ok := plan(w, d, t.j, t.c)
		if !ok {
			continue
		}
		if c := p.cost(w); best == nil || c < bestCost {
			best, bestCost = p, c
		}
	}
	if best == nil {
		return nil, false
	}
	best.nest = d
	best.block(blockBudget)
	var ok bool
	if best.Bwd, ok = program(w, sources(best.tile), true, -unbounded, unbounded); !ok {
		return nil, false
	}
	return best, best.edges(w, n)
}

// edges gives each tile of a call on a source of n bytes whose windows
// leave the source both ways, Fwd's past its end and Bwd's before its
// start, a program of its own whose windows stay inside (see program),
// or reports false if more than MaxEdges tiles need one, or the plan
// more than MaxRuns calls. Such tiles lie near both ends of a small
// source: a call of one tile, or the first of a few. A Go loop byte by
// byte ran them 40 times slower than the row kernels on a Zen 4.
func (p *Plan) edges(w isa.Windows, n int) bool {
	var bases []int
	runs := 0
	p.Walk(n, 0, p.Units(), func(q *Prog, s, _, _, _ int) {
		runs++
		if q == nil {
			bases = append(bases, s)
		}
	}, func(int, int, int, func()) { runs++ }) // repeated iterations run Fwd alone
	if len(bases) > MaxEdges || runs > MaxRuns {
		return false
	}
	src := sources(p.tile)
	for _, s := range bases {
		q, ok := program(w, src, false, -s, n-s)
		if !ok {
			return false
		}
		p.Edges = append(p.Edges, Edge{s, q})
	}
	return true
}

// cost estimates the work of a plan, counted in steps of about one instruction: a
// vector costs its offset load and store, an index load and a shuffle per
// group, and a load per window; a kernel call, with its Go loop and check,
// costs 60.
func (p *Plan) cost(w isa.Windows) int {
	iterations, tiles := p.counts()
	calls := iterations
	if p.Rem {
		calls *= 2
	}
	perVector := 2 + 2*p.Fwd.Groups + p.Fwd.Groups*w.PerGroup
	return tiles*p.Fwd.Steps*perVector + calls*60
}

// counts returns the iterations of the Outer loops and the tiles of the
// whole call.
func (p *Plan) counts() (iterations, tiles int) {
	iterations = 1
	for _, l := range p.Outer {
		iterations *= l.N
	}
	tiles = iterations * p.Reps
	if p.Rem {
		tiles += iterations
	}
	return iterations, tiles
}

// plan builds the plan whose tile is c iterations of dim j, with its
// forward program only.
func plan(w isa.Windows, d []dim, j, c int) (*Plan, bool) {
	p := &Plan{W: w, tile: append([]dim{{c, d[j].s}}, d[j+1:]...)}
	src := sources(p.tile)
	var ok bool
	if p.Fwd, ok = program(w, src, false, -unbounded, unbounded); !ok {
		return nil, false
	}
	q := len(src) / c // bytes per iteration of dim j
	outer := d[:j]
	switch {
	case c == d[j].n && j > 0: // the tile is one iteration of dim j-1
		p.Reps, p.SrcRep = d[j-1].n, d[j-1].s
		outer = d[:j-1]
	default:
		p.Reps, p.SrcRep = d[j].n/c, c*d[j].s
		if r := d[j].n % c; r > 0 {
			p.Rem, p.RemSrc, p.RemDst = true, (d[j].n-c)*d[j].s, (d[j].n-c)*q
		}
	}
	per := 1 // output bytes per iteration of dim i
	p.Outer = make([]Loop, len(outer))
	for i := len(d) - 1; i >= 0; i-- {
		if i < len(outer) {
			p.Outer[i] = Loop{d[i].n, d[i].s, per}
		}
		per *= d[i].n
	}
	return p, true
}

// dims is the loop nest in bytes: Nest's dims and the element's bytes,
// without dims of one iteration, and with each dim merged into the one
// outside it where the two continue each other's stride.
func dims(size, stride []int, elem int) []dim {
	var out []dim
	add := func(n, s int) {
		if n == 1 {
			return
		}
		if k := len(out) - 1; k >= 0 && out[k].s == n*s {
			out[k] = dim{out[k].n * n, s}
			return
		}
		out = append(out, dim{n, s})
	}
	for k := range size {
		add(size[k], stride[k]*elem)
	}
	add(elem, 1)
	return out
}

// tilings lists the tiles worth trying: c iterations of dim j, with
// everything inside them, at least a vector and at most MaxTile bytes.
// Per dim: the fewest iterations that make whole vectors (every vector of
// every tile then whole) and the most that fit, all of the dim's where
// they fit (so that the tiles repeat along the dim outside it).
func tilings(d []dim, vector int) []struct{ j, c int } {
	var out []struct{ j, c int }
	q := 1 // bytes per iteration of dim j
	for j := len(d) - 1; j >= 0 && q <= MaxTile; j-- {
		n := d[j].n
		for _, c := range []int{vector / gcd(q, vector), min(n, MaxTile/q)} {
			if c <= n && c*q >= vector && c*q <= MaxTile {
				out = append(out, struct{ j, c int }{j, c})
			}
		}
		q *= n
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// sources lists, for every byte of a tile of dims d, the byte of the
// source it copies, relative to the tile's source base.
func sources(d []dim) []int {
	out := []int{0}
	for _, x := range d {
		next := make([]int, 0, len(out)*x.n)
		for _, base := range out {
			for i := range x.n {
				next = append(next, base+i*x.s)
			}
		}
		out = next
	}
	return out
}

// String describes the plan, as Describe reports it.
func (p *Plan) String() string {
	_, tiles := p.counts()
	return fmt.Sprintf("gather, %d tiles of %d vectors from %d groups of windows", tiles, p.Fwd.Steps, p.Fwd.Groups)
}

// Pays reports whether a gather plan beats the row kernels on a call,
// for kernels of windows w: NCHW DepthToSpace whose space rows are
// shorter than a vector, and SpaceToDepth of b > 2 whose space rows are at
// most half a vector. Where it takes them it measured faster (on a Zen 5,
// YOLO's 1x256x13x13 b = 2 DepthToSpace of bytes: 0.45 of copy() against
// the row kernels' 0.26); longer rows, SpaceToDepth of b = 2 (which takes
// the stacked rows first where a table has them: internal/simd) and
// SpaceToDepth rows of 48 to 60 bytes (up to 1.5x slower) are left to the
// row kernels. Only kernels whose windows say so (w.ShortRows: AVX-512
// VBMI's) take any: AVX2's ran no faster than its row kernels.
func Pays(g *shape.Geometry, w isa.Windows) bool {
	row := g.W * g.B * g.Elem
	if g.ToDepth {
		return w.ShortRows && !g.NHWC && g.B > 2 && 2*row <= w.Vector
	}
	return w.ShortRows && !g.NHWC && g.B > 1 && row < w.Vector
}

// block cuts the Reps loop of a plan into blocks of the most reps whose
// source, at most budget bytes, a private cache holds, and moves the
// Outer loops inside it whose source steps are shorter than a rep's
// (the planes j and rows i of a SpaceToDepth in NCHW, which read again
// the rows the reps read) inside the blocks, where the reps would read
// more than budget bytes before they come back: each source line is then
// read again from the cache, not from memory. On a Zen 5, one goroutine,
// of copy(), SpaceToDepth of 1x64x270x480 b = 2 in NCHW, DCR (whose reps
// run over every plane, 27 MB, before the loop over j comes back), whole
// and in blocks: avx512vbmi 3-byte elements 0.41-0.44 and 0.57-0.59,
// 5-byte 0.37-0.39 and 0.58-0.59, 7-byte 0.37-0.52 and 0.68; CRD (a
// plane, 1.8 MB) 3-byte 0.44-0.48 and 0.54-0.56; avx2 7-byte DCR
// 0.51-0.57 and 0.57-0.59.
func (p *Plan) block(budget int) {
	k := len(p.Outer) // the loops from k on step less than a rep
	for k > 0 && abs(p.Outer[k-1].Src) < p.SrcRep {
		k--
	}
	if p.Rem || k == len(p.Outer) || budget <= 0 {
		return
	}
	span := max(p.SrcRep, p.Fwd.Span) // the source one rep reads, at most
	if p.Reps*span <= budget {
		return
	}
	r := min(p.Reps, budget/span)
	for r > 1 && p.Reps%r != 0 {
		r--
	}
	if r < 2 {
		// A block of one rep only reorders the loops: DepthToSpace of
		// 3-byte elements, whose two reps are planes 12 MB apart, lost
		// so (1x64x270x480 /b2 DCR, avx2, of copy(), 0.63-0.79 and
		// 0.40-0.62).
		return
	}
	blocks := Loop{p.Reps / r, r * p.SrcRep, r * p.Fwd.Tile}
	p.Outer = append(append(p.Outer[:k:k], blocks), p.Outer[k:]...)
	p.Reps, p.blocked = r, true
}

// blockBudget is the source a block of reps may read (block): half the
// private cache, or 256 KiB where the CPU does not say.
var blockBudget = func() int {
	if c := isa.CacheSizes().Private; c > 0 {
		return c / 2
	}
	return 256 << 10
}()

func abs(x int) int { return max(x, -x) }
