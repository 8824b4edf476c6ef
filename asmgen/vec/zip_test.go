package vec

import (
	"fmt"
	"testing"
)

// Every builder must produce a program that Check accepts (finish runs it);
// these tests build them all, and show that Check rejects a wrong program.

func chunks(w int) []int {
	var out []int
	for _, c := range []int{4, 8, 16, 32} {
		if c >= w {
			out = append(out, c)
		}
	}
	return out
}

func TestUnpackNetworks(t *testing.T) {
	for _, b := range []int{2, 4, 8} {
		for _, w := range []int{1, 2, 4, 8} {
			for _, c := range chunks(w) {
				if _, err := UnpackZip(b, w, c); err != nil {
					t.Errorf("UnpackZip(b=%d, w=%d, chunk=%d): %v", b, w, c, err)
				}
				if _, err := UnpackUnzip(b, w, c); err != nil {
					t.Errorf("UnpackUnzip(b=%d, w=%d, chunk=%d): %v", b, w, c, err)
				}
			}
		}
	}
}

func TestShuffleNetworks(t *testing.T) {
	for b := 2; b <= 9; b++ {
		for _, w := range []int{1, 2, 4, 8} {
			for _, c := range chunks(w) {
				if _, err := ShuffleZip(b, w, c); err != nil {
					t.Errorf("ShuffleZip(b=%d, w=%d, chunk=%d): %v", b, w, c, err)
				}
				if _, err := ShuffleUnzip(b, w, c); err != nil {
					t.Errorf("ShuffleUnzip(b=%d, w=%d, chunk=%d): %v", b, w, c, err)
				}
			}
		}
	}
}

func TestLanes(t *testing.T) {
	for b := 1; b <= 9; b++ {
		for _, c := range []int{16, 32} {
			if _, err := LaneZip(b, c); err != nil {
				t.Errorf("LaneZip(%d, %d): %v", b, c, err)
			}
			if _, err := LaneUnzip(b, c); err != nil {
				t.Errorf("LaneUnzip(%d, %d): %v", b, c, err)
			}
		}
	}
}

// TestCheckCatchesMistakes swaps the halves of one interleave in a correct
// network: Check must reject it.
func TestCheckCatchesMistakes(t *testing.T) {
	p := NewProg(32)
	a, b := p.Load(Mem{0, 0}, 32), p.Load(Mem{1, 0}, 32)
	lo, hi := p.Interleave(a, b, 2, false), p.Interleave(a, b, 2, true)
	p.Store(p.Lanes(lo, hi, [2]int{0, 2}), 0, 32, Mem{0, 0})
	p.Store(p.Lanes(lo, hi, [2]int{3, 1}), 0, 32, Mem{0, 32}) // lanes swapped
	err := p.Check(map[int]Value{0: ZipWant(2, 2, 32)})
	if err == nil {
		t.Fatal("Check accepted a wrong program")
	}
	t.Log(err)
}

// TestSizes reports how many instructions each network takes, which is
// what bounds the kernels' speed.
func TestSizes(t *testing.T) {
	for _, b := range []int{2, 3, 4, 8} {
		for _, w := range []int{1, 4} {
			zip, unzip := UnpackZip, UnpackUnzip
			if b == 3 {
				zip, unzip = ShuffleZip, ShuffleUnzip
			}
			z, err1 := zip(b, w, 32)
			u, err2 := unzip(b, w, 32)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			t.Log(fmt.Sprintf("b=%d w=%d: zip %d instrs, unzip %d instrs for %d bytes", b, w, len(z.Instrs), len(u.Instrs), 32*b))
		}
	}
}

func TestPeriods(t *testing.T) {
	var pds []Period
	for _, b := range []int{2, 3, 4} {
		for _, e := range []int{3, 6, 9, 12} {
			pds = append(pds, Runs(b, e))
		}
		for _, cp := range []int{2, 3, 4} {
			for _, w := range []int{1, 2, 4, 8} {
				pds = append(pds, CRD(b, cp, w))
			}
		}
	}
	for _, pd := range pds {
		for _, c := range pd.Chunks() {
			z, err := PeriodZip(pd, c)
			if err != nil {
				t.Errorf("PeriodZip(%v, %d): %v", pd, c, err)
				continue
			}
			u, err := PeriodUnzip(pd, c)
			if err != nil {
				t.Errorf("PeriodUnzip(%v, %d): %v", pd, c, err)
				continue
			}
			if testing.Verbose() {
				t.Logf("%v chunk %d: zip %d instrs, unzip %d", pd, c, len(z.Instrs), len(u.Instrs))
			}
		}
	}
}

// TestPeriodMatchesZip checks that the period of plain runs is the zip.
func TestPeriodMatchesZip(t *testing.T) {
	ilv, _ := Runs(3, 4).want(32, true)
	if fmt.Sprint(ilv) != fmt.Sprint(ZipWant(3, 4, 32)) {
		t.Fatal("Runs(3, 4) is not the zip of 4-byte elements")
	}
}

