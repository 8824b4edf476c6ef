package vec

import (
	"fmt"
	"maps"
	"slices"
)

// Zip kernels interleave b rows of w-byte elements: output element x*b + j is
// element x of row j. Unzip kernels do the reverse. A chunk is the number of
// bytes of each row one pass of the body handles (4, 8, 16 or 32); the
// interleaved side then holds b*chunk bytes.
//
// Streams: in a zip body the rows are input streams 0..b-1 and the
// interleaved bytes output stream 0; in an unzip body the interleaved bytes
// are input stream 0 and the rows output streams 0..b-1.

// ZipWant is what a zip chunk must write to its output stream 0.
func ZipWant(b, w, chunk int) Value {
	out := make(Value, b*chunk)
	for p := range out {
		e := p / w
		out[p] = In(e%b, e/b*w+p%w)
	}
	return out
}

// UnzipWant is what an unzip chunk must write to each output row.
func UnzipWant(b, w, chunk int) map[int]Value {
	want := map[int]Value{}
	for j := range b {
		row := make(Value, chunk)
		for t := range row {
			row[t] = In(0, (t/w*b+j)*w+t%w)
		}
		want[j] = row
	}
	return want
}

// TransposeUnzip builds the unzip of b lanes of w-byte elements (b a power
// of two from 4, pixels of b*w <= 16 bytes) by 32-byte chunks as a
// transpose: each register takes one 16-byte piece of the interleaved
// bytes from each half of the chunk, a byte shuffle gathers, within each
// 16-byte lane, the bytes of every lane j into grain j (16/b bytes), and
// the zip network over the b registers at that grain transposes the grains,
// which leaves each lane's chunk whole in one register (or its 16-byte
// pieces in registers' lanes), stored from there. Its shuffles are all single-cycle unpacks and
// one pshufb a register, where UnpackUnzip's deinterleaves mask or shift
// and pack at every level.
func TransposeUnzip(b, w int) (*Prog, error) {
	const chunk = 2 * LaneBytes
	if b < 4 || b&(b-1) != 0 || b*w > LaneBytes {
		return nil, fmt.Errorf("vec: no transposing unzip of %d lanes of %d-byte elements", b, w)
	}
	p := NewProg(chunk)
	u, q := LaneBytes/b, LaneBytes/(b*w) // the grain of lane j in a 16-byte lane; pixels in one
	mask := make([]int8, chunk)
	for l := 0; l < chunk; l += LaneBytes {
		for j := range b {
			for x := range q {
				for e := range w {
					mask[l+j*u+x*w+e] = int8((x*b+j)*w + e)
				}
			}
		}
	}
	regs := make([]int, b)
	for r := range regs {
		regs[r] = p.LoadPair(Mem{0, LaneBytes * r}, Mem{0, LaneBytes * (b + r)})
		if q > 1 {
			regs[r] = p.Shuffle(regs[r], mask)
		}
	}
	unpackNetwork(p, regs, u)
	want := UnzipWant(b, w, chunk)
	for j := range b {
		if v, _ := p.Find(want[j]); v >= 0 { // the whole chunk, lanes in order
			p.Store(v, 0, chunk, Mem{j, 0})
			continue
		}
		for h := range 2 {
			v, part := p.Find(want[j][h*LaneBytes:][:LaneBytes])
			if v < 0 {
				return nil, fmt.Errorf("vec: transposing unzip of %d lanes of %d-byte elements: piece %d of lane %d is in no register", b, w, h, j)
			}
			p.Store(v, part, LaneBytes, Mem{j, h * LaneBytes})
		}
	}
	return p.finish(inputs(1, b*chunk), want)
}

