package vec

import "testing"

// TestWidePeriods builds the 32-byte window programs of every Runs and CRD
// period the AVX2 table has, both ways, on their wide chunk, and checks
// that they need fewer byte shuffles per byte than the 16-byte programs:
// the windows of both lanes share one.
func TestWidePeriods(t *testing.T) {
	count := func(p *Prog) int {
		n := 0
		for _, in := range p.Instrs {
			if in.Op == Shuffle {
				n++
			}
		}
		return n
	}
	for _, pd := range tablePeriods() {
		wide, narrow := pd.WideChunks()[0], pd.Chunks()[0]
		if wide%pd.E != 0 || wide%4 != 0 || wide < narrow {
			t.Errorf("%v: wide chunk %d", pd, wide)
		}
		for _, unzip := range []bool{false, true} {
			w, err := PeriodBuilder(pd, unzip, 2*LaneBytes)(wide)
			if err != nil {
				t.Errorf("%v unzip %v: %v", pd, unzip, err)
				continue
			}
			n, err := PeriodBuilder(pd, unzip, LaneBytes)(narrow)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := float64(count(w))/float64(wide), float64(count(n))/float64(narrow); a >= b {
				t.Errorf("%v unzip %v: %.2f shuffles per byte in 32-byte registers, %.2f in 16", pd, unzip, a, b)
			}
		}
	}
}

// tablePeriods are the Runs and CRD periods of the AVX2 table's kernels.
func tablePeriods() []Period {
	var pds []Period
	for _, b := range []int{2, 3, 4, 5, 6, 7, 8} {
		for _, w := range []int{3, 5, 6, 7, 9, 12, 24} {
			pds = append(pds, Runs(b, w))
		}
		for _, cp := range []int{2, 3, 4} {
			for _, w := range []int{1, 2, 4, 8} {
				if b <= 4 && b*b*cp*w <= 256 {
					pds = append(pds, CRD(b, cp, w))
				}
			}
		}
	}
	return pds
}
