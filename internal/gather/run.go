package gather

import (
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/memo"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// A Kernel runs reps tiles of program p, srcRep and dstRep bytes apart:
// src starts at the first tile's source base plus p.Origin, dst at its
// output. It must check that the tiles stay inside the slices.
type Kernel func(p *Prog, dst, src []byte, reps, srcRep, dstRep int)

// Run performs the planned call on whole tensors dst and src with kernel
// k; tiles whose windows would reach outside src go to Interpret.
func (pl *Plan) Run(k Kernel, dst, src []byte) {
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
		pl.tiles(k, dst, src, sb, db, pl.Reps, pl.SrcRep)
		if pl.Rem {
			pl.tiles(k, dst, src, sb+pl.RemSrc, db+pl.RemDst, 1, 0)
		}
	}
}

// tiles runs reps tiles from source base sb and output offset db: Fwd for
// those whose windows end inside src, Bwd for the rest (its windows end at
// the last byte a vector needs) where they start inside it.
func (pl *Plan) tiles(k Kernel, dst, src []byte, sb, db, reps, srcRep int) {
	f, b, dstRep := &pl.Fwd, &pl.Bwd, pl.Fwd.Tile
	nf := 0
	if end := sb + f.Origin + f.Span; end <= len(src) {
		nf = reps
		if srcRep > 0 {
			nf = min(reps, (len(src)-end)/srcRep+1)
		}
		k(f, dst[db:], src[sb+f.Origin:], nf, srcRep, dstRep)
	}
	for r := nf; r < reps; r++ {
		s, d := sb+r*srcRep, db+r*dstRep
		if s+b.Origin >= 0 {
			k(b, dst[d:], src[s+b.Origin:], reps-r, srcRep, dstRep)
			return
		}
		pl.Interpret(b, dst[d:], src, s)
	}
}

// Interpret writes one tile of program p as the kernels would, reading only
// the bytes it copies: src is the whole source, base the tile's source
// base.
func (pl *Plan) Interpret(p *Prog, dst, src []byte, base int) {
	stride := 1 + p.Groups*pl.W.PerGroup
	for s := range p.Steps {
		at := int(p.Offs[s*stride])
		for l := range pl.W.Vector {
			dst[at+l] = src[base+p.Origin+p.Bytes(pl.W, s, l)]
		}
	}
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