// Lines returns p, an unzip body of b lanes by chunks of chunk bytes, run
// on two chunks in a row, with the first chunk's stores to the last lanes
// held back until the second chunk's store to the same lane: each of those
// lanes then gets its 2*chunk bytes (a 64-byte cache line, for 32-byte
// chunks) from stores in a row. Why: lanes 4 KiB apart (64x64 planes) put
// the b lines a chunk writes into one set of an 8-way L1, and with b = 8,
// lines written half at a time were evicted between their halves. On a
// Zen 4, SpaceToDepth of 1-byte elements with b = 8 into 64x64 planes: 9.5
// µs a call, 7.6 µs with half the lanes' stores held (copy(): 4.7 µs). As
// many lanes are held, up to b/2, as regs registers allow.
func Lines(p *Prog, b, w, chunk, regs int, scratch func(Instr) int) (*Prog, error) {
	q := NewProg(p.Width)
	for h := range 2 {
		q.replay(p, func(m Mem, load bool) Mem {
			if load {
				m.Off += h * b * chunk
			} else {
				m.Off += h * chunk
			}
			return m
		})
	}
	q.Prune()
	q.Schedule()
	for held := b / 2; held > 0; held-- {
		r := q.holding(func(m Mem) bool { return m.Stream >= b-held && m.Off < chunk })
		if r.MaxLive(scratch) > regs {
			continue
		}
		if err := r.CheckLoads(inputs(1, 2*b*chunk)); err != nil {
			return nil, err
		}
		if err := r.Check(UnzipWant(b, w, 2*chunk)); err != nil {
			return nil, err
		}
		return r, nil
	}
	return nil, fmt.Errorf("vec: no lane of a %d-lane unzip can hold its stores in %d registers", b, regs)
}

// holding returns p with the stores to places held (which must precede the
// next store to the same stream at a place not held) moved to just before
// that store.
func (p *Prog) holding(held func(Mem) bool) *Prog {
	q := *p
	q.Instrs = nil
	waiting := map[int][]Instr{}
	for _, in := range p.Instrs {
		switch s := in.Mem.Stream; {
		case in.Op != Store:
		case held(in.Mem):
			waiting[s] = append(waiting[s], in)
			continue
		default:
			q.Instrs = append(q.Instrs, waiting[s]...)
			delete(waiting, s)
		}
		q.Instrs = append(q.Instrs, in)
	}
	for _, s := range slices.Sorted(maps.Keys(waiting)) { // streams not stored to again
		q.Instrs = append(q.Instrs, waiting[s]...)
	}
	return &q
}

// WideUnzip2 builds the unzip of 2 lanes of w-byte elements (1 to 4
// bytes) by chunks of 8 or 16 bytes in one register of twice the chunk: a
// load of the interleaved bytes, a shuffle that puts each 16-byte lane's
// even grains before its odd ones and, for 16-byte chunks, a move of the
// 8-byte grains that gathers the even ones in the low half, the odd ones in
// the high half; each half is one lane's chunk. One or two shuffles a
// chunk, where deinterleaves take two to four (AVX2 only: NEON
// deinterleaves in one instruction).
func WideUnzip2(w, chunk int) (*Prog, error) {
	if w != 1 && w != 2 && w != 4 || chunk != 8 && chunk != 16 {
		return nil, fmt.Errorf("vec: no wide unzip of %d-byte elements by %d-byte chunks", w, chunk)
	}
	p := NewProg(2 * chunk)
	v := p.Load(Mem{0, 0}, 2*chunk)
	mask := make([]int8, 2*chunk)
	for l := 0; l < 2*chunk; l += LaneBytes {
		for k := range LaneBytes / w {
			half := k % 2 * LaneBytes / 2 // even grains low, odd ones high
			for e := range w {
				mask[l+half+k/2*w+e] = int8(k*w + e)
			}
		}
	}
	v = p.Shuffle(v, mask)
	if chunk == LaneBytes {
		v = p.Quads(v, []int{0, 2, 1, 3})
	}
	p.Store(v, 0, chunk, Mem{0, 0})
	p.Store(v, 1, chunk, Mem{1, 0})
	return p.finish(inputs(1, 2*chunk), UnzipWant(2, w, chunk))
}

