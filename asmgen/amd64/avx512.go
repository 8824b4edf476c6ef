package amd64

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

// AVX-512 kernels are permute programs over 64-byte registers (see
// vec.PermuteShape): a row runs whole chunks while a chunk's loads stay
// inside it, and ends with one more pass whose loads and stores are
// masked to the bytes left, so no row is too short for a kernel.

// Shape512 is what an AVX-512 fixed-b kernel moves, with the permute grain
// its ISA allows: VBMI permutes bytes; without it the grain is the largest
// power of two, at most 8, dividing the element. Words go as bytes where
// VBMI is there: VPERMT2W is three micro-ops on Intel cores, VPERMT2B one.
func Shape512(k table.Kernel) vec.PermuteShape {
	pd := vec.Runs(k.B, k.Width)
	if k.Cp > 0 {
		pd = vec.CRD(k.B, k.Cp, k.Width)
	}
	grain := min(8, 1<<bits.TrailingZeros(uint(k.Width)))
	if k.ISA.BytePermutes() && grain <= 2 {
		grain = 1
	}
	return vec.PermuteShape{Period: pd, Grain: grain}
}

// need is how many bytes of each lane must be left for a whole pass of an
// AVX-512 kernel: its whole-register loads stay inside the row then.
func need(k table.Kernel, s vec.PermuteShape) int {
	if k.Unzip {
		return (s.Span(true) + k.B - 1) / k.B
	}
	return s.Span(false)
}

// overlaps reports whether a kernel's chunk is whole registers, so that a
// row can end with a chunk that overlaps the one before.
func overlaps(k table.Kernel, s vec.PermuteShape) bool { return s.Chunk() == need(k, s) }

