// Package vec describes shuffle networks as short programs of abstract
// vector operations, and simulates them byte by byte.
//
// A kernel body is built once as a Prog (loads, in-lane interleaves and
// deinterleaves, lane moves, byte shuffles, ORs, stores), checked against the
// permutation it must perform by running it on symbolic data, and only then
// lowered to the instructions of one ISA. Every generated chunk of assembly
// has therefore been proven to move each byte to the right place before it
// is written out.
//
// The operations follow x86's 128-bit lane semantics, which are also those of
// a NEON register (a single lane).
package vec

import (
	"fmt"
	"slices"
	"strings"
)

// LaneBytes is the span of the in-lane operations.
const LaneBytes = 16

// Label names the content of one byte: a byte of an input stream, a known
// zero, or nothing in particular.
type Label int32

const (
	Zero    Label = -1 // a byte the program set to zero (pshufb with a high mask bit)
	Unknown Label = -2 // a byte whose value does not matter
)

// In labels byte off of input stream s.
func In(s, off int) Label { return Label(s<<24 | off) }

// Mem is where an input byte's label says it lies: In's stream and offset.
func (l Label) Mem() Mem { return Mem{int(l >> 24), int(l & (1<<24 - 1))} }

func (l Label) String() string {
	switch l {
	case Zero:
		return "0"
	case Unknown:
		return "?"
	}
	return fmt.Sprintf("%d:%d", l.Mem().Stream, l.Mem().Off)
}

// Value is the content of a register, byte by byte from the lowest.
type Value []Label

// Op is an abstract vector operation.
type Op uint8

const (
	Load         Op = iota // Dst = Mem (Size bytes, zero-extended to the register)
	LoadBcast              // Dst = Mem's 16 bytes in every lane
	LoadPair               // Dst lane 0 = Mem, lane 1 = Mem2
	Store                  // Mem = A's bytes [Part*Size, Part*Size+Size)
	Interleave             // per lane: grains of the low (High: high) halves of A and B, alternating, A first
	Deinterleave           // per lane: even (High: odd) grains of A's lane, then those of B's lane
	Lanes                  // Dst lane k = lane Sel[k] of A:B (0, 1 = A's; 2, 3 = B's)
	Shuffle                // per lane: Dst[i] = A[Mask[i]] of the same lane, or zero if Mask[i] < 0
	Or                     // bytewise OR of A and B; the program only ORs bytes where one side is zero
	ShuffleInto            // per lane: Dst = A, but Dst[i] = B[Mask[i]] where Mask[i] >= 0 (NEON TBX, a merge-masked pshufb)
	Permute2               // across the register: grain k of Dst = grain Idx[k] of A:B, or A's grain k where Idx[k] < 0 (VPERMT2B and kin)
	LoadInsert             // Dst = A with bytes [Pos, Pos+Size) read from Mem (VINSERTI32X4, VINSERTI64X4)
	Quads                  // across the register: 8-byte grain k of Dst = grain Idx[k] of A (VPERMQ; AVX2 only)
)

// Mem is a memory operand: Off bytes into stream Stream, whose base pointer
// the back end holds in a register.
type Mem struct {
	Stream, Off int
}

// Instr is one operation of a Prog. Values are numbered in the order the
// program defines them (SSA form).
type Instr struct {
	Op        Op
	Dst, A, B int
	Grain     int  // Interleave, Deinterleave: bytes per grain (1, 2, 4, 8)
	High      bool // Interleave: high halves; Deinterleave: odd grains
	Sel       [2]int
	Mask      []int8
	Mem, Mem2 Mem
	Size      int   // Load, Store: bytes moved
	Part      int   // Store: which Size-byte part of A
	Idx       []int // Permute2: source grain of each grain, A's first
	Pos       int   // LoadInsert: where in the register the bytes go
}

// Prog is a straight-line kernel body for registers of Width bytes.
type Prog struct {
	Width  int
	Instrs []Instr
	values []Value // simulated content, by value number
	// Schedule keeps the stores of a 64-byte line together where the
	// program then needs fewer than joinRegs registers, temps as Alloc's
	// (joinLines; 0: it does not).
	joinRegs  int
	joinTemps func(Instr) int
}

