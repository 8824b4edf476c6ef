package gather

// Each calls f for every run of tiles of the call on a source of n bytes:
// reps tiles of program p, the first from source base s and output byte
// d, the others srcRep and Tile bytes further on. Fwd runs the tiles
// whose windows end inside the source, Bwd the rest where its windows
// start inside it, and each tile left its edge program (Edges), or p is
// nil if it has none.
func (pl *Plan) Each(n int, f func(p *Prog, s, d, reps, srcRep int)) {
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