// width is the register width a chunk is processed in.
func width(chunk int) int { return max(chunk, LaneBytes) }

// UnpackZip builds a zip chunk for b a power of two from in-lane
// interleaves: log2(b) levels of b interleaves each, then lane moves that put
// the 16-byte pieces in order.
func UnpackZip(b, w, chunk int) (*Prog, error) {
	p := NewProg(width(chunk))
	rows := make([]int, b)
	for j := range rows {
		rows[j] = p.Load(Mem{j, 0}, chunk)
	}
	unpackNetwork(p, rows, w)
	if err := p.storeAll(0, 0, ZipWant(b, w, chunk)); err != nil {
		return nil, err
	}
	return p.finish(inputs(b, chunk), map[int]Value{0: ZipWant(b, w, chunk)})
}

// unpackNetwork interleaves the rows level by level: at each level, value m
// is interleaved with value m + b/2 at the element grain. It returns the last
// level's values, low and high halves of each pair side by side.
func unpackNetwork(p *Prog, vals []int, w int) []int {
	b := len(vals)
	for s := 1; s < b; s *= 2 {
		next := make([]int, 0, b)
		for m := range b / 2 {
			next = append(next, p.Interleave(vals[m], vals[m+b/2], w, false), p.Interleave(vals[m], vals[m+b/2], w, true))
		}
		vals = next
	}
	return vals
}

// UnpackUnzip inverts UnpackZip: it loads the interleaved bytes straight
// into the lane order the zip network ends with, then undoes the levels with
// deinterleaves.
func UnpackUnzip(b, w, chunk int) (*Prog, error) {
	p := NewProg(width(chunk))
	return p.finishUnzip(p.unpackLanes(b, w, chunk, 0), b, w, chunk)
}

// finishUnzip stores lanes[j], which must hold lane j's chunk of an unzip
// of b lanes of w-byte elements in its low bytes, to output j, and
// finishes the program.
func (p *Prog) finishUnzip(lanes []int, b, w, chunk int) (*Prog, error) {
	want := UnzipWant(b, w, chunk)
	for j, v := range lanes {
		if err := p.storeValue(j, v, want[j]); err != nil {
			return nil, err
		}
	}
	return p.finish(inputs(1, b*chunk), want)
}

// unpackLanes appends UnpackUnzip's loads, of the interleaved bytes from
// at on, and deinterleaves, and returns the values holding the b lanes'
// chunks in their low bytes (-1 for a lane with none).
func (p *Prog) unpackLanes(b, w, chunk, at int) []int {
	z := NewProg(p.Width)
	rows := make([]int, b)
	for j := range rows {
		rows[j] = z.Load(Mem{j, 0}, chunk)
	}
	finals := unpackNetwork(z, rows, w)

	// Where each zip label sits in the interleaved stream.
	pos := map[Label]int{}
	for i, l := range ZipWant(b, w, chunk) {
		pos[l] = i
	}
	total := b * chunk
	vals := make([]int, b)
	for i, f := range finals {
		var offs []int // interleaved offset of each lane of f, or -1
		for l := 0; l < z.Width; l += LaneBytes {
			at, ok := pos[z.values[f][l]]
			if !ok {
				at = -1
			}
			offs = append(offs, at)
		}
		switch {
		case offs[0] < 0:
			vals[i] = -1 // holds nothing: chunk < register
		case len(offs) == 2:
			vals[i] = p.LoadPair(Mem{0, at + offs[0]}, Mem{0, at + offs[1]})
		default:
			vals[i] = p.Load(Mem{0, at + offs[0]}, min(LaneBytes, total-offs[0]))
		}
	}
	for s := b / 2; s >= 1; s /= 2 { // undo the levels, last first
		prev := make([]int, b)
		for m := range b / 2 {
			lo, hi := vals[2*m], vals[2*m+1]
			if lo < 0 {
				prev[m], prev[m+b/2] = -1, -1
				continue
			}
			if hi < 0 {
				hi = lo
			}
			prev[m], prev[m+b/2] = p.Deinterleave(lo, hi, w, false), p.Deinterleave(lo, hi, w, true)
		}
		vals = prev
	}
	return vals
}