// NewProg starts an empty program for registers of width bytes (16 or 32).
func NewProg(width int) *Prog { return &Prog{Width: width} }

func (p *Prog) def(in Instr, v Value) int {
	in.Dst = len(p.values)
	p.values = append(p.values, v)
	p.Instrs = append(p.Instrs, in)
	return in.Dst
}

// NumValues is the number of values the program defines.
func (p *Prog) NumValues() int { return len(p.values) }

// Content returns the simulated content of value v.
func (p *Prog) Content(v int) Value { return p.values[v] }

func (p *Prog) unknown() Value {
	v := make(Value, p.Width)
	for i := range v {
		v[i] = Unknown
	}
	return v
}

// Load reads size bytes (4, 8, 16 or Width) of stream s at off into the low
// bytes of a new register.
func (p *Prog) Load(m Mem, size int) int {
	v := p.unknown()
	for i := range size {
		v[i] = In(m.Stream, m.Off+i)
	}
	if size < p.Width {
		for i := size; i < p.Width; i++ {
			v[i] = Zero
		}
	}
	return p.def(Instr{Op: Load, Mem: m, Size: size}, v)
}

// LoadBcast reads 16 bytes into every lane.
func (p *Prog) LoadBcast(m Mem) int {
	v := p.unknown()
	for i := range v {
		v[i] = In(m.Stream, m.Off+i%LaneBytes)
	}
	return p.def(Instr{Op: LoadBcast, Mem: m, Size: LaneBytes}, v)
}

// LoadPair reads 16 bytes at m into lane 0 and 16 bytes at m2 into lane 1.
func (p *Prog) LoadPair(m, m2 Mem) int {
	v := p.unknown()
	for i := range v {
		src := m
		if i >= LaneBytes {
			src = m2
		}
		v[i] = In(src.Stream, src.Off+i%LaneBytes)
	}
	return p.def(Instr{Op: LoadPair, Mem: m, Mem2: m2, Size: LaneBytes}, v)
}

// Store writes part `part` (of size bytes) of value a to m.
func (p *Prog) Store(a int, part, size int, m Mem) {
	p.Instrs = append(p.Instrs, Instr{Op: Store, Dst: -1, A: a, Part: part, Size: size, Mem: m})
}

// Interleave alternates grains of the low (or high) halves of each lane of a and b.
func (p *Prog) Interleave(a, b, grain int, high bool) int {
	va, vb, v := p.values[a], p.values[b], p.unknown()
	for l := 0; l < p.Width; l += LaneBytes {
		src := l
		if high {
			src += LaneBytes / 2
		}
		for k := 0; k < LaneBytes/grain; k++ {
			from := va
			if k%2 == 1 {
				from = vb
			}
			copy(v[l+k*grain:][:grain], from[src+k/2*grain:][:grain])
		}
	}
	return p.def(Instr{Op: Interleave, A: a, B: b, Grain: grain, High: high}, v)
}

// Deinterleave takes the even (or odd) grains of each lane of a, then of b.
func (p *Prog) Deinterleave(a, b, grain int, odd bool) int {
	va, vb, v := p.values[a], p.values[b], p.unknown()
	first := 0
	if odd {
		first = grain
	}
	for l := 0; l < p.Width; l += LaneBytes {
		for k := 0; k < LaneBytes/grain; k++ {
			from, idx := va, k
			if k >= LaneBytes/grain/2 {
				from, idx = vb, k-LaneBytes/grain/2
			}
			copy(v[l+k*grain:][:grain], from[l+first+2*idx*grain:][:grain])
		}
	}
	return p.def(Instr{Op: Deinterleave, A: a, B: b, Grain: grain, High: odd}, v)
}

// Lanes builds a register from two 16-byte lanes of a and b.
func (p *Prog) Lanes(a, b int, sel [2]int) int {
	all := append(slices.Clone(p.values[a]), p.values[b]...)
	v := p.unknown()
	for k, s := range sel {
		copy(v[k*LaneBytes:][:LaneBytes], all[s*LaneBytes:][:LaneBytes])
	}
	return p.def(Instr{Op: Lanes, A: a, B: b, Sel: sel}, v)
}