// Programs512 returns the body of an AVX-512 kernel, and the program of
// its masked last pass if it has one: the body itself, whose loads are
// all of whole registers then.
func Programs512(k table.Kernel) (body, tail *vec.Prog, err error) {
	s := Shape512(k)
	pow2 := k.Cp == 0 && k.Width&(k.Width-1) == 0 && bits.OnesCount(uint(k.B)) == 1
	switch {
	case k.Cp == 0 && k.ISA.RotatesBytes(k.Unzip, k.B, k.Width):
		body, err = vec.RotateZip(k.B, k.Width, vec.ZMM)
	case pow2 && k.Unzip && k.Width == 1 && !k.ISA.BytePermutes():
		body, err = vec.PairedNetworkUnzip(k.B)
	case pow2 && k.Unzip:
		body, err = vec.NetworkUnzip(k.B, k.Width, s.Grain)
	case k.Unzip:
		body, err = vec.BlendUnzip(s)
		if body == nil && err == nil {
			body, err = vec.GatherUnzip(s)
		}
	default:
		body, err = vec.WindowZip(s)
	}
	if err == nil && !overlaps(k, s) {
		// The masked pass loads whole registers only.
		tail = body
		if !k.Unzip {
			tail, err = vec.GatherZip(s)
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", k.Name(), err)
	}
	for _, p := range []*vec.Prog{body, tail} {
		if p != nil && p.MaxLive(permuteScratch) > zmmRegs {
			return nil, nil, fmt.Errorf("%s: %d values live, AVX-512 has %d registers", k.Name(), p.MaxLive(permuteScratch), zmmRegs)
		}
	}
	return body, tail, nil
}

const zmmRegs = 32

// permuteScratch counts the register a permute's index may need (none for
// a shuffle of lanes).
func permuteScratch(in vec.Instr) int {
	_, lanes := laneShuffle(in)
	return b2i(in.Op == vec.Permute2 && !lanes)
}

// tailMasks are the opmasks of the masked last pass of a row: for each
// load and store, the bytes of its register that lie before the end of
// the data, rem bytes of each lane and b*rem of the interleaved side.
// Every row of a call ends alike, so they are computed once per call,
// into K1 to K6 if they fit (K7 is for constant masks), else into stack
// slots that each masked access loads into K7.
type tailMasks struct {
	zip bool
	at  map[maskKey]operand.Op
}

type maskKey struct {
	lanes     bool
	off, size int
}

// newTailMasks computes the masks of the tail program p from rem.
func (g *Generator) newTailMasks(p *vec.Prog, b int, zip bool, rem reg.GPVirtual) *tailMasks {
	c := g.c
	m := &tailMasks{zip: zip, at: map[maskKey]operand.Op{}}
	var keys []maskKey
	for _, in := range p.Instrs {
		if in.Op != vec.Load && in.Op != vec.Store {
			continue
		}
		key := maskKey{lanes: (in.Op == vec.Load) == zip, off: in.Mem.Off, size: in.Size}
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	ks := []reg.Register{reg.K1, reg.K2, reg.K3, reg.K4, reg.K5, reg.K6}
	var slots operand.Mem
	if len(keys) > len(ks) {
		slots = c.AllocLocal(8 * len(keys))
	}
	for i, key := range keys {
		t := c.GP64()
		if key.lanes {
			c.MOVQ(rem, t)
		} else {
			c.IMUL3Q(operand.I32(b), rem, t)
		}
		c.SUBQ(operand.I32(key.off), t)
		c.CMOVQLT(g.constant(make([]byte, 8)), t) // nothing left for this register
		// BZHI reads only the low byte of its count: at most 64 then.
		c.CMPQ(t, operand.I32(64))
		c.CMOVQGT(g.constant([]byte{64, 0, 0, 0, 0, 0, 0, 0}), t)
		c.BZHIQ(t, g.constant(lowBits(key.size)), t)
		if len(keys) <= len(ks) {
			c.KMOVQ(t, ks[i])
			m.at[key] = ks[i]
		} else {
			c.MOVQ(t, slots.Offset(8*i))
			m.at[key] = slots.Offset(8 * i)
		}
	}
	return m
}

// fixedB512 writes an AVX-512 zip or unzip kernel. Rows run whole chunks
// while a chunk's loads stay inside them. Where a chunk is a whole number
// of registers, the kernel takes rows of at least one chunk and a row's
// rest is one more chunk ending at the row's end, overlapping the one
// before; shorter rows go to the base ISA, whose narrower chunks measured
// faster than masked passes. Otherwise (pixels that do not divide a
// register) every row ends with a pass whose loads and stores are masked
// to what is left, and rows of any length are taken.
func (g *Generator) fixedB512(k table.Kernel) (minN int, err error) {
	body, tail, err := Programs512(k)
	if err != nil {
		return 0, err
	}
	s := Shape512(k)
	c := g.c
	full, overlap := need(k, s), tail == nil
	note := "Rows must be at least one 64-byte chunk; the last chunk of a row overlaps the one before."
	if !overlap {
		note = "The end of each row goes through opmasks, so rows of any length are taken."
	}
	g.zipPrologue(k, note)
	z := g.zipParams(k, true)
	var m *tailMasks
	if !overlap {
		// Every row leaves the same rest for the masked pass.
		rem := c.GP64()
		loop, done := g.label("rem"), g.label("remdone")
		c.MOVQ(param(c, "n"), rem)
		c.Label(loop)
		c.CMPQ(rem, operand.I32(full))
		c.JB(operand.LabelRef(done))
		c.SUBQ(operand.I32(s.Chunk()), rem)
		c.JMP(operand.LabelRef(loop))
		c.Label(done)
		m = g.newTailMasks(tail, k.B, !k.Unzip, rem)
	}
	idx := g.hoistIndices(body, tail)

	groupLoop, rowLoop, chunkLoop, last, rowDone := g.label("group"), g.label("row"), g.label("chunks"), g.label("last"), g.label("rowdone")
	rows, off, left := c.GP64(), c.GP64(), c.GP64()
	// left is what the row has past off.
	setLeft := func() {
		c.MOVQ(param(c, "n"), left)
		c.SUBQ(off, left)
		c.CMPQ(left, operand.I32(full))
	}
	c.Label(groupLoop)
	c.Load(c.Param("rows"), rows)
	c.Label(rowLoop)
	c.XORQ(off, off)
	setLeft()
	c.JB(operand.LabelRef(last))
	c.Label(chunkLoop)
	rowMem, ilvMem := g.chunkAddrs(k, z, off)
	g.lowerPass(k, body, rowMem, ilvMem, idx, nil)
	c.ADDQ(operand.I32(s.Chunk()), off)
	setLeft()
	c.JAE(operand.LabelRef(chunkLoop))

	c.Label(last)
	c.TESTQ(left, left)
	c.JZ(operand.LabelRef(rowDone))
	if overlap {
		c.MOVQ(param(c, "n"), off)
		c.SUBQ(operand.I32(s.Chunk()), off)
		c.JMP(operand.LabelRef(chunkLoop)) // the last chunk ends at the row's end
	} else {
		rowMem, ilvMem = g.chunkAddrs(k, z, off)
		g.lowerPass(k, tail, rowMem, ilvMem, idx, m)
	}

	c.Label(rowDone)
	g.end(loops{[2]reg.GPVirtual{z.sp, z.dp}, z.strides, rows, z.groups, rowLoop, groupLoop, z.steps}, false)
	if overlap {
		return s.Chunk(), nil
	}
	return s.E, nil
}

// lowerPass lowers one pass of a kernel: lanes are the program's inputs
// in a zip, its outputs in an unzip.
func (g *Generator) lowerPass(k table.Kernel, p *vec.Prog, rowMem, ilvMem func(int, int) operand.Mem, idx map[string]reg.VecPhysical, m *tailMasks) {
	if !k.Unzip {
		g.lower512(p, rowMem, ilvMem, idx, m)
	} else {
		g.lower512(p, ilvMem, rowMem, idx, m)
	}
}

// hoistIndices loads the permute indices of the programs into the top
// vector registers, once per call, if they fit beside the programs'
// values; it returns the register of each index (nil: load where used).
func (g *Generator) hoistIndices(progs ...*vec.Prog) map[string]reg.VecPhysical {
	var keys []string
	live := 0
	for _, p := range progs {
		if p == nil {
			continue
		}
		live = max(live, p.MaxLive(permuteScratch))
		for _, in := range p.Instrs {
			if _, lanes := laneShuffle(in); in.Op == vec.Permute2 && !lanes {
				if key := string(permuteConst(in)); !slices.Contains(keys, key) {
					keys = append(keys, key)
				}
			}
		}
	}
	if len(keys)+live > zmmRegs {
		return nil
	}
	out := map[string]reg.VecPhysical{}
	for i, key := range keys {
		r := zmm(zmmRegs - 1 - i)
		g.c.VMOVDQU64(g.constant([]byte(key)), r)
		out[key] = r
	}
	return out
}

// laneShuffle is the immediate of the VSHUFI64X2 a permute of 16-byte
// lanes is: its first two lanes any of A's, its last two any of B's. Such
// a permute needs no index, and it is the only one of lanes lowered.
func laneShuffle(in vec.Instr) (uint8, bool) {
	if in.Grain != vec.LaneBytes {
		return 0, false
	}
	var imm uint8
	for k, x := range in.Idx {
		if x < 0 { // A's own lane
			x = k
		}
		if x >= len(in.Idx) != (k >= 2) {
			panic(fmt.Sprintf("amd64: no lowering of a permute of lanes by %v", in.Idx))
		}
		imm |= uint8(x%len(in.Idx)) << (2 * k)
	}
	return imm, true
}

// permuteConst is the vector constant a Permute2 needs: its index, or
// the bytes a blend takes from B.
func permuteConst(in vec.Instr) []byte {
	if vec.IsBlend(in.Idx) {
		return blendMask(in.Grain, in.Idx)
	}
	return indexBytes(in.Grain, keepByIndex(in))
}

// blendMask has all bits set in the bytes of the grains a blend takes from
// B.
func blendMask(grain int, idx []int) []byte {
	out := make([]byte, vec.ZMM)
	for k, x := range idx {
		if x >= len(idx) {
			for b := range grain {
				out[k*grain+b] = 0xff
			}
		}
	}
	return out
}

// zmm is register Zi.
func zmm(i int) reg.VecPhysical { return reg.Vector.Lookup(reg.Index(i), reg.S512).(reg.VecPhysical) }

// indexBytes is the 64-byte index vector of a permute: each grain's source
// grain, 0 for grains the permute keeps (they are masked off).
func indexBytes(grain int, idx []int) []byte {
	out := make([]byte, vec.ZMM)
	for k, x := range idx {
		x = max(x, 0)
		for b := range grain {
			if b < 8 {
				out[k*grain+b] = byte(uint64(x) >> (8 * b))
			}
		}
	}
	return out
}

// keepByIndex is the index of a permute, where it keeps some of A's grains,
// rewritten to fetch them from A by index instead: a two-table permute of
// bytes, dwords or qwords is one micro-op, as cheap as the masked one, and
// the opmask it saves costs a load and a shuffle-port micro-op on Intel
// cores. Words keep the mask: VPERMT2W is three micro-ops.
func keepByIndex(in vec.Instr) []int {
	if in.Grain == 2 {
		return in.Idx
	}
	idx := slices.Clone(in.Idx)
	for k, x := range idx {
		if x < 0 {
			idx[k] = k
		}
	}
	return idx
}

// keepMask is the opmask of a permute that keeps some of A's grains: one
// bit per grain, set where the permute writes.
func keepMask(idx []int) (mask uint64, keeps bool) {
	for k, x := range idx {
		if x >= 0 {
			mask |= 1 << k
		} else {
			keeps = true
		}
	}
	return mask, keeps
}

// lower512 emits a verified 64-byte program. in and out map streams to
// memory; with m set, every load and store is masked to the data left.
// Vector registers are assigned by a linear scan, as in lower.
func (g *Generator) lower512(p *vec.Prog, in, out func(stream, off int) operand.Mem, idx map[string]reg.VecPhysical, m *tailMasks) {
	c := g.c
	hoisted := map[int]bool{}
	for _, r := range idx {
		for i := range zmmRegs {
			hoisted[i] = hoisted[i] || zmm(i) == r
		}
	}
	// Permutes keep A's grains by index where that is as cheap (see
	// keepByIndex), which decides whether they may write over B.
	q := *p
	q.Instrs = slices.Clone(p.Instrs)
	for i, ins := range q.Instrs {
		if ins.Op == vec.Permute2 && !vec.IsBlend(ins.Idx) {
			q.Instrs[i].Idx = keepByIndex(ins)
		}
	}
	p = &q
	alloc := p.Allocate(vec.Alloc{
		Regs: zmmRegs, Reserved: hoisted,
		// An index that is not hoisted needs a register of its own, held
		// while the permute writes. (Those are rare enough not to count
		// which ones are.)
		Held: permuteScratch,
		// A permute or insert may write over an operand that dies there.
		Reuse: func(in vec.Instr, dies func(int) bool) int {
			if in.Op == vec.Permute2 || in.Op == vec.LoadInsert {
				return permuteTarget(in, dies)
			}
			return -1
		},
	})
	regs := make([]reg.VecPhysical, p.NumValues())
	for v, r := range alloc.Of {
		regs[v] = zmm(r)
	}
	for i, ins := range p.Instrs {
		inPlace := alloc.Reused[i]
		var dst, scratch reg.VecPhysical
		if ins.Op != vec.Store {
			dst = regs[ins.Dst]
		}
		if len(alloc.Scratch[i]) > 0 { // a permute's index
			scratch = zmm(alloc.Scratch[i][0])
		}
		switch ins.Op {
		case vec.Load:
			g.load512(in(ins.Mem.Stream, ins.Mem.Off), ins.Size, dst, m.mask(g, true, ins))
		case vec.LoadInsert:
			if m != nil {
				panic("amd64: a masked pass cannot insert partial loads")
			}
			a := regs[ins.A]
			mem := in(ins.Mem.Stream, ins.Mem.Off)
			if ins.Size == 32 {
				c.VINSERTI64X4(operand.Imm(uint64(ins.Pos/32)), mem, a, dst)
			} else {
				c.VINSERTI32X4(operand.Imm(uint64(ins.Pos/16)), mem, a, dst)
			}
		case vec.Store:
			mem := out(ins.Mem.Stream, ins.Mem.Off)
			switch {
			case ins.Part == 0:
				g.store512(regs[ins.A], ins.Size, mem, m.mask(g, false, ins))
			case m == nil && ins.Size == 32:
				c.VEXTRACTI64X4(operand.Imm(uint64(ins.Part)), regs[ins.A], mem)
			case m == nil && ins.Size == 16:
				c.VEXTRACTI32X4(operand.Imm(uint64(ins.Part)), regs[ins.A], mem)
			default:
				panic(fmt.Sprintf("amd64: no AVX-512 store of part %d of %d bytes", ins.Part, ins.Size))
			}
		case vec.Permute2:
			g.permute(ins, regs, dst, inPlace, idx, scratch)
		case vec.Shuffle:
			c.VPSHUFB(g.constant(maskBytes(ins.Mask)), regs[ins.A], dst)
		case vec.Interleave:
			g.unpack(ins, regs[ins.B], regs[ins.A], dst)
		default:
			panic(fmt.Sprintf("amd64: no AVX-512 lowering of op %d", ins.Op))
		}
	}
}

// permuteTarget returns the operand a permute or insert writes over: A if
// it dies here (or, for a permute that keeps nothing of A, B), else -1.
func permuteTarget(ins vec.Instr, dies func(int) bool) int {
	if ins.Op == vec.LoadInsert {
		if dies(ins.A) {
			return ins.A
		}
		return -1
	}
	_, keeps := keepMask(ins.Idx)
	switch {
	case ins.A == ins.B && !keeps:
		return -1 // a one-source permute writes a fresh register
	case dies(ins.A):
		return ins.A
	case !keeps && dies(ins.B):
		return ins.B
	}
	return -1
}

// permute emits a Permute2 into dst. Where dst holds neither operand, the
// index is loaded into dst and VPERMI2x permutes over it, or A is copied
// into dst first when A's grains must be kept. An index that is not
// hoisted is loaded into scratch.
func (g *Generator) permute(ins vec.Instr, regs []reg.VecPhysical, dst reg.VecPhysical, inPlace int,
	idx map[string]reg.VecPhysical, scratch reg.VecPhysical) {
	c := g.c
	if imm, ok := laneShuffle(ins); ok {
		c.VSHUFI64X2(operand.U8(imm), regs[ins.B], regs[ins.A], dst)
		return
	}
	n := vec.ZMM / ins.Grain
	mask, keeps := keepMask(ins.Idx)
	a, b := regs[ins.A], regs[ins.B]
	ops := g.permOps(ins.Grain)
	index := func(x []int) reg.VecPhysical {
		key := string(indexBytes(ins.Grain, x))
		if r, ok := idx[key]; ok {
			return r
		}
		c.VMOVDQU64(g.constant([]byte(key)), scratch)
		return scratch
	}
	if vec.IsBlend(ins.Idx) {
		// dst = mask ? B : A, bit by bit: VPTERNLOG's table for
		// (dst, B, mask) is 0xD8.
		m := scratch
		if r, ok := idx[string(blendMask(ins.Grain, ins.Idx))]; ok {
			m = r
		} else {
			c.VMOVDQU64(g.constant(blendMask(ins.Grain, ins.Idx)), m)
		}
		if inPlace != ins.A {
			c.VMOVDQA64(a, dst)
		}
		c.VPTERNLOGQ(operand.U8(0xd8), m, b, dst)
		return
	}
	switch {
	case !keeps && (ins.A == ins.B || oneSourceA(ins.Idx, n)):
		ops.one(a, index(ins.Idx), dst) // VPERMB: any destination
	case keeps:
		k := g.kconst(mask, ins.Grain)
		if inPlace != ins.A {
			c.VMOVDQA64(a, dst)
		}
		if oneSourceB(ins.Idx, n) { // only B's grains come in: VPERMB under the mask
			ops.one(b, index(shift(ins.Idx, -n)), k, dst)
			return
		}
		ops.t2(b, index(ins.Idx), k, dst)
	case inPlace == ins.A:
		ops.t2(b, index(ins.Idx), dst)
	case inPlace == ins.B: // the tables swapped
		ops.t2(a, index(swapTables(ins.Idx, n)), dst)
	default:
		c.VMOVDQU64(g.constant(indexBytes(ins.Grain, ins.Idx)), dst)
		ops.i2(b, a, dst)
	}
}

// permOpSet are the permutes of one grain size: one table (VPERMB), two
// tables over the first (VPERMT2B), two tables over the index (VPERMI2B).
type permOpSet struct{ one, t2, i2 func(...operand.Op) }

func (g *Generator) permOps(grain int) permOpSet {
	c := g.c
	return map[int]permOpSet{
		1: {c.VPERMB, c.VPERMT2B, c.VPERMI2B},
		2: {c.VPERMW, c.VPERMT2W, c.VPERMI2W},
		4: {c.VPERMD, c.VPERMT2D, c.VPERMI2D},
		8: {c.VPERMQ, c.VPERMT2Q, c.VPERMI2Q},
	}[grain]
}

func oneSourceA(idx []int, n int) bool {
	for _, x := range idx {
		if x >= n {
			return false
		}
	}
	return true
}

func oneSourceB(idx []int, n int) bool {
	for _, x := range idx {
		if x >= 0 && x < n {
			return false
		}
	}
	return true
}

func shift(idx []int, by int) []int {
	out := slices.Clone(idx)
	for k, x := range out {
		if x >= 0 {
			out[k] = x + by
		}
	}
	return out
}

func swapTables(idx []int, n int) []int {
	out := slices.Clone(idx)
	for k, x := range out {
		if x < n {
			out[k] = x + n
		} else {
			out[k] = x - n
		}
	}
	return out
}

// kconst loads an opmask constant (one bit per grain) into K7.
func (g *Generator) kconst(mask uint64, grain int) reg.Register {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(mask >> (8 * i))
	}
	m := g.constant(b)
	switch grain {
	case 1:
		g.c.KMOVQ(m, reg.K7)
	case 2:
		g.c.KMOVD(m, reg.K7)
	case 4:
		g.c.KMOVW(m, reg.K7)
	default:
		g.c.KMOVB(m, reg.K7)
	}
	return reg.K7
}

// mask returns, in a masked pass (m not nil), the opmask of a load (or a
// store) of the program; nil outside masked passes.
func (m *tailMasks) mask(g *Generator, load bool, in vec.Instr) reg.Register {
	if m == nil {
		return nil
	}
	key := maskKey{lanes: load == m.zip, off: in.Mem.Off, size: in.Size}
	at, ok := m.at[key]
	if !ok {
		panic(fmt.Sprintf("amd64: no tail mask for %+v", key))
	}
	if k, ok := at.(reg.Register); ok {
		return k
	}
	g.c.KMOVQ(at, reg.K7)
	return reg.K7
}

// lowBits is a little-endian uint64 with its n low bits set.
func lowBits(n int) []byte {
	b := make([]byte, 8)
	for i := range n {
		b[i/8] |= 1 << (i % 8)
	}
	return b
}

// load512 loads size bytes into dst, under opmask k if there is one.
func (g *Generator) load512(mem operand.Mem, size int, dst reg.VecPhysical, k reg.Register) {
	c := g.c
	switch {
	case k != nil:
		c.VMOVDQU8_Z(mem, k, dst)
	case size == 64:
		c.VMOVDQU64(mem, dst)
	case size == 32:
		c.VMOVDQU(mem, dst.AsY())
	case size == 16:
		c.VMOVDQU(mem, dst.AsX())
	default:
		panic(fmt.Sprintf("amd64: no load of %d bytes", size))
	}
}

// store512 stores the low size bytes of v, under opmask k if there is one
// (a store of part of a register without one gets a constant mask).
func (g *Generator) store512(v reg.VecPhysical, size int, mem operand.Mem, k reg.Register) {
	c := g.c
	switch {
	case k != nil:
		c.VMOVDQU8(v, k, mem)
	case size == 64 && g.stream: // a whole line, 64-byte aligned (streaming tiles)
		c.VMOVNTDQ(v, mem)
	case size == 64:
		c.VMOVDQU64(v, mem)
	case size == 32 && v.PhysicalIndex() >= 16: // beyond VEX's registers
		c.VMOVDQU64(v.AsY(), mem)
	case size == 32:
		c.VMOVDQU(v.AsY(), mem)
	case size == 16 && v.PhysicalIndex() >= 16:
		c.VMOVDQU64(v.AsX(), mem)
	case size == 16:
		c.VMOVDQU(v.AsX(), mem)
	default:
		c.VMOVDQU8(v, g.kconst(^uint64(0)>>(64-size), 1), mem)
	}
}

// copyRuns512 writes the AVX-512 run copier: runs of 64 bytes and more
// move 64 bytes at a time, the last piece ending at the run's end; shorter
// runs are two overlapping 32- or 16-byte moves, as in AVX2, which
// measured faster than one masked move.
func (g *Generator) copyRuns512(k table.Kernel) {
	c := g.c
	g.copyRunPaths(k, nil, 64, 64, func(from, to operand.Mem) {
		c.VMOVDQU64(from, zmm(0))
		c.VMOVDQU64(zmm(0), to)
	})
}
