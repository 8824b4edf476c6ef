package vec

import "testing"

// TestRotate builds every rotating zip and unzip (finish proves them) and
// counts their shuffles: one permute per lane, the rest blends.
func TestRotate(t *testing.T) {
	for _, b := range []int{3, 5, 7} {
		for _, w := range []int{1, 2, 4, 8} {
			for name, build := range map[string]func(int, int, int) (*Prog, error){"RotateZip": RotateZip, "RotateUnzip": RotateUnzip} {
				for _, chunk := range []int{16, 32} {
					p, err := build(b, w, chunk)
					if err != nil {
						t.Fatalf("%s(%d, %d, %d): %v", name, b, w, chunk, err)
					}
					permutes, blends := 0, 0
					for _, in := range p.Instrs {
						switch {
						case in.Op == Quads || in.Op == Shuffle || in.Op == Permute2 && !IsBlend(in.Idx):
							permutes++
						case in.Op == Permute2:
							blends++
						}
					}
					if permutes != b || blends > b*(b-1) {
						t.Errorf("%s(%d, %d, %d): %d permutes and %d blends, want %d and at most %d", name, b, w, chunk, permutes, blends, b, b*(b-1))
					}
				}
			}
		}
	}
	for _, b := range []int{3, 5, 7} {
		for _, w := range []int{1, 2} {
			p, err := RotateZip(b, w, ZMM)
			if err != nil {
				t.Fatalf("RotateZip(%d, %d, 64): %v", b, w, err)
			}
			if live := p.MaxLive(nil); live > 32 {
				t.Errorf("RotateZip(%d, %d, 64): %d values live", b, w, live)
			}
		}
	}
	if _, err := RotateZip(3, 4, ZMM); err == nil {
		t.Error("RotateZip(3, 4, 64) built")
	}
	for _, c := range [][2]int{{2, 4}, {3, 3}, {1, 1}, {4, 8}, {3, 16}} {
		if _, err := RotateZip(c[0], c[1], 32); err == nil {
			t.Errorf("RotateZip(%d, %d) built", c[0], c[1])
		}
	}
}