// Shuffle permutes bytes within each lane of a (x86 pshufb).
func (p *Prog) Shuffle(a int, mask []int8) int {
	va, v := p.values[a], p.unknown()
	for i, m := range mask {
		if m < 0 {
			v[i] = Zero
		} else {
			v[i] = va[i/LaneBytes*LaneBytes+int(m)]
		}
	}
	return p.def(Instr{Op: Shuffle, A: a, Mask: mask}, v)
}

// Or combines two values whose non-zero bytes do not collide.
func (p *Prog) Or(a, b int) int {
	va, vb, v := p.values[a], p.values[b], p.unknown()
	for i := range v {
		switch {
		case va[i] == Zero:
			v[i] = vb[i]
		case vb[i] == Zero:
			v[i] = va[i]
		default:
			panic(fmt.Sprintf("vec: Or of two non-zero bytes %v and %v", va[i], vb[i]))
		}
	}
	return p.def(Instr{Op: Or, A: a, B: b}, v)
}

// ShuffleInto is a with the bytes where mask >= 0 replaced by those of b
// that mask selects, within each lane.
func (p *Prog) ShuffleInto(a, b int, mask []int8) int {
	v := slices.Clone(p.values[a])
	vb := p.values[b]
	for i, m := range mask {
		if m >= 0 {
			v[i] = vb[i/LaneBytes*LaneBytes+int(m)]
		}
	}
	return p.def(Instr{Op: ShuffleInto, A: a, B: b, Mask: mask}, v)
}

// Permute2 moves grains of grain bytes across the whole register: grain k of
// the result is grain idx[k] of a and b side by side (a's grains first), or
// a's own grain k where idx[k] < 0.
func (p *Prog) Permute2(a, b, grain int, idx []int) int {
	va, vb := p.values[a], p.values[b]
	v := slices.Clone(va)
	n := p.Width / grain
	for k, x := range idx {
		switch {
		case x < 0:
		case x < n:
			copy(v[k*grain:][:grain], va[x*grain:][:grain])
		default:
			copy(v[k*grain:][:grain], vb[(x-n)*grain:][:grain])
		}
	}
	return p.def(Instr{Op: Permute2, A: a, B: b, Grain: grain, Idx: idx}, v)
}

// Quads moves the 8-byte grains of a across the register: grain k of the
// result is grain idx[k] of a.
func (p *Prog) Quads(a int, idx []int) int {
	va, v := p.values[a], p.unknown()
	for k, i := range idx {
		copy(v[8*k:][:8], va[8*i:][:8])
	}
	return p.def(Instr{Op: Quads, A: a, Idx: idx}, v)
}

// LoadInsert is a with size bytes at m written into it at byte pos.
func (p *Prog) LoadInsert(a int, m Mem, size, pos int) int {
	v := slices.Clone(p.values[a])
	for i := range size {
		v[pos+i] = In(m.Stream, m.Off+i)
	}
	return p.def(Instr{Op: LoadInsert, A: a, Mem: m, Size: size, Pos: pos}, v)
}

// Check runs the stores and compares what they write with want, which gives
// the expected label of every byte of every output stream. It reports the
// first wrong or missing byte.
func (p *Prog) Check(want map[int]Value) error {
	got := map[int]Value{}
	for s, w := range want {
		got[s] = make(Value, len(w))
		for i := range got[s] {
			got[s][i] = Unknown
		}
	}
	for _, in := range p.Instrs {
		if in.Op != Store {
			continue
		}
		out, ok := got[in.Mem.Stream]
		if !ok || in.Mem.Off < 0 || in.Mem.Off+in.Size > len(out) {
			return fmt.Errorf("store of %d bytes at %v is outside the output", in.Size, in.Mem)
		}
		copy(out[in.Mem.Off:], p.values[in.A][in.Part*in.Size:][:in.Size])
	}
	for s, w := range want {
		for i := range w {
			if got[s][i] != w[i] {
				return fmt.Errorf("output %d byte %d is %v, want %v", s, i, got[s][i], w[i])
			}
		}
	}
	return nil
}

