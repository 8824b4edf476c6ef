package vec

import "testing"

// count is how many instructions of p do op.
func count(p *Prog, op Op) int {
	n := 0
	for _, in := range p.Instrs {
		if in.Op == op {
			n++
		}
	}
	return n
}

// TestMergeShuffles merges the shuffles of byte-shuffle programs: every Or
// goes, each taking one shuffle with it, and the stores stay the same
// (MergeShuffles checks that itself).
func TestMergeShuffles(t *testing.T) {
	progs := map[string]func() (*Prog, error){
		"zip b=3 w=1":        func() (*Prog, error) { return ShuffleZip(3, 1, 16) },
		"unzip b=5 w=2":      func() (*Prog, error) { return ShuffleUnzip(5, 2, 16) },
		"period zip RGB b=3": func() (*Prog, error) { return PeriodZip(Runs(3, 3), Runs(3, 3).Chunks()[0]) },
		"period unzip CRD":   func() (*Prog, error) { return PeriodUnzip(CRD(2, 3, 1), CRD(2, 3, 1).Chunks()[0]) },
	}
	for name, build := range progs {
		p, err := build()
		if err != nil {
			t.Fatal(name, err)
		}
		q, err := p.MergeShuffles()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ors, shuffles := count(p, Or), count(p, Shuffle)
		if count(q, Or) != 0 || count(q, ShuffleInto) != ors || count(q, Shuffle) != shuffles-ors {
			t.Errorf("%s: %d ors and %d shuffles became %d ors, %d shuffles and %d merging shuffles",
				name, ors, shuffles, count(q, Or), count(q, Shuffle), count(q, ShuffleInto))
		}
	}
}

// TestSameStoresCatchesMistakes: a merging shuffle with one mask byte
// changed stores something else, and the comparison must say so.
func TestSameStoresCatchesMistakes(t *testing.T) {
	p, err := ShuffleZip(3, 1, 16)
	if err != nil {
		t.Fatal(err)
	}
	q, err := p.MergeShuffles()
	if err != nil {
		t.Fatal(err)
	}
	bad := NewProg(q.Width)
	changed := false
	vals := make([]int, q.NumValues())
	for _, in := range q.Instrs {
		if in.Op == ShuffleInto && !changed {
			in.Mask = append([]int8(nil), in.Mask...)
			for i, m := range in.Mask {
				if m >= 0 {
					in.Mask[i] = (m + 1) % LaneBytes
					break
				}
			}
			changed = true
		}
		if v := bad.apply(in, vals[in.A], vals[in.B]); in.Op != Store {
			vals[in.Dst] = v
		}
	}
	if err := sameStores(p, bad); err == nil {
		t.Fatal("sameStores accepted a program with a wrong mask")
	}
}