// ShuffleZip builds a zip chunk for any b from byte shuffles: every output
// register ORs one pshufb of each row. With 32-byte registers each row is
// loaded in the lane arrangement its bytes are needed in (lane 0 twice,
// both lanes, or lane 1 twice), since output lane k draws only on input lane
// k/b of every row.
func ShuffleZip(b, w, chunk int) (*Prog, error) {
	p := NewProg(width(chunk))
	want := ZipWant(b, w, chunk)
	loads := map[[3]int]int{} // row, lane-0 offset, lane-1 offset
	load := func(j, off0, off1 int) int {
		key := [3]int{j, off0, off1}
		if v, ok := loads[key]; ok {
			return v
		}
		var v int
		switch {
		case p.Width == LaneBytes:
			v = p.Load(Mem{j, off0}, min(chunk, LaneBytes))
		case off0 == off1:
			v = p.LoadBcast(Mem{j, off0})
		default:
			v = p.Load(Mem{j, off0}, 2*LaneBytes)
		}
		loads[key] = v
		return v
	}
	for out := 0; out < len(want); out += p.Width {
		piece := want[out:min(out+p.Width, len(want))]
		acc := -1
		for j := range b {
			// The input lane each output lane of this register reads.
			offs := [2]int{-1, -1}
			for l := 0; l < p.Width; l += LaneBytes {
				for i := l; i < min(l+LaneBytes, len(piece)); i++ {
					if m := piece[i].Mem(); m.Stream == j {
						offs[l/LaneBytes] = m.Off / LaneBytes * LaneBytes
					}
				}
			}
			if offs[0] < 0 && offs[1] < 0 {
				continue
			}
			if p.Width == LaneBytes {
				offs[1] = offs[0]
			} else if offs[0] < 0 {
				offs[0] = offs[1]
			} else if offs[1] < 0 {
				offs[1] = offs[0]
			}
			src := load(j, offs[0], offs[1])
			sh := p.Shuffle(src, p.maskFor(src, piece, func(l Label) bool { return l.Mem().Stream == j }))
			if acc < 0 {
				acc = sh
			} else {
				acc = p.Or(acc, sh)
			}
		}
		if err := p.storeRange(acc, 0, len(piece), Mem{0, out}); err != nil {
			return nil, err
		}
	}
	return p.finish(inputs(b, chunk), map[int]Value{0: want})
}

// ShuffleUnzip builds an unzip chunk for any b from byte shuffles: each
// output row ORs one pshufb of every 16-byte piece of the interleaved input
// that holds some of its bytes. With 32-byte registers the pieces are paired
// so that both lanes of a pshufb serve the same output row.
func ShuffleUnzip(b, w, chunk int) (*Prog, error) {
	p := NewProg(width(chunk))
	total := b * chunk
	var srcs []int
	if p.Width == 2*LaneBytes { // output lane 0 reads input lanes 0..b-1, lane 1 reads b..2b-1
		for k := range b {
			srcs = append(srcs, p.LoadPair(Mem{0, LaneBytes * k}, Mem{0, LaneBytes * (b + k)}))
		}
	} else { // cover the input with loads that stay inside it, overlapping at the end
		size := LaneBytes
		for size > total {
			size /= 2
		}
		for off := 0; off < total; off += size {
			srcs = append(srcs, p.Load(Mem{0, min(off, total-size)}, size))
		}
	}
	want := UnzipWant(b, w, chunk)
	for j := range b {
		row := want[j]
		taken := map[int]bool{}
		acc := -1
		for _, src := range srcs {
			mask := p.maskFor(src, row, func(Label) bool { return true })
			useful := false
			for i, m := range mask {
				if m >= 0 && !taken[i] {
					taken[i], useful = true, true
				} else {
					mask[i] = -1
				}
			}
			if !useful {
				continue
			}
			sh := p.Shuffle(src, mask)
			if acc < 0 {
				acc = sh
			} else {
				acc = p.Or(acc, sh)
			}
		}
		if err := p.storeRange(acc, 0, chunk, Mem{j, 0}); err != nil {
			return nil, err
		}
	}
	return p.finish(inputs(1, total), want)
}

