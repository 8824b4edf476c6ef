package vec

import "testing"

// TestTiled builds Tiled on the wide chunk of every period of the AVX2
// table, both ways (finish proves that each program moves every byte to
// its place, reading only inside the chunk), checks that it reads each
// 16-byte window of its input once, and that WideWindows takes it for the
// depth-to-space of ESPCN's x3 output (b = 3, C' = 3) in 1- and 2-byte
// elements, where Paired's loads bound the loop, and not for its
// SpaceToDepth in 1-byte elements, where its blends would cost more on
// Intel's cores.
func TestTiled(t *testing.T) {
	for _, pd := range tablePeriods() {
		chunk := pd.WideChunks()[0]
		if chunk < 2*LaneBytes {
			continue
		}
		for _, unzip := range []bool{false, true} {
			p, err := Tiled(pd, chunk, unzip)
			if err != nil {
				t.Errorf("%v unzip %v: %v", pd, unzip, err)
				continue
			}
			windows := (chunk + LaneBytes - 1) / LaneBytes * pd.B // b streams of chunk bytes, or one of b*chunk
			loads := 0
			for _, in := range p.Instrs {
				switch in.Op {
				case LoadBcast:
					loads++
				case Load, LoadPair, LoadInsert:
					t.Errorf("%v unzip %v: %v is not a broadcast window", pd, unzip, in.Op)
				}
			}
			if loads > windows {
				t.Errorf("%v unzip %v, chunk %d: %d window loads, %d windows", pd, unzip, chunk, loads, windows)
			}
		}
	}
	fits := func(*Prog) bool { return true }
	for _, c := range []struct {
		pd    Period
		unzip bool
		tiled bool
	}{{CRD(3, 3, 1), true, true}, {CRD(3, 3, 2), true, true}, {CRD(3, 3, 1), false, false}} {
		chunk := c.pd.WideChunks()[0]
		p, err := WideWindows(c.pd, chunk, c.unzip, fits)
		if err != nil {
			t.Fatal(err)
		}
		tiled := true
		for _, in := range p.Instrs {
			tiled = tiled && in.Op != LoadPair && in.Op != Load
		}
		if tiled != c.tiled {
			t.Errorf("%v unzip %v: WideWindows took Tiled %v, want %v", c.pd, c.unzip, tiled, c.tiled)
		}
	}
}
