package vec

import (
	"fmt"
	"slices"
)

// MergeShuffles returns p with every OR of a byte shuffle into another
// value done as one merging shuffle: where a shuffle's only use is an Or,
// the Or becomes a ShuffleInto of the shuffle's source and mask that keeps
// the other operand's bytes wherever the mask selects nothing. On NEON that
// is one TBX in place of a TBL and an ORR. The result is simulated afresh
// and must store exactly what p stores.
func (p *Prog) MergeShuffles() (*Prog, error) {
	uses := make([]int, len(p.values))
	def := make([]Instr, len(p.values))
	for _, in := range p.Instrs {
		for _, v := range in.Uses() {
			uses[v]++
		}
		if in.Op != Store {
			def[in.Dst] = in
		}
	}
	single := func(v int) bool { return def[v].Op == Shuffle && uses[v] == 1 }
	absorbed := map[int]bool{} // shuffles an Or takes over
	for _, in := range p.Instrs {
		switch {
		case in.Op != Or:
		case single(in.B):
			absorbed[in.B] = true
		case single(in.A):
			absorbed[in.A] = true
		}
	}
	q := NewProg(p.Width)
	vals := make([]int, len(p.values))
	for _, in := range p.Instrs {
		switch {
		case in.Op != Store && absorbed[in.Dst]:
			continue
		case in.Op == Or && (absorbed[in.A] || absorbed[in.B]):
			keep, sh := in.A, def[in.B]
			if absorbed[in.A] {
				keep, sh = in.B, def[in.A]
			}
			vals[in.Dst] = q.ShuffleInto(vals[keep], vals[sh.A], sh.Mask)
		default:
			if v := q.apply(in, vals[in.A], vals[in.B]); in.Op != Store {
				vals[in.Dst] = v
			}
		}
	}
	if err := sameStores(p, q); err != nil {
		return nil, fmt.Errorf("merging shuffles: %w", err)
	}
	return q, nil
}

// sameStores reports the first store of q that differs from p's, in place
// or content.
func sameStores(p, q *Prog) error {
	stores := func(x *Prog) (out []Instr) {
		for _, in := range x.Instrs {
			if in.Op == Store {
				out = append(out, in)
			}
		}
		return out
	}
	ps, qs := stores(p), stores(q)
	if len(ps) != len(qs) {
		return fmt.Errorf("%d stores, want %d", len(qs), len(ps))
	}
	for i := range ps {
		x, y := ps[i], qs[i]
		if x.Mem != y.Mem || x.Size != y.Size ||
			!slices.Equal(p.values[x.A][x.Part*x.Size:][:x.Size], q.values[y.A][y.Part*y.Size:][:y.Size]) {
			return fmt.Errorf("store %d at %v differs", i, y.Mem)
		}
	}
	return nil
}
