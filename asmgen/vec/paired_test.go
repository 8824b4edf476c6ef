package vec

import "testing"

// TestPairedUnzip builds PairedUnzip on the wide chunk of every period of
// the AVX2 table (finish proves each program moves every byte to its
// place, reading only inside the chunk) and checks that it costs no more
// operations on the load and shuffle ports than PeriodUnzip's registers of
// one lane each, and fewer for NHWC CRD of b = 3 and C' = 3, whose rows'
// runs lie side by side in each pixel.
func TestPairedUnzip(t *testing.T) {
	cost := func(p *Prog) int {
		n := 0
		for _, in := range p.Instrs {
			switch in.Op {
			case Load, LoadBcast:
				n++
			case Shuffle: // the mask is a load too
				n += 2
			case LoadPair: // two loads and an insert
				n += 3
			}
		}
		return n
	}
	for _, pd := range tablePeriods() {
		wide := pd.WideChunks()[0]
		paired, err := PairedUnzip(pd, wide)
		if err != nil {
			t.Errorf("%v: %v", pd, err)
			continue
		}
		plain, err := PeriodBuilder(pd, true, 2*LaneBytes)(wide)
		if err != nil {
			t.Fatal(err)
		}
		a, b := cost(paired), cost(plain)
		if a > b {
			t.Errorf("%v, chunk %d: paired pieces cost %d operations, one lane per register %d", pd, wide, a, b)
		}
		if pd.B == 3 && pd.E == 3*3*2 && 10*a > 9*b {
			t.Errorf("%v, chunk %d: paired pieces cost %d operations, not 10%% under %d", pd, wide, a, b)
		}
	}
	if _, err := PairedUnzip(CRD(3, 3, 2), 8); err == nil {
		t.Error("PairedUnzip took a chunk shorter than a lane")
	}
}
