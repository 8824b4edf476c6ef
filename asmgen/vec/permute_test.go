package vec

import (
	"testing"
)

// permuteShapes are the shapes of every AVX-512 fixed-b kernel family, at
// the unit of each: zips of power-of-two elements, NHWC runs of other
// sizes, and NHWC CRD pixels.
func permuteShapes() []PermuteShape {
	var out []PermuteShape
	unit := func(e int) int {
		u := 1
		for e%(2*u) == 0 && u < 8 {
			u *= 2
		}
		return u
	}
	for b := 2; b <= 8; b++ {
		for _, w := range []int{1, 2, 4, 8, 16, 3, 6, 9, 12} {
			for _, u := range []int{1, unit(w)} {
				out = append(out, PermuteShape{Runs(b, w), u})
			}
		}
	}
	for b := 2; b <= 4; b++ {
		for cp := 2; cp <= 4; cp++ {
			for _, w := range []int{1, 2, 4, 8} {
				if b*b*cp*w <= 256 {
					out = append(out, PermuteShape{CRD(b, cp, w), unit(w)})
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
			t.Errorf("GatherZip(%v unit %d): %v", s.Period, s.Unit, err)
			continue
		}
		u, err := GatherUnzip(s)
		if err != nil {
			t.Errorf("GatherUnzip(%v unit %d): %v", s.Period, s.Unit, err)
			continue
		}
		wz, err := WindowZip(s)
		if err != nil {
			t.Errorf("WindowZip(%v unit %d): %v", s.Period, s.Unit, err)
			continue
		}
		// Never more permutes than gathering from whole lanes.
		if count(wz, Permute2) > count(z, Permute2) {
			t.Errorf("WindowZip(%v unit %d): %d permutes, GatherZip %d", s.Period, s.Unit, count(wz, Permute2), count(z, Permute2))
		}
		if testing.Verbose() {
			t.Logf("%v unit %d chunk %d: zip %d permutes (%d with windows), unzip %d, for %d output bytes", s.Period, s.Unit, s.Chunk(), count(z, Permute2), count(wz, Permute2), count(u, Permute2), s.B*s.Chunk())
		}
	}
}

func TestNetworks(t *testing.T) {
	for _, b := range []int{2, 4, 8} {
		for _, w := range []int{1, 2, 4, 8, 16} {
			for _, unit := range []int{1, min(w, 8)} {
				u, err := NetworkUnzip(b, w, unit)
				if err != nil {
					t.Errorf("NetworkUnzip(%d, %d, %d): %v", b, w, unit, err)
					continue
				}
				if want := b * log2(b); count(u, Permute2) != want {
					t.Errorf("NetworkUnzip(%d, %d, %d): %d permutes, want %d", b, w, unit, count(u, Permute2), want)
				}
			}
		}
	}
}

func log2(b int) int {
	n := 0
	for ; b > 1; b /= 2 {
		n++
	}
	return n
}
