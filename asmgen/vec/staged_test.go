package vec

import "testing"

// TestStagedPrograms builds the staged programs of every NHWC CRD shape
// StagedFits takes, both ways, checks that they fit AVX2's 16 registers,
// and that they spend fewer operations per byte than the window programs
// they replace, which TestStagedFits pins to the shapes expected.
func TestStagedPrograms(t *testing.T) {
	built := 0
	for _, b := range []int{2, 3, 4, 8} {
		for _, cp := range []int{1, 2, 3, 4, 5} {
			for _, w := range []int{1, 2, 4, 8} {
				if !StagedFits(b, cp, w) {
					continue
				}
				pd, chunk := CRD(b, cp, w), StagedChunk(b, cp, w)
				for _, unzip := range []bool{false, true} {
					build, win := StagedZip, PeriodZip
					if unzip {
						build, win = StagedUnzip, PeriodUnzip
					}
					p, err := build(b, cp, w, chunk)
					if err != nil {
						t.Errorf("%v unzip %v: %v", pd, unzip, err)
						continue
					}
					if live := p.MaxLive(nil); live > 16 {
						t.Errorf("%v unzip %v: %d values live", pd, unzip, live)
					}
					small := pd.Chunks()[len(pd.Chunks())-1]
					old, err := win(pd, small)
					if err != nil {
						t.Fatal(err)
					}
					n, o := float64(shuffles(p))/float64(chunk), float64(shuffles(old))/float64(small)
					t.Logf("%v unzip %v: %.2f operations per byte, windows %.2f", pd, unzip, n, o)
					if n >= o {
						t.Errorf("%v unzip %v: %.2f operations per byte, windows %.2f", pd, unzip, n, o)
					}
					built++
				}
			}
		}
	}
	if built == 0 {
		t.Fatal("nothing built")
	}
}

// TestStagedFits: powers of two b from 4 on with runs of 4 or 8 bytes, and
// passes of at most 12 registers of depth pixels (b = 8 with C' = 3 needs
// 24).
func TestStagedFits(t *testing.T) {
	for _, c := range []struct {
		b, cp, w int
		ok       bool
	}{
		{4, 3, 1, true}, {4, 3, 2, true}, {4, 2, 1, true}, {4, 4, 2, true}, {8, 4, 1, true},
		{4, 3, 4, false}, {3, 3, 1, false}, {2, 3, 1, false}, {2, 3, 8, false}, {8, 3, 2, false}, {8, 3, 1, false},
	} {
		if got := StagedFits(c.b, c.cp, c.w); got != c.ok {
			t.Errorf("StagedFits(%d, %d, %d) = %v", c.b, c.cp, c.w, got)
		}
	}
}

// TestStagedChecks: a staged program whose network is told the wrong run
// must fail its own check, so a wrong table would never be emitted.
func TestStagedChecks(t *testing.T) {
	if _, err := StagedUnzip(4, 3, 1, 96); err != nil {
		t.Fatal(err)
	}
	if _, err := StagedUnzip(4, 3, 1, 48); err == nil {
		t.Error("a chunk of whole pixels but not whole registers was built")
	}
}
