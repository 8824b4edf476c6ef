package vec

import (
	"fmt"
	"slices"
)

// Staged programs move NHWC CRD pixels in two steps when a pixel's runs
// (j, s) of b*w bytes are grains the unpack network moves (2, 4 or 8
// bytes, b a power of two). A depth pixel is then a zip of b lanes (space
// rows i) of runs, so the network's deinterleaves take each space row's
// runs out whole, in (pixel, c) order; what is left is a shuffle within
// each pixel, (c, j) to (j, c), done by in-lane shuffles of those
// registers, with a lane move where a pixel straddles two lanes. The
// window programs (PeriodUnzip, PeriodZip) instead shuffle 16-byte windows
// of the depth pixels, and a window holds one run of each channel: four
// bytes of 16 with b = 4 and 1-byte elements, so six windows per 16 bytes
// of output. The zip direction runs the same steps backwards.

// StagedFits reports whether StagedUnzip and StagedZip build the NHWC CRD
// transpose of b, C' = cp and w-byte elements, and spend fewer operations
// than the window programs: from b = 4 on (with b = 2 a window holds two
// runs of each channel, and a staged zip costs more).
func StagedFits(b, cp, w int) bool {
	run := b * w
	return b&(b-1) == 0 && b >= 4 && cp > 0 && (run == 2 || run == 4 || run == 8) && StagedChunk(b, cp, w) > 0
}

// StagedChunk is the bytes of each space row one pass of a staged program
// handles: whole pixels in whole 32-byte registers, the fewest that are
// both, if the pass's depth pixels fill at most 12 registers (a pass holds
// them all, staged, at once); 0 otherwise.
func StagedChunk(b, cp, w int) int {
	pixel := b * cp * w
	for chunk := 2 * LaneBytes; b*chunk <= 12*2*LaneBytes; chunk += 2 * LaneBytes {
		if chunk%pixel == 0 {
			return chunk
		}
	}
	return 0
}

// StagedUnzip builds a chunk of the depth-to-space direction (tunzip):
// registers of the depth pixels through the unpack network, then each
// space row's registers gathered from that row's network outputs.
func StagedUnzip(b, cp, w, chunk int) (*Prog, error) {
	pd := CRD(b, cp, w)
	if err := stagedShape(b, cp, w, chunk); err != nil {
		return nil, err
	}
	const reg = 2 * LaneBytes
	p := NewProg(reg)
	_, rows := pd.want(chunk, false)
	staged := make([][]int, b) // space row i's runs, register by register
	moved := map[[2]int]int{}
	written := 0 // space-row registers written so far, in every row
	for r := range chunk / reg {
		for i, v := range p.unpackLanes(b, b*w, reg, r*b*reg) {
			staged[i] = append(staged[i], v)
		}
		// A register is ready once every pixel it touches is staged.
		ready := (r + 1) * reg / pd.E * pd.E / reg
		if r == chunk/reg-1 {
			ready = chunk / reg
		}
		for ; written < ready; written++ {
			for i := range b {
				v, err := p.pairGather(staged[i], rows[i][written*reg:][:reg], moved)
				if err != nil {
					return nil, fmt.Errorf("%v, row %d register %d: %w", pd, i, written, err)
				}
				p.Store(v, 0, reg, Mem{i, written * reg})
			}
		}
	}
	return p.finishPeriod(pd, chunk, true)
}

