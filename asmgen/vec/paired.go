package vec

import (
	"fmt"
	"slices"
)

// Paired builds a chunk of period pd (chunk bytes of each lane) in 32-byte
// registers whose two lanes hold any two 16-byte pieces of the output, not
// necessarily neighbours: pieces are paired so that one load feeds both
// lanes' shuffles as often as possible. PeriodZip's and PeriodUnzip's
// 32-byte registers hold 32 neighbouring output bytes, whose two halves
// draw on source windows that are rarely neighbours (a load and an insert
// per window pair). Other pairs do better: unzipping NHWC CRD of b = 3 and
// C' = 3, the same places of two rows draw on neighbouring bytes of the
// same pixels (rows 0 and 1 of a channel lie 6 bytes apart with 2-byte
// elements), one broadcast window for both. A register whose pieces are
// not neighbours is written as two 16-byte stores.
func Paired(pd Period, chunk int, unzip bool) (*Prog, error) {
	if chunk < LaneBytes {
		return nil, fmt.Errorf("%v: chunk %d is shorter than a lane", pd, chunk)
	}
	p := NewProg(2 * LaneBytes)
	ilv, lanes := pd.want(chunk, !unzip)
	out := map[int]Value{0: ilv}
	size := func(int) int { return chunk } // of each input stream
	if unzip {
		out = lanes
		size = func(int) int { return pd.B * chunk }
	}
	var pieces []piece
	for s := range len(out) {
		for off := 0; off < len(out[s]); off += LaneBytes {
			off = min(off, len(out[s])-LaneBytes) // the last piece overlaps its neighbour, rewriting the same bytes
			pieces = append(pieces, piece{Mem{s, off}, out[s][off : off+LaneBytes]})
		}
	}
	loads := map[windowLoad]int{}
	for _, pair := range pairPieces(pieces, size) {
		a, b := pair[0], pair[1]
		want := slices.Clone(a.want)
		if b != nil {
			want = append(want, b.want...)
		}
		var srcs []int
		for _, w := range cover(pairNeeds(a, b), size) {
			src, ok := loads[w]
			if !ok {
				src = w.load(p)
				loads[w] = src
			}
			srcs = append(srcs, src)
		}
		acc := p.blendShuffles(srcs, want)
		switch {
		case a.follows(b):
			p.Store(acc, 0, 2*LaneBytes, a.at)
		default:
			p.Store(acc, 0, LaneBytes, a.at)
			if b != nil {
				p.Store(acc, 1, LaneBytes, b.at)
			}
		}
	}
	return p.finishPeriod(pd, chunk, unzip)
}

// A piece is 16 bytes of output at at: the input bytes they take.
type piece struct {
	at   Mem
	want Value
}

// follows reports whether piece b (nil: none) starts where a ends: the two
// make one 32-byte store.
func (a *piece) follows(b *piece) bool {
	return b != nil && b.at.Stream == a.at.Stream && b.at.Off == a.at.Off+LaneBytes
}

// pairNeeds is the input bytes, sorted, each lane of a register of pieces
// a and b (nil: none) needs.
func pairNeeds(a, b *piece) [2][]Mem {
	var need [2][]Mem
	for h, pc := range []*piece{a, b} {
		if pc == nil {
			continue
		}
		for _, l := range pc.want {
			need[h] = append(need[h], l.Mem())
		}
		slices.SortFunc(need[h], func(x, y Mem) int { return 1<<24*(x.Stream-y.Stream) + x.Off - y.Off })
		need[h] = slices.Compact(need[h])
	}
	return need
}

