package vec

import (
	"fmt"
	"slices"
)

// PairedUnzip builds a chunk of the interleaved-to-lanes direction of pd in
// 32-byte registers whose two lanes hold any two 16-byte pieces of the
// output, not necessarily neighbours: pieces are paired so that one load
// feeds both lanes' shuffles as often as possible. Where PeriodUnzip's
// 32-byte registers hold 32 bytes of one lane, whose two halves draw on
// windows far apart in the source (a load and an insert per window pair),
// the same places of two lanes draw on neighbouring bytes of the same
// pixels: NHWC CRD of b = 3 and C' = 3 puts rows 0 and 1 of each channel
// 6 bytes apart (2-byte elements), one broadcast window for both. A
// register whose pieces are not neighbours is written as two 16-byte
// stores.
func PairedUnzip(pd Period, chunk int) (*Prog, error) {
	if chunk < LaneBytes {
		return nil, fmt.Errorf("%v: chunk %d is shorter than a lane", pd, chunk)
	}
	p := NewProg(2 * LaneBytes)
	_, lanes := pd.want(chunk, false)
	size := pd.B * chunk
	var pieces []piece
	for j := range pd.B {
		for off := 0; off < chunk; off += LaneBytes {
			off = min(off, chunk-LaneBytes) // the last piece overlaps its neighbour, rewriting the same bytes
			pieces = append(pieces, piece{j, off, lanes[j][off : off+LaneBytes]})
		}
	}
	loads := map[windowLoad]int{}
	for _, pair := range pairPieces(pieces, size) {
		a, b := pair[0], pair[1]
		want := slices.Clone(a.want)
		if b != nil {
			want = append(want, b.want...)
		}
		acc := -1
		taken := make([]bool, len(want))
		for _, w := range cover(pairNeeds(a, b), size) {
			src, ok := loads[w]
			if !ok {
				src = w.load(p)
				loads[w] = src
			}
			mask := p.maskFor(src, want, func(Label) bool { return true })
			for i, m := range mask {
				if m >= 0 && taken[i] {
					mask[i] = -1
				} else if m >= 0 {
					taken[i] = true
				}
			}
			sh := p.Shuffle(src, mask)
			if acc < 0 {
				acc = sh
			} else {
				acc = p.Or(acc, sh)
			}
		}
		switch {
		case b != nil && b.lane == a.lane && b.off == a.off+LaneBytes:
			p.Store(acc, 0, 2*LaneBytes, Mem{a.lane, a.off})
		default:
			p.Store(acc, 0, LaneBytes, Mem{a.lane, a.off})
			if b != nil {
				p.Store(acc, 1, LaneBytes, Mem{b.lane, b.off})
			}
		}
	}
	return p.finishPeriod(pd, chunk, true)
}

// A piece is 16 bytes of one lane's output: the source bytes they take.
type piece struct {
	lane, off int
	want      Value
}

// pairNeeds is the sorted source offsets each lane of a register of
// pieces a and b (nil: none) needs.
func pairNeeds(a, b *piece) [2][]int {
	var need [2][]int
	for h, pc := range []*piece{a, b} {
		if pc == nil {
			continue
		}
		for _, l := range pc.want {
			need[h] = append(need[h], int(l&(1<<24-1)))
		}
		slices.Sort(need[h])
		need[h] = slices.Compact(need[h])
	}
	return need
}

// pairPieces pairs pieces greedily by what sharing a register saves (load,
// shuffle and store operations against each piece alone); a piece left
// over takes a register of its own.
func pairPieces(pieces []piece, size int) [][2]*piece {
	alone := make([]int, len(pieces))
	for i := range pieces {
		alone[i] = pairCost(&pieces[i], nil, size)
	}
	type cand struct{ i, j, gain int }
	var cands []cand
	for i := range pieces {
		for j := i + 1; j < len(pieces); j++ {
			cands = append(cands, cand{i, j, alone[i] + alone[j] - pairCost(&pieces[i], &pieces[j], size)})
		}
	}
	slices.SortStableFunc(cands, func(x, y cand) int { return y.gain - x.gain })
	used := make([]bool, len(pieces))
	var out [][2]*piece
	for _, c := range cands {
		if !used[c.i] && !used[c.j] {
			used[c.i], used[c.j] = true, true
			out = append(out, [2]*piece{&pieces[c.i], &pieces[c.j]})
		}
	}
	for i := range pieces {
		if !used[i] {
			out = append(out, [2]*piece{&pieces[i], nil})
		}
	}
	return out
}

