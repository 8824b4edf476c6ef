package vec

import (
	"fmt"
	"slices"
)

// A Period describes a shuffle that repeats pixel by pixel: b lanes of E
// bytes per pixel on one side, b*E interleaved bytes per pixel on the other,
// and byte t of lane j at interleaved byte Map(j, t) of the same pixel. A
// zip of E-byte elements has Map(j, t) = j*E + t; NHWC CRD permutes within
// the pixel.
type Period struct {
	B, E int
	Map  func(j, t int) int
}

// Runs is the zip of b lanes of E-byte elements: NHWC DCR, whose pixels
// hold the b block rows' runs one after the other.
func Runs(b, e int) Period {
	return Period{b, e, func(j, t int) int { return j*e + t }}
}

// CRD is NHWC CRD with C' = cp channels of w bytes: a depth pixel holds
// channels c*b*b + i*b + j, and space row i takes them in the order (j, c).
// Lane i is space row i; its byte t is element (j, c) = (t/w/cp, t/w%cp).
func CRD(b, cp, w int) Period {
	return Period{b, b * cp * w, func(i, t int) int {
		e, s := t/w, t%w
		j, c := e/cp, e%cp
		return ((c*b+i)*b+j)*w + s
	}}
}

// want returns what the interleaved stream and each lane hold, for chunk
// bytes of every lane, as labels of the lanes (zip) or of the interleaved
// stream (unzip).
func (pd Period) want(chunk int, zip bool) (ilv Value, lanes map[int]Value) {
	ilv = make(Value, pd.B*chunk)
	lanes = map[int]Value{}
	for j := range pd.B {
		lanes[j] = make(Value, chunk)
		for u := range chunk {
			x, t := u/pd.E, u%pd.E
			p := x*pd.B*pd.E + pd.Map(j, t)
			if zip {
				ilv[p] = In(j, u)
			} else {
				lanes[j][u] = In(0, p)
			}
		}
	}
	return ilv, lanes
}

// Chunks are the chunk sizes of a period's kernels, largest first: the
// smallest multiples of E (and of 4, for the stores) that reach 16 and 32
// bytes, since every load is a 16-byte window inside the chunk.
func (pd Period) Chunks() []int {
	step := pd.E
	for step%4 != 0 {
		step += pd.E
	}
	small := (LaneBytes + step - 1) / step * step
	large := (2*LaneBytes + step - 1) / step * step
	if large == small {
		return []int{small}
	}
	return []int{large, small}
}

// PeriodZip builds a chunk of the lanes-to-interleaved direction in 16-byte
// registers: every 16 bytes of output OR pshufbs of 16-byte windows of the
// lanes that hold its bytes.
func PeriodZip(pd Period, chunk int) (*Prog, error) { return periodZip(pd, chunk, LaneBytes) }

// PeriodUnzip builds a chunk of the interleaved-to-lanes direction in
// 16-byte registers.
func PeriodUnzip(pd Period, chunk int) (*Prog, error) { return periodUnzip(pd, chunk, LaneBytes) }

func periodZip(pd Period, chunk, width int) (*Prog, error) {
	p := NewProg(width)
	ilv, _ := pd.want(chunk, true)
	gather := windowGather(p, func(l Label) (Mem, int) { return Mem{l.Mem().Stream, 0}, chunk })
	for off := 0; off < len(ilv); off += width {
		v := gather(ilv[off:min(off+width, len(ilv))])
		if err := p.storeRange(v, 0, min(width, len(ilv)-off), Mem{0, off}); err != nil {
			return nil, err
		}
	}
	return p.finishPeriod(pd, chunk, false)
}

func periodUnzip(pd Period, chunk, width int) (*Prog, error) {
	p := NewProg(width)
	_, lanes := pd.want(chunk, false)
	total := pd.B * chunk
	gather := windowGather(p, func(Label) (Mem, int) { return Mem{0, 0}, total })
	for j := range pd.B {
		for off := 0; off < chunk; off += width {
			v := gather(lanes[j][off:min(off+width, chunk)])
			if err := p.storeRange(v, 0, min(width, chunk-off), Mem{j, off}); err != nil {
				return nil, err
			}
		}
	}
	return p.finishPeriod(pd, chunk, true)
}

// WideChunks are the chunks of a period kernel in 32-byte registers,
// largest first: a pass of whole registers where a few make whole pixels
// (whole periods of E and of 4 bytes, at most 128 bytes), else as many
// periods as fit 128 bytes, then the 16-byte kernels' Chunks for a row's
// end.
func (pd Period) WideChunks() []int {
	step := pd.E
	for step%4 != 0 {
		step += pd.E
	}
	wide := max(step, 8*LaneBytes/step*step)
	for c := step; c <= 8*LaneBytes; c += step {
		if c%(2*LaneBytes) == 0 {
			wide = c
			break
		}
	}
	return slices.Compact(append([]int{wide}, pd.Chunks()...))
}

