package vec

import (
	"fmt"
	"slices"
)

// Programs for 64-byte registers with permutes across the whole register
// (AVX-512): each output register is gathered from at most two input
// registers per instruction, so a chunk needs no lane fix-ups, and every
// load and store is of whole registers, which the kernels mask at a row's
// end.

// ZMM is the width of the permute programs' registers.
const ZMM = 64

// PermuteShape is what one permute program moves: a Period (b lanes of E
// bytes per pixel) in grains of Grain bytes, the granularity of its permutes.
type PermuteShape struct {
	Period
	Grain int
}

// Chunk is the bytes of each lane one pass handles: the most whole pixels
// that fit in the lane's registers, with as few registers per lane as a
// pixel allows.
func (s PermuteShape) Chunk() int {
	regs := (s.E + ZMM - 1) / ZMM
	return regs * ZMM / s.E * s.E
}

// Regs is how many registers hold a lane's chunk.
func (s PermuteShape) Regs() int { return (s.Chunk() + ZMM - 1) / ZMM }

// IlvRegs is how many registers hold the interleaved side of a chunk.
func (s PermuteShape) IlvRegs() int { return (s.B*s.Chunk() + ZMM - 1) / ZMM }

// Span is the bytes past a chunk's start that its whole-register loads
// reach on the lanes (ilv false) or the interleaved side: a pass runs only
// where that many bytes are left, and the row's end goes through masks.
func (s PermuteShape) Span(ilv bool) int {
	if ilv {
		return s.IlvRegs() * ZMM
	}
	return s.Regs() * ZMM
}

// GatherZip builds the lanes-to-interleaved chunk of s by gathering: every
// output register takes its bytes from the lanes' registers, two at a
// time, merging in one more lane register per further permute.
func GatherZip(s PermuteShape) (*Prog, error) {
	p := NewProg(ZMM)
	var lanes []int
	for j := range s.B {
		for r := range s.Regs() {
			lanes = append(lanes, p.Load(Mem{j, r * ZMM}, ZMM))
		}
	}
	ilv, _ := s.want(s.Chunk(), true)
	if err := p.gatherStores(s.Grain, ilv, Mem{0, 0}, lanes); err != nil {
		return nil, fmt.Errorf("%v: %w", s, err)
	}
	return p.finish(inputs(s.B, s.Span(false)), map[int]Value{0: ilv})
}

// GatherUnzip builds the interleaved-to-lanes chunk of s by gathering.
func GatherUnzip(s PermuteShape) (*Prog, error) {
	p := NewProg(ZMM)
	var regs []int
	for r := range s.IlvRegs() {
		regs = append(regs, p.Load(Mem{0, r * ZMM}, ZMM))
	}
	_, lanes := s.want(s.Chunk(), false)
	for j := range s.B {
		if err := p.gatherStores(s.Grain, lanes[j], Mem{j, 0}, regs); err != nil {
			return nil, fmt.Errorf("%v: %w", s, err)
		}
	}
	return p.finish(inputs(1, s.Span(true)), lanes)
}

// gatherStores writes want to memory from at on, register by register,
// each gathered from srcs.
func (p *Prog) gatherStores(grain int, want Value, at Mem, srcs []int) error {
	for off := 0; off < len(want); off += ZMM {
		piece := want[off:min(off+ZMM, len(want))]
		v, err := p.gather(grain, piece, srcs)
		if err != nil {
			return fmt.Errorf("output %d bytes %d..%d: %w", at.Stream, at.Off+off, at.Off+off+len(piece), err)
		}
		p.Store(v, 0, len(piece), Mem{at.Stream, at.Off + off})
	}
	return nil
}

// gather returns a value holding want in its low bytes: a source that
// already does, or permutes of the sources that hold want's grains, the two
// holding the most first, then one more source at a time.
func (p *Prog) gather(grain int, want Value, srcs []int) (int, error) {
	for _, s := range srcs {
		if slices.Equal(p.values[s][:len(want)], want) {
			return s, nil
		}
	}
	n := ZMM / grain
	// where[k]: a source and grain index holding want's grain k.
	type at struct{ src, grain int }
	where := make([]at, (len(want)+grain-1)/grain)
	count := map[int]int{}
	for k := range where {
		w := want[k*grain : min(k*grain+grain, len(want))]
		where[k] = at{-1, 0}
		for _, s := range srcs {
			for q := range n {
				if slices.Equal(p.values[s][q*grain:][:len(w)], w) {
					where[k] = at{s, q}
					break
				}
			}
			if where[k].src >= 0 {
				break
			}
		}
		if where[k].src < 0 {
			return -1, fmt.Errorf("no source holds grain %d (%v)", k, w)
		}
		count[where[k].src]++
	}
	order := slices.Collect(func(yield func(int) bool) {
		for _, s := range srcs {
			if count[s] > 0 && !yield(s) {
				return
			}
		}
	})
	slices.SortStableFunc(order, func(a, b int) int { return count[b] - count[a] })
	first, second := order[0], order[0]
	if len(order) > 1 {
		second = order[1]
	}
	idx := make([]int, n)
	for k := range idx {
		idx[k] = 0 // grains the merges below fill, or that are not stored
	}
	for k, w := range where {
		switch w.src {
		case first:
			idx[k] = w.grain
		case second:
			idx[k] = n + w.grain
		}
	}
	acc := p.Permute2(first, second, grain, idx)
	for _, s := range order[min(2, len(order)):] {
		idx := make([]int, n)
		for k := range idx {
			idx[k] = -1
		}
		for k, w := range where {
			if w.src == s {
				idx[k] = n + w.grain
			}
		}
		acc = p.Permute2(acc, s, grain, idx)
	}
	return acc, nil
}

