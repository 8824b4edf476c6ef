package vec

import "testing"

// TestPixelNetworks builds every CRD period whose pixels fit a lane or a
// register, both ways, for every chunk its kernels use, and checks that the
// network has fewer shuffles than the window program it replaces.
func TestPixelNetworks(t *testing.T) {
	built := 0
	for _, b := range []int{2, 3, 4, 8} {
		for _, cp := range []int{2, 3, 4} { // the kernel table's; C' = 1 is a zip
			for _, w := range []int{1, 2, 4, 8} {
				pd := CRD(b, cp, w)
				fits := PixelFits(pd)
				if want := b&(b-1) == 0 && cp&(cp-1) == 0 && b*b*cp*w <= LaneBytes || b == 2 && b*cp*w == LaneBytes; fits != want {
					t.Errorf("PixelFits(%v) = %v, want %v", pd, fits, want)
				}
				if !fits {
					if _, err := PixelNetwork(pd, pd.Chunks()[0], false); err == nil {
						t.Errorf("PixelNetwork(%v) built pixels that do not fit a lane", pd)
					}
					continue
				}
				for _, c := range pd.Chunks() {
					for _, unzip := range []bool{false, true} {
						net, err := PixelNetwork(pd, c, unzip)
						if err != nil {
							t.Errorf("PixelNetwork(%v, %d, unzip %v): %v", pd, c, unzip, err)
							continue
						}
						build := PeriodZip
						if unzip {
							build = PeriodUnzip
						}
						win, err := build(pd, c)
						if err != nil {
							t.Fatal(err)
						}
						if n, w := shuffles(net), shuffles(win); n >= w {
							t.Errorf("%v chunk %d unzip %v: network of %d shuffles, windows %d", pd, c, unzip, n, w)
						}
						built++
					}
				}
			}
		}
	}
	if built == 0 {
		t.Fatal("no period fits a lane")
	}
}

// TestPixelNetworkChecksItsShuffle: the same network with the identity in
// place of the pixel shuffle, a plain zip of E-byte elements, must be
// rejected for a CRD period.
func TestPixelNetworkChecksItsShuffle(t *testing.T) {
	pd := CRD(2, 4, 1)
	if _, err := PixelNetwork(pd, 32, true); err != nil {
		t.Fatal(err)
	}
	plain := Runs(2, pd.E) // same b and E, DCR order: no shuffle needed
	net, err := UnpackUnzip(plain.B, plain.E, 32)
	if err != nil {
		t.Fatal(err)
	}
	_, lanes := pd.want(32, false)
	if err := net.Check(lanes); err == nil {
		t.Fatal("a zip without the pixel shuffle passed as a CRD transpose")
	}
}

// shuffles counts the instructions that are neither loads nor stores.
func shuffles(p *Prog) int {
	n := 0
	for _, in := range p.Instrs {
		switch in.Op {
		case Load, LoadPair, LoadBcast, Store:
		default:
			n++
		}
	}
	return n
}

// TestRunNetworks builds the run network of every transpose RunFits takes
// (and checks which those are: b = 2, runs of 16 or 32 bytes), both ways,
// with fewer shuffles than the window programs.
func TestRunNetworks(t *testing.T) {
	built := 0
	for _, b := range []int{2, 3, 4} {
		for _, cp := range []int{2, 3, 4} {
			for _, w := range []int{1, 2, 4, 8} {
				run := cp * w
				if want := b == 2 && (run == 16 || run == 32); RunFits(b, cp, w) != want {
					t.Errorf("RunFits(%d, %d, %d) = %v, want %v", b, cp, w, !want, want)
				}
				if !RunFits(b, cp, w) {
					continue
				}
				for _, c := range RunChunks(b, cp, w) {
					for _, unzip := range []bool{false, true} {
						net, err := RunNetwork(b, cp, w, c, unzip)
						if err != nil {
							t.Errorf("RunNetwork(%d, %d, %d, chunk %d, unzip %v): %v", b, cp, w, c, unzip, err)
							continue
						}
						build := PeriodZip
						if unzip {
							build = PeriodUnzip
						}
						win, err := build(CRD(b, cp, w), c)
						if err != nil {
							t.Fatal(err)
						}
						if n, w := shuffles(net), shuffles(win); n >= w {
							t.Errorf("b=%d C'=%d w=%d chunk %d unzip %v: network of %d shuffles, windows %d", b, cp, w, c, unzip, n, w)
						}
						built++
					}
				}
			}
		}
	}
	if built == 0 {
		t.Fatal("no transpose has a run network")
	}
	if _, err := RunNetwork(2, 3, 4, 24, true); err == nil {
		t.Error("RunNetwork built runs of 12 bytes")
	}
}
