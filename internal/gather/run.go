package gather

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/memo"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// A Kernel runs reps tiles of program p, srcRep and dstRep bytes apart:
// src starts at the first tile's source base plus p.Origin, dst at its
// output. It must check that the tiles stay inside the slices.
type Kernel func(p *Prog, dst, src []byte, reps, srcRep, dstRep int)

// Run performs the planned call on whole tensors dst and src with kernel k.
func (pl *Plan) Run(k Kernel, dst, src []byte) {
	pl.each(len(src), func(p *Prog, s, d, reps, srcRep int) {
		if p == nil { // New gave every tile of a source of this length a program
			panic(fmt.Sprintf("gather: no program for the tile at source byte %d of %d", s, len(src)))
		}
		k(p, dst[d:], src[s+p.Origin:], reps, srcRep, pl.Fwd.Tile)
	})
}

// each calls f for every run of tiles of the call on a source of n bytes:
// reps tiles of program p, the first from source base s and output byte
// d, the others srcRep and Tile bytes further on. Fwd runs the tiles
// whose windows end inside the source, Bwd the rest where its windows
// start inside it, and each tile left its edge program (Edges), or p is
// nil if it has none.
func (pl *Plan) each(n int, f func(p *Prog, s, d, reps, srcRep int)) {
	iterations, _ := pl.counts()
	for o := range iterations {
		sb, db := 0, 0
		for i := len(pl.Outer) - 1; i >= 0; i-- {
			l := pl.Outer[i]
			q := o % l.N
			o /= l.N
			sb += q * l.Src
			db += q * l.Dst
		}
		pl.tiles(n, f, sb, db, pl.Reps, pl.SrcRep)
		if pl.Rem {
			pl.tiles(n, f, sb+pl.RemSrc, db+pl.RemDst, 1, 0)
		}
	}
}

// tiles is each for reps tiles from source base sb and output byte db.
func (pl *Plan) tiles(n int, f func(p *Prog, s, d, reps, srcRep int), sb, db, reps, srcRep int) {
	fwd, bwd, dstRep := &pl.Fwd, &pl.Bwd, pl.Fwd.Tile
	nf := 0
	if end := sb + fwd.Origin + fwd.Span; end <= n {
		nf = reps
		if srcRep > 0 {
			nf = min(reps, (n-end)/srcRep+1)
		}
		f(fwd, sb, db, nf, srcRep)
	}
	for r := nf; r < reps; r++ {
		s, d := sb+r*srcRep, db+r*dstRep
		if s+bwd.Origin >= 0 {
			f(bwd, s, d, reps-r, srcRep)
			return
		}
		f(pl.edge(s), s, d, 1, 0)
	}
}

// Progs lists the plan's programs: Fwd, Bwd and the edge programs.
func (pl *Plan) Progs() []*Prog {
	out := []*Prog{&pl.Fwd, &pl.Bwd}
	for i := range pl.Edges {
		out = append(out, &pl.Edges[i].Prog)
	}
	return out
}

// edge returns the edge program of the tile at source base s, or nil.
func (pl *Plan) edge(s int) *Prog {
	for i := range pl.Edges {
		if pl.Edges[i].Base == s {
			return &pl.Edges[i].Prog
		}
	}
	return nil
}

// key is what a plan depends on.
type key struct {
	w       isa.Windows
	op      shape.Op
	order   shape.Order
	layout  shape.Layout
	b, elem int
	depth   shape.Dims
}

var cache memo.Cache[key, *Plan]

// Cached returns the plan of a validated, non-empty call for kernels of
// windows w, building it on first use, or nil if the call has none. A
// cached plan costs a map lookup and no allocation.
func Cached(w isa.Windows, g *shape.Geometry) *Plan {
	k := key{w, g.Op, g.Order, g.Layout, g.B, g.Elem, g.Depth}
	return cache.Get(k, func() *Plan {
		if p, ok := New(w, g); ok {
			return p
		}
		return nil
	})
}