// deinterleaveIdx is the permute that takes the even (or odd) w-byte
// elements of two registers side by side.
func deinterleaveIdx(w, grain int, odd bool) []int {
	n, per := ZMM/grain, w/grain
	idx := make([]int, n)
	for k := range idx {
		e, sub := k/per, k%per
		src := 2 * e
		if odd {
			src++
		}
		idx[k] = src*per + sub
	}
	return idx
}

// NetworkUnzip builds the unzip chunk of b (a power of two) lanes of w-byte
// elements as log2(b) levels of deinterleaves across whole registers: the
// even elements of a run of registers, deinterleaved again, are the even
// lanes in order, the odd ones the odd lanes.
func NetworkUnzip(b, w, grain int) (*Prog, error) {
	p := NewProg(ZMM)
	regs := make([]int, b)
	for r := range regs {
		regs[r] = p.Load(Mem{0, r * ZMM}, ZMM)
	}
	return p.finishUnzip(p.network(regs, w, grain), b, w, ZMM)
}

// PairedNetworkUnzip builds the unzip chunk of b (2, 4 or 8) lanes of
// 1-byte elements for registers without byte permutes (AVX-512 BW): a
// shuffle within each 16-byte lane first pairs the bytes of lane j of two
// neighbouring pixels, (2q, j) and (2q+1, j), into one 2-byte grain, so
// that the register is an interleaved row of 2-byte elements, pixel q of
// which holds the pairs of lanes 0 to b-1; then NetworkUnzip's
// deinterleaves of 2-byte grains leave each lane's pairs in order, which
// are its bytes in order.
func PairedNetworkUnzip(b int) (*Prog, error) {
	if b < 2 || b > 8 || b&(b-1) != 0 {
		return nil, fmt.Errorf("vec: no paired unzip by %d", b)
	}
	p := NewProg(ZMM)
	mask := make([]int8, ZMM)
	for at := range mask { // byte (q*b + j)*2 + h of a lane holds byte (2q+h)*b + j
		x := at % LaneBytes
		q, j, h := x/2/b, x/2%b, x%2
		mask[at] = int8((2*q+h)*b + j)
	}
	regs := make([]int, b)
	for r := range regs {
		regs[r] = p.Shuffle(p.Load(Mem{0, r * ZMM}, ZMM), mask)
	}
	return p.finishUnzip(p.network(regs, 2, 2), b, 1, ZMM)
}

// network deinterleaves regs, an interleaved row of len(regs) lanes of
// w-byte elements, into the lanes, by two-table permutes of grain bytes.
func (p *Prog) network(regs []int, w, grain int) []int {
	if len(regs) == 1 {
		return regs
	}
	var even, odd []int
	for m := 0; m < len(regs); m += 2 {
		even = append(even, p.Permute2(regs[m], regs[m+1], grain, deinterleaveIdx(w, grain, false)))
		odd = append(odd, p.Permute2(regs[m], regs[m+1], grain, deinterleaveIdx(w, grain, true)))
	}
	le, lo := p.network(even, w, grain), p.network(odd, w, grain)
	out := make([]int, 0, len(regs))
	for k := range le {
		out = append(out, le[k], lo[k])
	}
	return out
}

// WindowZip builds the lanes-to-interleaved chunk of s from registers
// the loads assemble: for a group of output registers, each lane's bytes
// they need lie in one window of 16, 32 or 64 bytes; registers take the
// windows in turn (a load, then inserts from memory), and a permute of
// two of them makes each output register, with one more permute per
// further register. Groups of two outputs share their windows where two
// registers hold them. The inserts run beside the permutes, not on the
// same port.
func WindowZip(s PermuteShape) (*Prog, error) {
	p := NewProg(ZMM)
	c := s.Chunk()
	ilv, _ := s.want(c, true)
	outs := (len(ilv) + ZMM - 1) / ZMM
	for o := 0; o < outs; {
		group := min(2, outs-o)
		regs := p.windows(s, ilv, o, o+group)
		if len(regs) > 2 && group > 1 {
			group = 1
			regs = p.windows(s, ilv, o, o+1)
		}
		end := min(len(ilv), (o+group)*ZMM)
		if err := p.gatherStores(s.Grain, ilv[o*ZMM:end], Mem{0, o * ZMM}, regs); err != nil {
			return nil, err
		}
		o += group
	}
	return p.finish(inputs(s.B, s.Span(false)), map[int]Value{0: ilv})
}