// CheckLoads reports the first load that reaches outside its input stream;
// in gives each stream's length.
func (p *Prog) CheckLoads(in map[int]int) error {
	for _, ins := range p.Instrs {
		var mems []Mem
		switch ins.Op {
		case Load, LoadBcast, LoadInsert:
			mems = []Mem{ins.Mem}
		case LoadPair:
			mems = []Mem{ins.Mem, ins.Mem2}
		}
		for _, m := range mems {
			n, ok := in[m.Stream]
			if !ok || m.Off < 0 || m.Off+ins.Size > n {
				return fmt.Errorf("load of %d bytes at %v reaches outside an input of %d bytes", ins.Size, m, n)
			}
		}
	}
	return nil
}

// Prune drops every instruction whose value no store uses, and renumbers.
func (p *Prog) Prune() {
	live := make([]bool, len(p.values))
	for i := len(p.Instrs) - 1; i >= 0; i-- {
		in := p.Instrs[i]
		if in.Op != Store && !live[in.Dst] {
			continue
		}
		for _, v := range in.Uses() {
			live[v] = true
		}
	}
	renum := make([]int, len(p.values))
	var kept []Instr
	var values []Value
	for _, in := range p.Instrs {
		if in.Op != Store && !live[in.Dst] {
			continue
		}
		in.A, in.B = renum[in.A], renum[in.B]
		if in.Op != Store {
			renum[in.Dst] = len(values)
			values = append(values, p.values[in.Dst])
			in.Dst = renum[in.Dst]
		}
		kept = append(kept, in)
	}
	p.Instrs, p.values = kept, values
}

// Schedule reorders the program to keep few values live: every load moves
// down to just before its first use, and every store up to just after the
// value it writes is defined. Values keep their numbers.
func (p *Prog) Schedule() {
	firstUse := map[int]int{} // value -> index of its first user among non-loads
	var body []Instr
	for _, in := range p.Instrs {
		if in.Op != Load && in.Op != LoadBcast && in.Op != LoadPair && in.Op != Store {
			body = append(body, in)
		}
	}
	for i, in := range body {
		for _, v := range in.Uses() {
			if _, ok := firstUse[v]; !ok {
				firstUse[v] = i
			}
		}
	}
	loadsBefore := map[int][]Instr{} // body index -> loads to put before it
	storesAfter := map[int][]Instr{} // value -> stores of it
	var direct []Instr               // stores of loaded values, kept after their load
	for _, in := range p.Instrs {
		switch in.Op {
		case Load, LoadBcast, LoadPair:
			if i, ok := firstUse[in.Dst]; ok {
				loadsBefore[i] = append(loadsBefore[i], in)
			} else {
				direct = append(direct, in)
			}
		case Store:
			storesAfter[in.A] = append(storesAfter[in.A], in)
		}
	}
	var out []Instr
	emit := func(in Instr) {
		out = append(out, in)
		out = append(out, storesAfter[in.Dst]...)
	}
	for _, in := range direct {
		emit(in)
	}
	for i, in := range body {
		for _, l := range loadsBefore[i] {
			emit(l)
		}
		emit(in)
	}
	p.Instrs = out
	if p.joinRegs > 0 {
		p.joinLines()
	}
}