// TestCheckLoadsCatchesOverreach: a load one byte before its row must be
// rejected, as one past the row's end.
func TestCheckLoadsCatchesOverreach(t *testing.T) {
	for _, off := range []int{-1, 9} {
		p := NewProg(16)
		p.Store(p.Load(Mem{0, off}, 8), 0, 8, Mem{0, 0})
		if err := p.CheckLoads(map[int]int{0: 16}); err == nil {
			t.Errorf("CheckLoads accepted a load at %d of an 16-byte input", off)
		}
	}
}

func TestTwice(t *testing.T) {
	for _, b := range []int{2, 4, 8} {
		for _, w := range []int{1, 2, 4, 8} {
			z, err := UnpackZip(b, w, 16)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Twice(z, b, w, false); err != nil {
				t.Errorf("Twice(zip b=%d w=%d): %v", b, w, err)
			}
			u, err := UnpackUnzip(b, w, 16)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Twice(u, b, w, true); err != nil {
				t.Errorf("Twice(unzip b=%d w=%d): %v", b, w, err)
			}
		}
	}
}

// TestLines doubles the b = 8 unzips the AVX2 kernels use, which Lines
// checks on symbolic data, and checks what it is for: within 16 registers,
// each held lane's two stores follow each other, and at least one lane is
// held.
func TestLines(t *testing.T) {
	for _, w := range []int{1, 2, 4, 8, 16} {
		build := func() (*Prog, error) { return UnpackUnzip(8, w, 32) }
		if 8*w <= LaneBytes {
			build = func() (*Prog, error) { return TransposeUnzip(8, w) }
		} else if w == LaneBytes {
			build = func() (*Prog, error) { return LaneUnzip(8, 32) }
		}
		p, err := build()
		if err != nil {
			t.Fatal(err)
		}
		q, err := Lines(p, 8, w, 32, 16, nil)
		if err != nil {
			t.Errorf("Lines(w=%d): %v", w, err)
			continue
		}
		if live := q.MaxLive(nil); live > 16 {
			t.Errorf("Lines(w=%d): %d values live", w, live)
		}
		var stores []Mem
		for _, in := range q.Instrs {
			if in.Op == Store {
				stores = append(stores, in.Mem)
			}
		}
		held := 0
		for i := 1; i < len(stores); i++ {
			if s := stores[i]; s.Off >= 32 && stores[i-1].Stream == s.Stream && stores[i-1].Off < 32 {
				held++
			}
		}
		if held == 0 {
			t.Errorf("Lines(w=%d): no lane's stores are paired: %v", w, stores)
		}
	}
	if _, err := Lines(must(TransposeUnzip(8, 1)), 8, 1, 32, 4, nil); err == nil {
		t.Error("Lines held stores in 4 registers")
	}
}

func must(p *Prog, err error) *Prog {
	if err != nil {
		panic(err)
	}
	return p
}

// TestWideUnzip2 builds the one-register unzips, which finish checks on
// symbolic data, and checks their shape: one load, one shuffle (and, for
// 16-byte chunks, one move of 8-byte grains), two stores; other widths and
// chunks are refused.
func TestWideUnzip2(t *testing.T) {
	for _, w := range []int{1, 2, 4} {
		for _, chunk := range []int{8, 16} {
			p, err := WideUnzip2(w, chunk)
			if err != nil {
				t.Fatalf("w=%d chunk %d: %v", w, chunk, err)
			}
			ops := map[Op]int{}
			for _, in := range p.Instrs {
				ops[in.Op]++
			}
			quads := map[int]int{8: 0, 16: 1}[chunk]
			if len(p.Instrs) != 4+quads || ops[Load] != 1 || ops[Shuffle] != 1 || ops[Quads] != quads || ops[Store] != 2 {
				t.Errorf("w=%d chunk %d: %v", w, chunk, p)
			}
		}
	}
	for _, c := range [][2]int{{8, 16}, {1, 4}, {1, 32}} {
		if _, err := WideUnzip2(c[0], c[1]); err == nil {
			t.Errorf("w=%d chunk %d accepted", c[0], c[1])
		}
	}
}

// TestTransposeUnzip builds the transposing unzips AVX2 uses, which finish
// checks on symbolic data, and refuses what it cannot transpose.
func TestTransposeUnzip(t *testing.T) {
	for _, c := range [][2]int{{4, 1}, {4, 2}, {4, 4}, {8, 1}, {8, 2}} {
		if _, err := TransposeUnzip(c[0], c[1]); err != nil {
			t.Errorf("b=%d w=%d: %v", c[0], c[1], err)
		}
	}
	for _, c := range [][2]int{{2, 1}, {3, 1}, {8, 4}, {4, 8}} {
		if _, err := TransposeUnzip(c[0], c[1]); err == nil {
			t.Errorf("b=%d w=%d accepted", c[0], c[1])
		}
	}
}
