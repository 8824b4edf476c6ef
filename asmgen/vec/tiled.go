package vec

import (
	"fmt"
	"math/bits"
	"slices"
)

// Tiled builds a chunk of period pd (chunk bytes of each lane) in 32-byte
// registers from 16-byte windows that tile each input stream, every window
// read once, as a broadcast, however many output registers draw on it.
// Paired and the window programs instead place each register's windows
// where its bytes lie and load them for that register alone: with b = 3 a
// window then feeds one space row, a third of its bytes, and the loads
// (windows and shuffle masks) bound the loop. Here each output register
// takes its bytes from the windows holding them, merged by dword blends
// where their bytes lie in different dwords (blends run on any vector
// port and need no mask) so that few byte shuffles serve them all.
func Tiled(pd Period, chunk int, unzip bool) (*Prog, error) {
	const reg = 2 * LaneBytes
	if chunk < reg {
		return nil, fmt.Errorf("%v: chunk %d is shorter than a register", pd, chunk)
	}
	p := NewProg(reg)
	ilv, lanes := pd.want(chunk, !unzip)
	out, size := map[int]Value{0: ilv}, chunk // the output streams, the bytes of each input stream
	if unzip {
		out, size = lanes, pd.B*chunk
	}
	// Registers at the same place of every output stream draw on the
	// same windows: build them in turn, so that a window's register is
	// live for a short while.
	var at []Mem
	for off := 0; off < len(out[0]); off += reg {
		for s := range len(out) {
			at = append(at, Mem{s, min(off, len(out[s])-reg)}) // the last overlaps its neighbour
		}
	}
	windows := map[Mem]int{}
	window := func(l Label) Mem {
		m := l.Mem()
		w := Mem{m.Stream, min(m.Off/LaneBytes*LaneBytes, size-LaneBytes)}
		if _, ok := windows[w]; !ok {
			windows[w] = p.LoadBcast(w)
		}
		return w
	}
	for _, m := range at {
		want := out[m.Stream][m.Off : m.Off+reg]
		p.Store(p.tiledGather(want, window, windows), 0, reg, m)
	}
	return p.finishPeriod(pd, chunk, unzip)
}

// tiledGather builds a register holding want from the broadcast windows
// (window names the one holding a label): each lane's bytes of a window
// are one item, and items whose dwords differ share a byte shuffle
// (shuffleBlended), the items with most dwords placed first.
func (p *Prog) tiledGather(want Value, window func(Label) Mem, windows map[Mem]int) int {
	var items []blendItem
	type place struct {
		win  Mem
		lane int
	}
	index := map[place]int{} // each item's index in items
	for i, l := range want {
		w := window(l)
		h := i / LaneBytes
		key := place{w, h}
		k, ok := index[key]
		if !ok {
			k = len(items)
			index[key] = k
			items = append(items, blendItem{windows[w], slices.Repeat([]int8{-1}, len(want))})
		}
		items[k].mask[i] = int8(l.Mem().Off - w.Off)
	}
	dwords := func(it blendItem) int { return bits.OnesCount64(maskWords(it.mask)) }
	slices.SortStableFunc(items, func(a, b blendItem) int { return dwords(b) - dwords(a) })
	return p.shuffleBlended(items)
}

// WideWindows builds the wide chunk of a period kernel from 16-byte
// windows: Tiled where fits accepts it (it holds more windows live) and
// its loop is estimated faster on AMD's cores and at most 5% slower on
// Intel's (the estimate's margin: llvm-mca puts d2s of b = 3, C' = 3 and
// 1-byte elements 4% faster on Skylake where this puts it 3% slower),
// else Paired.
func WideWindows(pd Period, chunk int, unzip bool, fits func(*Prog) bool) (*Prog, error) {
	paired, err := Paired(pd, chunk, unzip)
	if err != nil {
		return nil, err
	}
	tiled, err := Tiled(pd, chunk, unzip)
	if err != nil || !fits(tiled) {
		return paired, nil
	}
	pAMD, pIntel := loopCycles(paired)
	tAMD, tIntel := loopCycles(tiled)
	if tAMD < pAMD && tIntel <= 1.05*pIntel {
		return tiled, nil
	}
	return paired, nil
}

// loopCycles estimates a window program's cycles per pass from its port
// pressure and its instructions, on AMD's cores (Zen 4: two 32-byte loads
// a cycle, byte shuffles on two of four vector pipes, six instructions
// issued a cycle) and on Intel's (Skylake: two loads, every shuffle on
// one port, shuffles, blends and ORs sharing three, four instructions a
// cycle). A shuffle's mask is a load too; an insert from memory is a load
// and a vector operation. Tiled's broadcasts save loads and its blends
// cost instructions and vector operations, which Intel's cores have fewer
// of: most of its zips lose there.
func loopCycles(p *Prog) (amd, intel float64) {
	var loads, shuffles, alu, instrs float64
	for _, in := range p.Instrs {
		instrs++
		switch in.Op {
		case Load, LoadBcast:
			loads++
		case LoadPair:
			loads += 2
			alu++
			instrs++
		case Shuffle:
			loads++
			shuffles++
			alu++
		case Or, Permute2:
			alu++
		}
	}
	return max(loads/2, shuffles/2, alu/4, instrs/6), max(loads/2, shuffles, alu/3, instrs/4)
}