// LaneZip and LaneUnzip handle 16-byte elements: elements are whole lanes,
// so the program only takes registers apart and puts them together by lanes.
func LaneZip(b, chunk int) (*Prog, error) {
	p := NewProg(width(chunk))
	for j := range b {
		p.Load(Mem{j, 0}, chunk)
	}
	want := ZipWant(b, LaneBytes, chunk)
	if err := p.storeAll(0, 0, want); err != nil {
		return nil, err
	}
	return p.finish(inputs(b, chunk), map[int]Value{0: want})
}

// LaneUnzip is the inverse of LaneZip: each row's register is loaded lane
// by lane from where its elements sit in the interleaved input.
func LaneUnzip(b, chunk int) (*Prog, error) {
	p := NewProg(width(chunk))
	want := UnzipWant(b, LaneBytes, chunk)
	for j := range b {
		var v int
		if chunk == 2*LaneBytes {
			v = p.LoadPair(Mem{0, LaneBytes * j}, Mem{0, LaneBytes * (b + j)})
		} else {
			v = p.Load(Mem{0, LaneBytes * j}, LaneBytes)
		}
		p.Store(v, 0, chunk, Mem{j, 0})
	}
	return p.finish(inputs(1, b*chunk), want)
}

// maskFor is the pshufb mask that brings, into each byte of a register laid
// out like want, the byte of src with the same label, when keep accepts the
// label and src holds it in the same lane.
func (p *Prog) maskFor(src int, want Value, keep func(Label) bool) []int8 {
	mask := make([]int8, p.Width)
	for i := range mask {
		mask[i] = -1
		if i >= len(want) || want[i] < 0 || !keep(want[i]) {
			continue
		}
		lane := i / LaneBytes * LaneBytes
		for k := range LaneBytes {
			if p.values[src][lane+k] == want[i] {
				mask[i] = int8(k)
				break
			}
		}
	}
	return mask
}

// storeAll writes want (output stream s from byte at on) from whichever
// values hold it, register by register, combining lanes where a register's
// two halves live in different values.
func (p *Prog) storeAll(s, at int, want Value) error {
	for off := 0; off < len(want); off += p.Width {
		piece := want[off:min(off+p.Width, len(want))]
		if v, part := p.Find(piece); v >= 0 {
			p.Store(v, part, len(piece), Mem{s, at + off})
			continue
		}
		if len(piece) != 2*LaneBytes {
			return fmt.Errorf("no value holds output bytes %d..%d", off, off+len(piece))
		}
		lo, lpart := p.Find(piece[:LaneBytes])
		hi, hpart := p.Find(piece[LaneBytes:])
		if lo < 0 || hi < 0 {
			return fmt.Errorf("no value holds a lane of output bytes %d..%d", off, off+len(piece))
		}
		p.Store(p.Lanes(lo, hi, [2]int{lpart, 2 + hpart}), 0, len(piece), Mem{s, at + off})
	}
	return nil
}

// storeValue writes value v, which must hold want in its low bytes.
func (p *Prog) storeValue(s, v int, want Value) error {
	if v < 0 {
		return fmt.Errorf("output %d has no value", s)
	}
	return p.storeRange(v, 0, len(want), Mem{s, 0})
}