// StagedZip builds a chunk of the space-to-depth direction (tzip): each
// space row's registers shuffled into the order of its runs, then the
// unpack network zips the rows' runs into depth pixels.
func StagedZip(b, cp, w, chunk int) (*Prog, error) {
	pd := CRD(b, cp, w)
	if err := stagedShape(b, cp, w, chunk); err != nil {
		return nil, err
	}
	const reg = 2 * LaneBytes
	p := NewProg(reg)
	ilv, _ := pd.want(chunk, true)
	run := b * w
	loads := map[Mem]int{}
	moved := map[[2]int]int{}
	for r := range chunk / reg {
		vals := make([]int, b)
		for i := range b {
			// Register r of row i's runs: byte u is run u/run's byte u%run,
			// run x = (pixel, c) in order, taken from the row's (j, c)
			// order.
			want := make(Value, reg)
			var srcs []int
			for q := range want {
				u := r*reg + q
				x, t := u/run, u%run
				c, j, s := x%cp, t/w, t%w
				at := x/cp*pd.E + (j*cp+c)*w + s
				want[q] = In(i, at)
				m := Mem{i, at / reg * reg}
				if _, ok := loads[m]; !ok {
					loads[m] = p.Load(m, reg)
				}
				if !slices.Contains(srcs, loads[m]) {
					srcs = append(srcs, loads[m])
				}
			}
			v, err := p.pairGather(srcs, want, moved)
			if err != nil {
				return nil, fmt.Errorf("%v, row %d register %d: %w", pd, i, r, err)
			}
			vals[i] = v
		}
		unpackNetwork(p, vals, run)
		if err := p.storeAll(0, r*b*reg, ilv[r*b*reg:][:b*reg]); err != nil {
			return nil, fmt.Errorf("%v, chunk %d: %w", pd, chunk, err)
		}
	}
	return p.finishPeriod(pd, chunk, false)
}

func stagedShape(b, cp, w, chunk int) error {
	if !StagedFits(b, cp, w) || chunk%StagedChunk(b, cp, w) != 0 {
		return fmt.Errorf("%v: no staged program for chunks of %d bytes", CRD(b, cp, w), chunk)
	}
	return nil
}

// pairGather builds a 32-byte register holding want from the values srcs:
// each of its lanes ORs in-lane shuffles of the source lanes that hold
// its bytes, fewest first. A source lane in the other lane's place comes
// over by a lane move, which brings one such lane for each half of the
// result; moved caches the moves for the registers that follow.
func (p *Prog) pairGather(srcs []int, want Value, moved map[[2]int]int) (int, error) {
	for _, v := range srcs {
		if slices.Equal(p.values[v], want) {
			return v, nil
		}
	}
	type half struct{ v, lane int }
	var own []int      // values used where they are
	var away [2][]half // source lanes wanted in the other place, by result lane
	for h := range 2 {
		left := map[Label]bool{}
		for _, l := range want[h*LaneBytes:][:LaneBytes] {
			left[l] = true
		}
		for len(left) > 0 {
			best, most := half{-1, 0}, 0
			for _, v := range srcs {
				for _, g := range []int{h, 1 - h} { // its own place first, on ties
					n := 0
					for _, l := range p.values[v][g*LaneBytes:][:LaneBytes] {
						if left[l] {
							n++
						}
					}
					if n > most {
						best, most = half{v, g}, n
					}
				}
			}
			if best.v < 0 {
				return -1, fmt.Errorf("no source holds %d of the wanted bytes", len(left))
			}
			for _, l := range p.values[best.v][best.lane*LaneBytes:][:LaneBytes] {
				delete(left, l)
			}
			if best.lane == h {
				if !slices.Contains(own, best.v) {
					own = append(own, best.v)
				}
			} else {
				away[h] = append(away[h], best)
			}
		}
	}
	regs := own
	for k := range max(len(away[0]), len(away[1])) {
		// Lane 0 of the move from a lane 1, lane 1 from a lane 0.
		lo, hi := half{-1, 1}, half{-1, 0}
		if k < len(away[0]) {
			lo = away[0][k]
		}
		if k < len(away[1]) {
			hi = away[1][k]
		}
		if lo.v < 0 {
			lo.v = hi.v
		}
		if hi.v < 0 {
			hi.v = lo.v
		}
		key := [2]int{lo.v, hi.v}
		if _, ok := moved[key]; !ok {
			moved[key] = p.Lanes(lo.v, hi.v, [2]int{1, 2})
		}
		regs = append(regs, moved[key])
	}
	acc := -1
	taken := make([]bool, len(want))
	for _, v := range regs {
		mask := p.maskFor(v, want, func(Label) bool { return true })
		some := false
		for q, m := range mask {
			if m >= 0 && taken[q] {
				mask[q] = -1
			} else if m >= 0 {
				taken[q], some = true, true
			}
		}
		if !some {
			continue
		}
		sh := p.Shuffle(v, mask)
		if acc < 0 {
			acc = sh
		} else {
			acc = p.Or(acc, sh)
		}
	}
	return acc, nil
}
