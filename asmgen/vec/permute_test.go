package vec

import (
	"testing"
)

// permuteShapes are the shapes of every AVX-512 fixed-b kernel family, at
// the grain of each: zips of power-of-two elements, NHWC runs of other
// sizes, and NHWC CRD pixels.
func permuteShapes() []PermuteShape {
	var out []PermuteShape
	grain := func(e int) int {
		u := 1
		for e%(2*u) == 0 && u < 8 {
			u *= 2
		}
		return u
	}
	for b := 2; b <= 8; b++ {
		for _, w := range []int{1, 2, 4, 8, 16, 3, 6, 9, 12} {
			for _, u := range []int{1, grain(w)} {
				out = append(out, PermuteShape{Runs(b, w), u})
			}
		}
	}
	for b := 2; b <= 4; b++ {
		for cp := 2; cp <= 4; cp++ {
			for _, w := range []int{1, 2, 4, 8} {
				if b*b*cp*w <= 256 {
					out = append(out, PermuteShape{CRD(b, cp, w), grain(w)})
				}
			}
		}
	}
	return out
}

// TestGatherPrograms builds (and so checks) the gathering programs of
// every shape, and reports their size in verbose mode.
func TestGatherPrograms(t *testing.T) {
	for _, s := range permuteShapes() {
		z, err := GatherZip(s)
		if err != nil {
			t.Errorf("GatherZip(%v grain %d): %v", s.Period, s.Grain, err)
			continue
		}
		u, err := GatherUnzip(s)
		if err != nil {
			t.Errorf("GatherUnzip(%v grain %d): %v", s.Period, s.Grain, err)
			continue
		}
		wz, err := WindowZip(s)
		if err != nil {
			t.Errorf("WindowZip(%v grain %d): %v", s.Period, s.Grain, err)
			continue
		}
		// Never more permutes than gathering from whole lanes.
		if count(wz, Permute2) > count(z, Permute2) {
			t.Errorf("WindowZip(%v grain %d): %d permutes, GatherZip %d", s.Period, s.Grain, count(wz, Permute2), count(z, Permute2))
		}
		if testing.Verbose() {
			t.Logf("%v grain %d chunk %d: zip %d permutes (%d with windows), unzip %d, for %d output bytes", s.Period, s.Grain, s.Chunk(), count(z, Permute2), count(wz, Permute2), count(u, Permute2), s.B*s.Chunk())
		}
	}
}

func TestNetworks(t *testing.T) {
	for _, b := range []int{2, 4, 8} {
		for _, w := range []int{1, 2, 4, 8, 16} {
			for _, grain := range []int{1, min(w, 8)} {
				u, err := NetworkUnzip(b, w, grain)
				if err != nil {
					t.Errorf("NetworkUnzip(%d, %d, %d): %v", b, w, grain, err)
					continue
				}
				if want := b * log2(b); count(u, Permute2) != want {
					t.Errorf("NetworkUnzip(%d, %d, %d): %d permutes, want %d", b, w, grain, count(u, Permute2), want)
				}
			}
		}
	}
}

// TestPairedNetworks: the paired byte unzips are one shuffle per register
// and the word network's permutes, of 2-byte grains; a network over the
// bytes as they load, without the pairing shuffle, is refused, and so is a
// block size with no network.
func TestPairedNetworks(t *testing.T) {
	for _, b := range []int{2, 4, 8} {
		u, err := PairedNetworkUnzip(b)
		if err != nil {
			t.Errorf("PairedNetworkUnzip(%d): %v", b, err)
			continue
		}
		if count(u, Shuffle) != b || count(u, Permute2) != b*log2(b) {
			t.Errorf("PairedNetworkUnzip(%d): %d shuffles and %d permutes, want %d and %d", b, count(u, Shuffle), count(u, Permute2), b, b*log2(b))
		}
		for _, in := range u.Instrs {
			if in.Op == Permute2 && in.Grain != 2 {
				t.Errorf("PairedNetworkUnzip(%d): a permute of %d-byte grains", b, in.Grain)
			}
		}
		p := NewProg(ZMM)
		regs := make([]int, b)
		for r := range regs {
			regs[r] = p.Load(Mem{0, r * ZMM}, ZMM)
		}
		want := UnzipWant(b, 1, ZMM)
		var bad error
		for j, v := range p.network(regs, 2, 2) {
			if err := p.storeValue(j, v, want[j]); err != nil {
				bad = err
			}
		}
		if _, err := p.finish(inputs(1, b*ZMM), want); bad == nil && err == nil {
			t.Errorf("unzip by %d of bytes as words, unpaired: accepted", b)
		}
	}
	if _, err := PairedNetworkUnzip(3); err == nil {
		t.Error("PairedNetworkUnzip(3): no error")
	}
}

func log2(b int) int {
	n := 0
	for ; b > 1; b /= 2 {
		n++
	}
	return n
}