// finishPeriod finishes a chunk of pd (chunk bytes of each lane), proving
// it reads inside its inputs and writes what pd wants: the lanes for an
// unzip, the interleaved stream for a zip.
func (p *Prog) finishPeriod(pd Period, chunk int, unzip bool) (*Prog, error) {
	ilv, lanes := pd.want(chunk, !unzip)
	if unzip {
		return p.finish(inputs(1, pd.B*chunk), lanes)
	}
	return p.finish(inputs(pd.B, chunk), map[int]Value{0: ilv})
}

// windowGather returns a function that builds a register holding want (up
// to one register of labels): it covers the wanted bytes of each lane of
// the register with 16-byte windows lying inside their input streams,
// shuffles each window's bytes into place and ORs the results. stream
// tells, for a label, the stream's base and length. In 32-byte registers
// the k-th windows of both lanes share a register and so one shuffle: one
// 32-byte load where they are neighbours, a load and an insert where not.
func windowGather(p *Prog, stream func(Label) (Mem, int)) func(want Value) int {
	loads := map[[2]Mem]int{} // registers of windows, shared
	none := Mem{-1, -1}
	return func(want Value) int {
		var windows [2][]Mem
		for h := 0; h*LaneBytes < len(want); h++ {
			windows[h] = coverWindows(want[h*LaneBytes:min(len(want), (h+1)*LaneBytes)], stream)
		}
		acc := -1
		taken := make([]bool, len(want))
		for k := range max(len(windows[0]), len(windows[1])) {
			pair := [2]Mem{none, none}
			for h := range pair {
				if k < len(windows[h]) {
					pair[h] = windows[h][k]
				}
			}
			src, ok := loads[pair]
			if !ok {
				src = p.loadWindows(pair, stream)
				loads[pair] = src
			}
			acc = p.shuffleIn(acc, src, want, taken)
		}
		return acc
	}
}

// shuffleIn ORs into acc (-1: nothing yet) the bytes of want that the
// window register src holds and no window before it gave (taken), shuffled
// into place.
func (p *Prog) shuffleIn(acc, src int, want Value, taken []bool) int {
	sh := p.Shuffle(src, p.newBytes(src, want, taken))
	if acc < 0 {
		return sh
	}
	return p.Or(acc, sh)
}

// newBytes is the shuffle mask that brings into place the bytes of want
// that src holds and no source before it gave (taken), which it marks
// taken.
func (p *Prog) newBytes(src int, want Value, taken []bool) []int8 {
	mask := p.maskFor(src, want, func(Label) bool { return true })
	for i, m := range mask {
		if m >= 0 && taken[i] {
			mask[i] = -1
		} else if m >= 0 {
			taken[i] = true
		}
	}
	return mask
}

// coverWindows returns 16-byte windows, each inside its stream, that hold
// every label of want: per stream, from its lowest wanted byte up.
func coverWindows(want Value, stream func(Label) (Mem, int)) []Mem {
	need := map[Mem][]int{} // stream -> wanted byte offsets
	var streams []Mem
	for _, l := range want {
		s, _ := stream(l)
		if _, ok := need[s]; !ok {
			streams = append(streams, s)
		}
		need[s] = append(need[s], l.Mem().Off)
	}
	var out []Mem
	for _, s := range streams {
		_, size := stream(In(s.Stream, 0))
		offs := need[s]
		slices.Sort(offs)
		for len(offs) > 0 {
			start := min(offs[0], size-LaneBytes)
			out = append(out, Mem{s.Stream, start})
			offs = slices.DeleteFunc(offs, func(o int) bool { return o >= start && o < start+LaneBytes })
		}
	}
	return out
}

// loadWindows loads the windows of lane 0 and lane 1 of a register (a
// negative Stream: none) into one register: a 16-byte register takes lane
// 0's.
func (p *Prog) loadWindows(pair [2]Mem, stream func(Label) (Mem, int)) int {
	lo, hi := pair[0], pair[1]
	switch {
	case p.Width == LaneBytes || hi.Stream < 0:
		return p.Load(lo, LaneBytes)
	case lo.Stream < 0 || lo == hi:
		return p.LoadBcast(hi)
	}
	if _, size := stream(In(lo.Stream, 0)); hi.Stream == lo.Stream && hi.Off == lo.Off+LaneBytes && lo.Off+2*LaneBytes <= size {
		return p.Load(lo, 2*LaneBytes)
	}
	return p.LoadPair(lo, hi)
}

// String names a period for messages.
func (pd Period) String() string { return fmt.Sprintf("period b=%d E=%d", pd.B, pd.E) }