// storeRange stores bytes [from, from+n) of v to m in pieces of the
// register's width and of 32, 16, 8 and 4 bytes, each aligned within the
// register as x86 stores need.
func (p *Prog) storeRange(v, from, n int, m Mem) error {
	for n > 0 {
		if from == LaneBytes && n < LaneBytes && p.Width == 2*LaneBytes {
			// x86 stores less than 16 bytes from the low lane only.
			v, from = p.Lanes(v, v, [2]int{1, 1}), 0
		}
		size := p.Width
		for size > n || size > p.Width || from%size != 0 {
			size /= 2
		}
		if size < 4 {
			return fmt.Errorf("cannot store %d bytes at register offset %d", n, from)
		}
		p.Store(v, from/size, size, m)
		from, n, m.Off = from+size, n-size, m.Off+size
	}
	return nil
}

// finish drops dead code, schedules, and proves that the program reads
// only inside its inputs (in gives each input stream's length) and writes
// exactly want.
func (p *Prog) finish(in map[int]int, want map[int]Value) (*Prog, error) {
	p.Prune()
	p.Schedule()
	if err := p.CheckLoads(in); err != nil {
		return nil, err
	}
	if err := p.Check(want); err != nil {
		return nil, err
	}
	return p, nil
}

// inputs is the input map of b streams of n bytes each.
func inputs(b, n int) map[int]int {
	in := map[int]int{}
	for j := range b {
		in[j] = n
	}
	return in
}

// Twice turns p, a zip (or unzip) of b lanes of w-byte elements for 16-byte
// chunks in 16-byte registers, into the same for 32-byte chunks: p applied
// to both halves. The result is simulated and checked like any program.
func Twice(p *Prog, b, w int, unzip bool) (*Prog, error) {
	q := NewProg(LaneBytes)
	for half := range 2 {
		shift := func(m Mem, load bool) Mem {
			if load != unzip { // the lanes: loaded by a zip, stored by an unzip
				m.Off += half * LaneBytes
			} else {
				m.Off += half * LaneBytes * b
			}
			return m
		}
		q.replay(p, shift)
	}
	if unzip {
		return q.finish(inputs(1, 2*LaneBytes*b), UnzipWant(b, w, 2*LaneBytes))
	}
	return q.finish(inputs(b, 2*LaneBytes), map[int]Value{0: ZipWant(b, w, 2*LaneBytes)})
}

// replay appends the operations of src to p, with memory operands moved by
// shift (told whether the operand is loaded), simulating them afresh.
func (p *Prog) replay(src *Prog, shift func(m Mem, load bool) Mem) {
	vals := make([]int, src.NumValues())
	for _, in := range src.Instrs {
		in.Mem, in.Mem2 = shift(in.Mem, in.Op != Store), shift(in.Mem2, true)
		if v := p.apply(in, vals[in.A], vals[in.B]); in.Op != Store {
			vals[in.Dst] = v
		}
	}
}

// apply appends in with operands a and b (values of p), simulating it, and
// returns the value it defines (-1 for a store).
func (p *Prog) apply(in Instr, a, b int) int {
	switch in.Op {
	case Load:
		return p.Load(in.Mem, in.Size)
	case LoadBcast:
		return p.LoadBcast(in.Mem)
	case LoadPair:
		return p.LoadPair(in.Mem, in.Mem2)
	case Store:
		p.Store(a, in.Part, in.Size, in.Mem)
		return -1
	case Interleave:
		return p.Interleave(a, b, in.Grain, in.High)
	case Deinterleave:
		return p.Deinterleave(a, b, in.Grain, in.High)
	case Lanes:
		return p.Lanes(a, b, in.Sel)
	case Shuffle:
		return p.Shuffle(a, in.Mask)
	case Or:
		return p.Or(a, b)
	case ShuffleInto:
		return p.ShuffleInto(a, b, in.Mask)
	case Permute2:
		return p.Permute2(a, b, in.Grain, in.Idx)
	case LoadInsert:
		return p.LoadInsert(a, in.Mem, in.Size, in.Pos)
	case Quads:
		return p.Quads(a, in.Idx)
	}
	panic(fmt.Sprintf("vec: no simulation of op %d", in.Op))
}