// pairCost is the operations a register of pieces a and b costs: its
// windows' loads, shuffles (masks are loads too) and inserts, and its
// stores.
func pairCost(a, b *piece, size int) int {
	n := 1
	if b != nil && !(b.lane == a.lane && b.off == a.off+LaneBytes) {
		n++
	}
	for _, w := range cover(pairNeeds(a, b), size) {
		n += w.cost()
	}
	return n
}

// A windowLoad puts source windows into a register's two lanes: the 16
// bytes at lo in lane 0 and those at hi in lane 1.
type windowLoad struct{ lo, hi int }

// cost counts a window load's operations: a load or two (and an insert),
// the shuffle's mask load, the shuffle.
func (w windowLoad) cost() int {
	if w.hi != w.lo && w.hi != w.lo+LaneBytes {
		return 5
	}
	return 3
}

// load emits the window load: one 32-byte load for neighbouring windows,
// a broadcast for the same window, a load and an insert otherwise.
func (w windowLoad) load(p *Prog) int {
	switch {
	case w.lo == w.hi:
		return p.LoadBcast(Mem{0, w.hi})
	case w.hi == w.lo+LaneBytes:
		return p.Load(Mem{0, w.lo}, 2*LaneBytes)
	}
	return p.LoadPair(Mem{0, w.lo}, Mem{0, w.hi})
}

// cover picks window loads, each inside the size-byte source, that hold
// every byte either lane needs: repeatedly the load covering the most
// needed bytes per operation, among those holding the lowest byte a lane
// still needs.
func cover(need [2][]int, size int) []windowLoad {
	var out []windowLoad
	in := func(o, start int) bool { return o >= start && o < start+LaneBytes }
	covers := func(w windowLoad) int {
		n := 0
		for _, o := range need[0] {
			if in(o, w.lo) {
				n++
			}
		}
		for _, o := range need[1] {
			if in(o, w.hi) {
				n++
			}
		}
		return n
	}
	fits := func(start int) bool { return start >= 0 && start+LaneBytes <= size }
	for len(need[0])+len(need[1]) > 0 {
		var cands []windowLoad
		starts := func(o int) []int { // windows holding o
			var s []int
			for st := o - LaneBytes + 1; st <= o; st++ {
				if fits(st) {
					s = append(s, st)
				}
			}
			return s
		}
		if len(need[0]) > 0 {
			for _, s := range starts(need[0][0]) {
				cands = append(cands, windowLoad{s, s}, windowLoad{s, s + LaneBytes})
				if len(need[1]) > 0 {
					cands = append(cands, windowLoad{s, min(need[1][0], size-LaneBytes)})
				}
			}
		}
		if len(need[1]) > 0 {
			for _, s := range starts(need[1][0]) {
				cands = append(cands, windowLoad{s, s}, windowLoad{s - LaneBytes, s})
			}
		}
		best, bestScore := windowLoad{}, -1.0
		for _, w := range cands {
			if !fits(w.lo) || !fits(w.hi) {
				continue
			}
			if score := float64(covers(w)) / float64(w.cost()); score > bestScore {
				best, bestScore = w, score
			}
		}
		out = append(out, best)
		need[0] = slices.DeleteFunc(need[0], func(o int) bool { return in(o, best.lo) })
		need[1] = slices.DeleteFunc(need[1], func(o int) bool { return in(o, best.hi) })
	}
	return out
}
