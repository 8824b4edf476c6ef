package gather

// tiles calls f for each run of reps tiles of one program, from source
// base sb and output byte db, srcRep and Tile bytes apart: Fwd runs the
// tiles whose windows end inside the source of n bytes, Bwd the rest
// where its windows start inside it, and each tile left its edge program
// (Edges), or p is nil if it has none.
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

// Units is how many parts a plan may be cut into for goroutines (Walk):
// the iterations of its outermost loop, or its tiles where it has none.
func (pl *Plan) Units() int { return pl.countOf(0) }

// Walk calls f for every run of tiles of units [lo, hi) of the call on a
// source of n bytes (see tiles), but for the iterations of each loop
// whose tiles all run Fwd, from the first on: it visits the first of
// those within repeat, which repeats what its body visits count times,
// src and dst bytes further on each time. A prepared call's size is then
// bounded whatever the tensor's: the iterations that reach the source's
// end lie within a tile's windows of it, and New gives up on a plan of
// more than MaxRuns runs and repeats.
func (pl *Plan) Walk(n, lo, hi int, f func(p *Prog, s, d, reps, srcRep int), repeat func(count, src, dst int, body func())) {
	pl.walk(n, 0, lo, hi, 0, 0, f, repeat)
}

// walk visits iterations [lo, hi) of Outer loop k from source base sb and
// output byte db, or past the last loop tiles [lo, hi) and the Rem tile
// after them.
func (pl *Plan) walk(n, k, lo, hi, sb, db int, f func(p *Prog, s, d, reps, srcRep int), repeat func(count, src, dst int, body func())) {
	if k == len(pl.Outer) {
		pl.tiles(n, f, sb+lo*pl.SrcRep, db+lo*pl.Fwd.Tile, hi-lo, pl.SrcRep)
		if pl.Rem && hi == pl.Reps {
			pl.tiles(n, f, sb+pl.RemSrc, db+pl.RemDst, 1, 0)
		}
		return
	}
	l := pl.Outer[k]
	inner := func(i int) {
		pl.walk(n, k+1, 0, pl.countOf(k+1), sb+i*l.Src, db+i*l.Dst, f, repeat)
	}
	fwd := lo // iterations [lo, fwd) reach no further than the source's end
	if last := sb + lo*l.Src + pl.reach(k+1); last <= n {
		fwd = hi
		if l.Src > 0 {
			fwd = min(hi, lo+(n-last)/l.Src+1)
		}
	}
	if fwd-lo > 1 {
		repeat(fwd-lo, l.Src, l.Dst, func() { inner(lo) })
		lo = fwd
	}
	for i := lo; i < hi; i++ {
		inner(i)
	}
}

// countOf is the iterations of Outer loop k, or past the last one the
// tiles of one iteration.
func (pl *Plan) countOf(k int) int {
	if k < len(pl.Outer) {
		return pl.Outer[k].N
	}
	return pl.Reps
}

// reach is how far past the source base of an iteration of the loops
// from Outer loop k in its tiles' Fwd windows reach.
func (pl *Plan) reach(k int) int {
	r := (pl.Reps - 1) * pl.SrcRep
	if pl.Rem {
		r = max(r, pl.RemSrc)
	}
	for _, l := range pl.Outer[k:] {
		r += (l.N - 1) * l.Src
	}
	return r + pl.Fwd.Origin + pl.Fwd.Span
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