// pairPieces pairs pieces greedily by what sharing a register saves (load,
// shuffle and store operations against each piece alone); a piece left
// over takes a register of its own.
func pairPieces(pieces []piece, size func(stream int) int) [][2]*piece {
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
func pairCost(a, b *piece, size func(int) int) int {
	n := 1
	if b != nil && !a.follows(b) {
		n++
	}
	for _, w := range cover(pairNeeds(a, b), size) {
		n += w.cost()
	}
	return n
}

// A windowLoad puts input windows into a register's two lanes: the 16
// bytes at lo in lane 0 and those at hi in lane 1.
type windowLoad struct{ lo, hi Mem }

// wide reports whether the windows are neighbours, one 32-byte load.
func (w windowLoad) wide() bool { return w.hi == Mem{w.lo.Stream, w.lo.Off + LaneBytes} }

// cost counts a window load's operations: a load or two (and an insert),
// the shuffle's mask load, the shuffle.
func (w windowLoad) cost() int {
	if w.lo != w.hi && !w.wide() {
		return 5
	}
	return 3
}

// load emits the window load: one 32-byte load for neighbouring windows,
// a broadcast for the same window, a load and an insert otherwise.
func (w windowLoad) load(p *Prog) int {
	switch {
	case w.lo == w.hi:
		return p.LoadBcast(w.hi)
	case w.wide():
		return p.Load(w.lo, 2*LaneBytes)
	}
	return p.LoadPair(w.lo, w.hi)
}

// cover picks window loads, each inside its input stream (size bytes),
// that hold every byte either lane needs: repeatedly the load covering the
// most needed bytes per operation among those holding the first byte a
// lane still needs.
func cover(need [2][]Mem, size func(stream int) int) []windowLoad {
	in := func(m, w Mem) bool { return m.Stream == w.Stream && m.Off >= w.Off && m.Off < w.Off+LaneBytes }
	fits := func(w Mem) bool { return w.Off >= 0 && w.Off+LaneBytes <= size(w.Stream) }
	covers := func(w windowLoad) int {
		n := 0
		for h, win := range []Mem{w.lo, w.hi} {
			for _, m := range need[h] {
				if in(m, win) {
					n++
				}
			}
		}
		return n
	}
	holding := func(m Mem) []Mem { // the windows holding m
		var s []Mem
		for off := m.Off - LaneBytes + 1; off <= m.Off; off++ {
			if w := (Mem{m.Stream, off}); fits(w) {
				s = append(s, w)
			}
		}
		return s
	}
	var out []windowLoad
	for len(need[0])+len(need[1]) > 0 {
		var cands []windowLoad
		if len(need[0]) > 0 {
			for _, w := range holding(need[0][0]) {
				cands = append(cands, windowLoad{w, w}, windowLoad{w, Mem{w.Stream, w.Off + LaneBytes}})
				if len(need[1]) > 0 {
					first := need[1][0]
					cands = append(cands, windowLoad{w, Mem{first.Stream, min(first.Off, size(first.Stream)-LaneBytes)}})
				}
			}
		}
		if len(need[1]) > 0 {
			for _, w := range holding(need[1][0]) {
				cands = append(cands, windowLoad{w, w}, windowLoad{Mem{w.Stream, w.Off - LaneBytes}, w})
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
		need[0] = slices.DeleteFunc(need[0], func(m Mem) bool { return in(m, best.lo) })
		need[1] = slices.DeleteFunc(need[1], func(m Mem) bool { return in(m, best.hi) })
	}
	return out
}

// blendShuffles builds a register holding want from the window registers
// srcs, in order, each giving the wanted bytes no register before it gave.
// Windows whose bytes lie in different dwords of their registers share
// one byte shuffle (shuffleBlended): with b = 3 a 16-byte window holds a
// few bytes of each space row, and most pieces draw on three.
func (p *Prog) blendShuffles(srcs []int, want Value) int {
	var items []blendItem
	taken := make([]bool, len(want))
	for _, src := range srcs {
		if mask := p.newBytes(src, want, taken); maskWords(mask) != 0 {
			items = append(items, blendItem{src, mask})
		}
	}
	return p.shuffleBlended(items)
}

// A blendItem is the bytes a byte shuffle takes (mask) from register src.
type blendItem struct {
	src  int
	mask []int8
}

// maskWords is the set of a register's dwords a shuffle mask reads.
func maskWords(mask []int8) uint64 {
	var words uint64
	for i, m := range mask {
		if m >= 0 {
			words |= 1 << ((i/LaneBytes*LaneBytes + int(m)) / 4)
		}
	}
	return words
}

// shuffleBlended ORs together one byte shuffle per group of items whose
// dwords differ, each group's register its first item's source with the
// dwords of each other source blended in. Dword blends run on any vector
// port and need no mask, where a shuffle of its own would cost a shuffle,
// a mask load and an OR. The groups are those of least cost (shuffles,
// ORs and blends) over every way to form them, for up to exactItems
// items; beyond, first fit in order.
func (p *Prog) shuffleBlended(items []blendItem) int {
	type group struct {
		srcs  []int    // distinct sources, the first the register's base
		words []uint64 // the dwords taken from each source
		mask  []int8
	}
	words := make([]uint64, len(items))
	for i, it := range items {
		words[i] = maskWords(it.mask)
	}
	join := func(g *group, i int) {
		k := slices.Index(g.srcs, items[i].src)
		if k < 0 {
			g.srcs, g.words = append(g.srcs, items[i].src), append(g.words, 0)
			k = len(g.srcs) - 1
		}
		g.words[k] |= words[i]
		for j, m := range items[i].mask {
			if m >= 0 {
				g.mask[j] = m
			}
		}
	}
	assign := groupItems(words, func(i int) int { return items[i].src })
	var groups []*group
	for i, g := range assign {
		for len(groups) <= g {
			groups = append(groups, &group{mask: slices.Repeat([]int8{-1}, len(items[i].mask))})
		}
		join(groups[g], i)
	}
	acc := -1
	for _, g := range groups {
		reg := g.srcs[0]
		for k := 1; k < len(g.srcs); k++ {
			fromB := make([]bool, p.Width/4)
			for d := range fromB {
				fromB[d] = g.words[k]>>d&1 == 1
			}
			reg = p.Blend(reg, g.srcs[k], 4, fromB)
		}
		sh := p.Shuffle(reg, g.mask)
		if acc < 0 {
			acc = sh
		} else {
			acc = p.Or(acc, sh)
		}
	}
	return acc
}

// exactItems bounds the items groupItems searches every grouping of.
const exactItems = 12

// groupItems puts items (their dwords, and src naming each one's source)
// into groups of disjoint dwords, numbered in order of first item, of
// least cost: a shuffle and an OR per group and a blend per source after
// a group's first.
func groupItems(words []uint64, src func(int) int) []int {
	n := len(words)
	best, cur := make([]int, n), make([]int, n)
	var used []uint64
	var srcs [][]int
	bestCost := 1 << 30
	var walk func(i, cost int)
	walk = func(i, cost int) {
		if cost >= bestCost {
			return
		}
		if i == n {
			bestCost = cost
			copy(best, cur)
			return
		}
		for g := range used {
			if used[g]&words[i] != 0 {
				continue
			}
			add := 0
			if !slices.Contains(srcs[g], src(i)) {
				add = 1
			}
			u, s := used[g], srcs[g]
			used[g] |= words[i]
			srcs[g] = append(s[:len(s):len(s)], src(i))
			cur[i] = g
			walk(i+1, cost+add)
			used[g], srcs[g] = u, s
			if n > exactItems {
				return // first fit
			}
		}
		used, srcs = append(used, words[i]), append(srcs, []int{src(i)})
		cur[i] = len(used) - 1
		walk(i+1, cost+2)
		used, srcs = used[:len(used)-1], srcs[:len(srcs)-1]
	}
	walk(0, 0)
	return best
}
