package vec

import (
	"slices"
	"testing"
)

// TestPaired builds Paired on the wide chunk of every period of the AVX2
// table, both ways (finish proves that each program moves every byte to
// its place, reading only inside the chunk), and checks that it costs no
// more operations on the load and shuffle ports than the registers of 32
// neighbouring output bytes of PeriodZip and PeriodUnzip, and a tenth
// fewer for NHWC CRD of b = 3 and C' = 3 (RGB, 2-byte elements), whose
// rows' runs lie side by side in each pixel.
func TestPaired(t *testing.T) {
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
		for _, unzip := range []bool{false, true} {
			paired, err := Paired(pd, wide, unzip)
			if err != nil {
				t.Errorf("%v unzip %v: %v", pd, unzip, err)
				continue
			}
			plain, err := PeriodBuilder(pd, unzip, 2*LaneBytes)(wide)
			if err != nil {
				t.Fatal(err)
			}
			a, b := cost(paired), cost(plain)
			if a > b {
				t.Errorf("%v unzip %v, chunk %d: paired pieces cost %d operations, neighbours %d", pd, unzip, wide, a, b)
			}
			if pd.B == 3 && pd.E == 3*3*2 && 10*a > 9*b {
				t.Errorf("%v unzip %v, chunk %d: paired pieces cost %d operations, not 10%% under %d", pd, unzip, wide, a, b)
			}
		}
	}
	if _, err := Paired(CRD(3, 3, 2), 8, true); err == nil {
		t.Error("Paired took a chunk shorter than a lane")
	}
}

// TestGroupItems checks that shuffleBlended's groups are the cheapest, not
// the first fit: item 2 shares item 0's source, so grouping them saves the
// blend that first fit (items 0 and 1 together) pays.
func TestGroupItems(t *testing.T) {
	words := []uint64{0b01, 0b10, 0b10}
	srcs := []int{7, 8, 7}
	got := groupItems(words, func(i int) int { return srcs[i] })
	if want := []int{0, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
}