// joinLines moves the stores of each 64-byte line of output down to just
// after the last of their values is defined, in the order they were
// made, so that a line's pieces go out one right after the other. Lines
// whose first pieces would be held too long (p.joinRegs) stay where
// Schedule put them, the first lines first.
func (p *Prog) joinLines() {
	line := func(in Instr) Mem { return Mem{in.Mem.Stream, in.Mem.Off / 64} }
	at := map[int]int{}   // value -> where it is defined, among the others
	last := map[Mem]int{} // line -> where its last value is defined
	var rest, stores []Instr
	var lines []Mem // in the order of their first stores
	for _, in := range p.Instrs {
		if in.Op == Store {
			if _, ok := last[line(in)]; !ok {
				lines = append(lines, line(in))
			}
			last[line(in)] = -1
			stores = append(stores, in)
			continue
		}
		at[in.Dst] = len(rest)
		rest = append(rest, in)
	}
	for _, in := range stores {
		last[line(in)] = max(last[line(in)], at[in.A])
	}
	scheduled := p.Instrs
	apart := map[Mem]bool{} // lines left where Schedule put them
	for _, next := range lines {
		after := map[int][]Instr{}
		for _, in := range stores {
			i := at[in.A]
			if !apart[line(in)] {
				i = last[line(in)]
			}
			after[i] = append(after[i], in)
		}
		p.Instrs = nil
		for i, in := range rest {
			p.Instrs = append(p.Instrs, in)
			p.Instrs = append(p.Instrs, after[i]...)
		}
		if p.MaxLive(p.joinTemps) < p.joinRegs { // Allocate may need one more
			return
		}
		apart[next] = true
	}
	p.Instrs = scheduled
}

// Uses lists the values an instruction reads.
func (in Instr) Uses() []int {
	switch in.Op {
	case Store, Shuffle, LoadInsert, Quads:
		return []int{in.A}
	case Interleave, Deinterleave, Lanes, Or, ShuffleInto, Permute2:
		return []int{in.A, in.B}
	}
	return nil
}

// MaxLive is the largest number of values live at once, counting extra
// scratch registers the back end needs for some instructions (nil: none).
func (p *Prog) MaxLive(scratch func(Instr) int) int {
	if scratch == nil {
		scratch = func(Instr) int { return 0 }
	}
	last := map[int]int{}
	for i, in := range p.Instrs {
		for _, v := range in.Uses() {
			last[v] = i
		}
	}
	live, most := 0, 0
	for i, in := range p.Instrs {
		if in.Op != Store {
			live++
		}
		most = max(most, live+scratch(in))
		for _, v := range in.Uses() {
			if last[v] == i {
				live--
			}
		}
		if in.Op != Store {
			if _, used := last[in.Dst]; !used {
				live--
			}
		}
	}
	return most
}

// Find returns a value and the part of it (of size bytes) whose content is
// want, or -1.
func (p *Prog) Find(want Value) (v, part int) {
	size := len(want)
	for v := len(p.values) - 1; v >= 0; v-- {
		for part := 0; part*size < p.Width; part++ {
			if slices.Equal(p.values[v][part*size:][:size], want) {
				return v, part
			}
		}
	}
	return -1, 0
}

// String lists the program, one instruction per line.
func (p *Prog) String() string {
	var b strings.Builder
	names := [...]string{"load", "bcast", "pair", "store", "interleave", "deinterleave", "lanes", "shuffle", "or", "shuffleinto", "permute2", "loadinsert"}
	for _, in := range p.Instrs {
		fmt.Fprintf(&b, "%-12s dst=%d a=%d b=%d grain=%d high=%v sel=%v mem=%v size=%d part=%d\n",
			names[in.Op], in.Dst, in.A, in.B, in.Grain, in.High, in.Sel, in.Mem, in.Size, in.Part)
	}
	return b.String()
}

// Grouped returns the program with its loads first and its stores last,
// each in order of stream and offset, so that a back end can pair
// neighbouring accesses; values keep their numbers and contents.
func (p *Prog) Grouped() *Prog {
	var loads, body, stores []Instr
	for _, in := range p.Instrs {
		switch in.Op {
		case Load, LoadBcast, LoadPair:
			loads = append(loads, in)
		case Store:
			stores = append(stores, in)
		default:
			body = append(body, in)
		}
	}
	byPlace := func(a, b Instr) int {
		if a.Mem.Stream != b.Mem.Stream {
			return a.Mem.Stream - b.Mem.Stream
		}
		return a.Mem.Off - b.Mem.Off
	}
	slices.SortStableFunc(loads, byPlace)
	slices.SortStableFunc(stores, byPlace)
	q := *p
	q.Instrs = slices.Concat(loads, body, stores)
	return &q
}