// windows assembles, for output registers [from, to) of the interleaved
// bytes ilv, registers holding every lane's bytes they need, each lane's
// in one window.
func (p *Prog) windows(s PermuteShape, ilv Value, from, to int) []int {
	type window struct{ lane, off, size int }
	var ws []window
	for j := range s.B {
		lo, hi := -1, -1
		for _, l := range ilv[from*ZMM : min(len(ilv), to*ZMM)] {
			if m := l.Mem(); m.Stream == j {
				t := m.Off
				if lo < 0 || t < lo {
					lo = t
				}
				hi = max(hi, t+1)
			}
		}
		if lo < 0 {
			continue
		}
		size := 16
		for size < hi-lo && size < ZMM {
			size *= 2
		}
		// Inside what a pass may load of the lane; wider spans take
		// several windows.
		for ; lo < hi; lo += size {
			ws = append(ws, window{j, min(lo, s.Span(false)-size), size})
		}
	}
	// Each register takes windows while they fit, then the next one.
	var regs [][]window
	used := ZMM
	for _, w := range ws {
		if used+w.size > ZMM || used%w.size != 0 {
			regs = append(regs, nil)
			used = 0
		}
		regs[len(regs)-1] = append(regs[len(regs)-1], w)
		used += w.size
	}
	var out []int
	for _, r := range regs {
		v := p.Load(Mem{r[0].lane, r[0].off}, r[0].size)
		pos := r[0].size
		for _, w := range r[1:] {
			v = p.LoadInsert(v, Mem{w.lane, w.off}, w.size, pos)
			pos += w.size
		}
		out = append(out, v)
	}
	return out
}

// Blend is a with the grains that fromB selects taken from b at the same
// place: a Permute2 that moves nothing across the register, which the
// back end emits as a bitwise select, off the shuffle port.
func (p *Prog) Blend(a, b, grain int, fromB []bool) int {
	n := p.Width / grain
	idx := make([]int, n)
	for k := range idx {
		idx[k] = -1
		if fromB[k] {
			idx[k] = n + k
		}
	}
	return p.Permute2(a, b, grain, idx)
}

// IsBlend reports whether a Permute2 index takes every grain from its own
// place in A or in B.
func IsBlend(idx []int) bool {
	n := len(idx)
	for k, x := range idx {
		if x >= 0 && x != k && x != n+k {
			return false
		}
	}
	return true
}

// BlendUnzip builds the unzip chunk of s, where it can, with one permute
// per output register instead of one per source: when every place of the
// b input registers holds a grain of each lane in exactly one of them (b
// odd and 64-byte registers of a power-of-two number of elements, whose
// lane at each place then turns with the register), blends gather each
// lane's grains, scattered but each at its own place, into one register,
// and one one-table permute puts them in order. Blends do not use the
// shuffle port, which on Intel cores is the one that runs 512-bit
// permutes. It returns nil where the grains do not fall so.
func BlendUnzip(s PermuteShape) (*Prog, error) {
	if s.Chunk() != ZMM || s.IlvRegs() != s.B {
		return nil, nil
	}
	p := NewProg(ZMM)
	regs := make([]int, s.B)
	for r := range regs {
		regs[r] = p.Load(Mem{0, r * ZMM}, ZMM)
	}
	_, lanes := s.want(ZMM, false)
	n := ZMM / s.Grain
	grainOf := func(v Value, k int) Value { return v[k*s.Grain:][:s.Grain] }
	for j := range s.B {
		// from[k]: the register whose grain k is one of lane j's; at[k]:
		// which of them.
		from, at := make([]int, n), make([]int, n)
		for k := range n {
			from[k] = -1
			for r := range regs {
				for q := range n {
					if slices.Equal(grainOf(p.values[regs[r]], k), grainOf(lanes[j], q)) {
						from[k], at[k] = r, q
					}
				}
			}
			if from[k] < 0 {
				return nil, nil
			}
		}
		acc := regs[from[0]]
		for r := range regs {
			if r == from[0] || !slices.Contains(from, r) {
				continue
			}
			sel := make([]bool, n)
			for k := range n {
				sel[k] = from[k] == r
			}
			acc = p.Blend(acc, regs[r], s.Grain, sel)
		}
		idx := make([]int, n)
		seen := make([]bool, n)
		for k, q := range at {
			if seen[q] {
				return nil, nil
			}
			idx[q], seen[q] = k, true
		}
		if err := p.storeValue(j, p.Permute2(acc, acc, s.Grain, idx), lanes[j]); err != nil {
			return nil, err
		}
	}
	return p.finish(inputs(1, s.Span(true)), lanes)
}
