package arm64

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

// General-purpose registers of the fixed-b kernels. R18 (platform), R26,
// R27 (the assembler's temporary), R28 (g), R29 and R30 are left alone.
var lanePtrs = []string{"R12", "R13", "R14", "R15", "R16", "R17", "R19", "R20"}

const (
	ilvPtr  = "R21" // the interleaved side of the current chunk
	left    = "R22" // bytes of each lane still to move in the row
	addrTmp = "R23" // addresses with an offset
	tmp     = "R24"
)

// Vector registers: values of vec programs take the low ones, hoisted
// shuffle masks the high ones.
const vectorRegs = 32

// dataRegs is how many registers a vec program's values may need at once.
const dataRegs = 24

// fixedB writes a zip or unzip kernel for one block size: a branch on the
// row length to the largest chunk that fits, then for every row a loop over
// chunks whose last chunk ends exactly at the row's end, backing up over
// the one before if need be, so that nothing outside the rows is touched.
func (g *Generator) fixedB(k table.Kernel, bodies map[int]body) {
	verb := fmt.Sprintf("interleaves %d lanes of %d-byte elements into one row", k.B, k.Width)
	if k.Unzip {
		verb = fmt.Sprintf("splits one row into %d lanes of %d-byte elements", k.B, k.Width)
	}
	if k.Cp > 0 {
		verb = fmt.Sprintf("moves NHWC CRD pixels of %d channels of %d-byte elements, block size %d, between depth rows and space rows", k.Cp, k.Width, k.B)
	}
	g.function(k.Name(), verb+", for each row of each group.", table.Lanes.Signature)
	g.params(table.Lanes.Signature, map[string]string{
		"space": "R0", "depth": "R1", "n": "R2", "rows": "R3", "spaceStride": "R4", "depthStride": "R5",
		"lane": "R6", "laneI": "R7", "groups": "R8", "spaceSkip": "R9", "depthSkip": "R10",
	})
	chunks := chunksOf(bodies)
	paths := map[int]string{}
	for _, c := range chunks {
		paths[c] = g.label("chunk")
		g.ins("CMP $%d, R2", c)
		g.ins("BHS %s", paths[c])
	}
	g.ins("RET") // rows shorter than every chunk: the caller does not send them

	split := table.Split(k.B)
	lanes := lanePtrs[:k.B]
	for _, c := range chunks {
		bd := bodies[c]
		g.put(paths[c])
		masks := g.hoistMasks(bd.prog)
		group, row, chunk, body, tail, rowDone := g.label("group"), g.label("row"), g.label("chunks"), g.label("body"), g.label("tail"), g.label("rowdone")
		g.put(group)
		g.ins("MOVD R3, R11")
		g.put(row)
		for j, p := range lanes {
			switch {
			case j == 0:
				g.ins("MOVD R1, %s", p)
			case j%split == 0:
				g.ins("ADD R7, %s, %s", lanes[j-split], p)
			default:
				g.ins("ADD R6, %s, %s", lanes[j-1], p)
			}
		}
		g.ins("MOVD R0, %s", ilvPtr)
		g.ins("MOVD R2, %s", left)
		g.put(chunk)
		g.ins("CMP $%d, %s", c, left)
		g.ins("BLO %s", tail)
		g.put(body)
		if bd.emit != nil {
			bd.emit(g, lanes, ilvPtr)
		} else {
			g.lower(bd.prog, k.Unzip, lanes, masks)
		}
		for _, p := range lanes {
			g.ins("ADD $%d, %s, %s", c, p, p)
		}
		g.ins("ADD $%d, %s, %s", c*k.B, ilvPtr, ilvPtr)
		g.ins("SUB $%d, %s, %s", c, left, left)
		g.ins("B %s", chunk)
		g.put(tail)
		g.ins("CBZ %s, %s", left, rowDone)
		// The last chunk ends at the row's end: back up by chunk - left.
		g.ins("MOVD $%d, %s", c, addrTmp)
		g.ins("SUB %s, %s, %s", left, addrTmp, addrTmp)
		for _, p := range lanes {
			g.ins("SUB %s, %s, %s", addrTmp, p, p)
		}
		g.ins("MOVD $%d, %s", k.B, tmp)
		g.ins("MUL %s, %s, %s", tmp, addrTmp, tmp)
		g.ins("SUB %s, %s, %s", tmp, ilvPtr, ilvPtr)
		g.ins("MOVD $%d, %s", c, left)
		g.ins("B %s", body)
		g.put(rowDone)
		g.endLoops("R0", "R1", "R4", "R5", "R11", row, "R9", "R10", "R8", group)
	}
}

// endLoops closes the row and group loops of a kernel and returns.
func (g *Generator) endLoops(p0, p1, r0, r1, rows, row, s0, s1, groups, group string) {
	g.ins("ADD %s, %s, %s", r0, p0, p0)
	g.ins("ADD %s, %s, %s", r1, p1, p1)
	g.ins("SUBS $1, %s, %s", rows, rows)
	g.ins("BNE %s", row)
	g.ins("ADD %s, %s, %s", s0, p0, p0)
	g.ins("ADD %s, %s, %s", s1, p1, p1)
	g.ins("SUBS $1, %s, %s", groups, groups)
	g.ins("BNE %s", group)
	g.ins("RET")
}

// hoistMasks loads the shuffle masks of a program into the top vector
// registers, once per call, when they fit beside its values; it returns
// the register of each mask (nil: load masks where they are used).
func (g *Generator) hoistMasks(p *vec.Prog) map[string]int {
	if p == nil {
		return nil
	}
	regs := map[string]int{}
	for _, in := range p.Instrs {
		if in.Op == vec.Shuffle || in.Op == vec.ShuffleInto {
			if _, ok := regs[string(maskBytes(in.Mask))]; !ok {
				regs[string(maskBytes(in.Mask))] = vectorRegs - 1 - len(regs)
			}
		}
	}
	if len(regs) == 0 || len(regs)+p.MaxLive(nil) > vectorRegs-1 {
		return nil
	}
	for m, r := range sortedMasks(regs) {
		g.ins("MOVD $%s(SB), %s", g.constant([]byte(m)), tmp)
		g.ins("VLD1 (%s), [V%d.B16]", tmp, r)
	}
	return regs
}

// sortedMasks iterates over masks in register order, so that output is
// the same on every run.
func sortedMasks(regs map[string]int) func(func(string, int) bool) {
	return func(yield func(string, int) bool) {
		for r := vectorRegs - 1; r >= vectorRegs-1-len(regs); r-- {
			for m, mr := range regs {
				if mr == r && !yield(m, r) {
					return
				}
			}
		}
	}
}

// lower emits a verified 16-byte vec program. Lanes are the depth side of
// the kernel (loads of a zip, stores of an unzip), the interleaved side is
// ilvPtr. Vector registers are assigned by a linear scan, which needs no
// more registers than values are live at once.
func (g *Generator) lower(p *vec.Prog, unzip bool, lanes []string, masks map[string]int) {
	if q := p.Grouped(); q.MaxLive(nil)+len(masks) < vectorRegs {
		p = q // loads first and stores last, so that neighbours pair up
	}
	hoisted := map[int]bool{}
	for _, r := range masks {
		hoisted[r] = true
	}
	// TBX merges into its destination: it takes over A's register when A
	// dies there, and a copy of A otherwise. V31 holds a mask loaded where
	// it is used.
	alloc := p.Allocate(vec.Alloc{Regs: vectorRegs - 1, Reserved: hoisted, Reuse: func(in vec.Instr, dies func(int) bool) int {
		if in.Op == vec.ShuffleInto && dies(in.A) && in.A != in.B {
			return in.A
		}
		return -1
	}})
	regs := alloc.Of
	base := func(in bool, m vec.Mem) string {
		if in != unzip { // a zip reads lanes, an unzip writes them
			return lanes[m.Stream]
		}
		return ilvPtr
	}
	// offset is m as an offset operand, for the FMOV forms.
	offset := func(in bool, m vec.Mem) string { return fmt.Sprintf("%d(%s)", m.Off, base(in, m)) }
	// addr is m in a register, for the lane stores, which take no offset.
	addr := func(in bool, m vec.Mem) string {
		if m.Off == 0 {
			return "(" + base(in, m) + ")"
		}
		g.ins("ADD $%d, %s, %s", m.Off, base(in, m), addrTmp)
		return "(" + addrTmp + ")"
	}
	// pairs reports whether instructions i and i+1 are 16-byte loads (or
	// stores) of neighbouring places of one stream, which one LDP (STP)
	// can do.
	pairs := func(i int) bool {
		if i+1 >= len(p.Instrs) {
			return false
		}
		x, y := p.Instrs[i], p.Instrs[i+1]
		return x.Op == y.Op && (x.Op == vec.Load || x.Op == vec.Store) && x.Size == 16 && y.Size == 16 &&
			x.Part == 0 && y.Part == 0 && x.Mem.Stream == y.Mem.Stream && y.Mem.Off == x.Mem.Off+16 &&
			x.Mem.Off%16 == 0 && x.Mem.Off < 1008
	}
	for i := 0; i < len(p.Instrs); i++ {
		in := p.Instrs[i]
		into := alloc.Reused[i] >= 0
		var d int
		if in.Op != vec.Store {
			d = regs[in.Dst]
		}
		a, b := regs[in.A], regs[in.B]
		if pairs(i) {
			next := p.Instrs[i+1]
			if in.Op == vec.Load {
				g.ins("FLDPQ %s, (F%d, F%d)", offset(true, in.Mem), d, regs[next.Dst])
			} else {
				g.ins("FSTPQ (F%d, F%d), %s", a, regs[next.A], offset(false, in.Mem))
			}
			i++
			continue
		}
		switch in.Op {
		case vec.Load:
			mov := map[int]string{16: "FMOVQ", 8: "FMOVD", 4: "FMOVS"}[in.Size]
			g.ins("%s %s, F%d", mov, offset(true, in.Mem), d)
		case vec.Store:
			switch {
			case in.Part == 0:
				mov := map[int]string{16: "FMOVQ", 8: "FMOVD", 4: "FMOVS"}[in.Size]
				g.ins("%s F%d, %s", mov, a, offset(false, in.Mem))
			case in.Size == 8:
				g.ins("VST1 V%d.D[1], %s", a, addr(false, in.Mem))
			default:
				g.ins("VST1 V%d.S[%d], %s", a, in.Part, addr(false, in.Mem))
			}
		case vec.Interleave, vec.Deinterleave:
			op := map[[2]bool]string{{false, false}: "VZIP1", {false, true}: "VZIP2", {true, false}: "VUZP1", {true, true}: "VUZP2"}[[2]bool{in.Op == vec.Deinterleave, in.High}]
			arr := arrangement(in.Grain, 16)
			g.ins("%s V%d.%s, V%d.%s, V%d.%s", op, b, arr, a, arr, d, arr)
		case vec.Shuffle:
			g.ins("VTBL V%d.B16, [V%d.B16], V%d.B16", g.mask(in.Mask, masks), a, d)
		case vec.ShuffleInto:
			if !into {
				g.ins("VORR V%d.B16, V%d.B16, V%d.B16", a, a, d)
			}
			g.ins("VTBX V%d.B16, [V%d.B16], V%d.B16", g.mask(in.Mask, masks), b, d)
		case vec.Or:
			g.ins("VORR V%d.B16, V%d.B16, V%d.B16", b, a, d)
		default:
			panic(fmt.Sprintf("arm64: no lowering of %v in 16-byte programs", in.Op))
		}
	}
}

// mask returns the register holding a shuffle mask: its hoisted register,
// or V31, loaded here.
func (g *Generator) mask(mask []int8, hoisted map[string]int) int {
	if r, ok := hoisted[string(maskBytes(mask))]; ok {
		return r
	}
	g.ins("MOVD $%s(SB), %s", g.constant(maskBytes(mask)), tmp)
	g.ins("VLD1 (%s), [V%d.B16]", tmp, vectorRegs-1)
	return vectorRegs - 1
}

func maskBytes(mask []int8) []byte {
	out := make([]byte, len(mask))
	for i, m := range mask {
		out[i] = byte(m) // negative: VTBL index out of range, writes zero
	}
	return out
}

// constant returns the symbol of 16 bytes of read-only data holding b.
func (g *Generator) constant(b []byte) string {
	if s, ok := g.consts[string(b)]; ok {
		return s
	}
	s := fmt.Sprintf("mask%d<>", len(g.consts))
	for i := 0; i < len(b); i += 8 {
		var u uint64
		for k := 7; k >= 0; k-- {
			u = u<<8 | uint64(b[i+k])
		}
		fmt.Fprintf(&g.data, "DATA %s+%d(SB)/8, $0x%016x\n", s, i, u)
	}
	fmt.Fprintf(&g.data, "GLOBL %s(SB), RODATA|NOPTR, $%d\n", s, len(b))
	g.consts[string(b)] = s
	return s
}

// moveN writes the kernel for 16-byte elements and any block size: each
// element moves whole, lane by lane, four at a time.
func (g *Generator) moveN(k table.Kernel) {
	doc := "interleaves b lanes of 16-byte elements into one row, for each row of each group."
	if k.Unzip {
		doc = "splits one row into b lanes of 16-byte elements, for each row of each group."
	}
	g.function(k.Name(), doc, table.AnyB.Signature)
	g.params(table.AnyB.Signature, map[string]string{
		"space": "R0", "depth": "R1", "n": "R2", "rows": "R3", "spaceStride": "R4", "depthStride": "R5",
		"lane": "R6", "groups": "R8", "spaceSkip": "R9", "depthSkip": "R10", "b": "R25",
	})
	g.ins("LSL $4, R25, %s", tmp) // bytes between a lane's elements in space, and 2, 3 and 4 times that
	g.ins("LSL $5, R25, R22")
	g.ins("ADD %s, R22, R23", tmp)
	g.ins("LSL $6, R25, R7")
	group, row, lane, elem := g.label("group"), g.label("row"), g.label("lane"), g.label("elem")
	g.put(group)
	g.ins("MOVD R3, R11")
	g.put(row)
	g.ins("MOVD R0, R12")
	g.ins("MOVD R1, R13")
	g.ins("MOVD $0, R14")
	g.put(lane)
	g.ins("MOVD R12, R15")
	g.ins("MOVD R13, R16")
	g.ins("MOVD R2, R17")
	// Four elements per iteration while they last, then one at a time;
	// the lane side moves with paired loads (stores).
	quad, single, laneDone := g.label("quad"), g.label("single"), g.label("lanedone")
	spaced := []string{"R15", "R19", "R20", "R21"} // the four elements' places in space
	g.put(quad)
	g.ins("CMP $64, R17")
	g.ins("BLO %s", single)
	for i, step := range []string{tmp, "R22", "R23"} { // independent of each other
		g.ins("ADD %s, R15, %s", step, spaced[i+1])
	}
	if !k.Unzip {
		g.ins("FLDPQ (R16), (F0, F1)")
		g.ins("FLDPQ 32(R16), (F2, F3)")
		for i, r := range spaced {
			g.ins("FMOVQ F%d, (%s)", i, r)
		}
	} else {
		for i, r := range spaced {
			g.ins("FMOVQ (%s), F%d", r, i)
		}
		g.ins("FSTPQ (F0, F1), (R16)")
		g.ins("FSTPQ (F2, F3), 32(R16)")
	}
	g.ins("ADD $64, R16, R16")
	g.ins("ADD R7, R15, R15")
	g.ins("SUB $64, R17, R17")
	g.ins("B %s", quad)
	g.put(single)
	g.ins("CBZ R17, %s", laneDone)
	g.put(elem)
	if !k.Unzip {
		g.ins("VLD1.P 16(R16), [V0.B16]")
		g.ins("VST1 [V0.B16], (R15)")
	} else {
		g.ins("VLD1 (R15), [V0.B16]")
		g.ins("VST1.P [V0.B16], 16(R16)")
	}
	g.ins("ADD %s, R15, R15", tmp)
	g.ins("SUBS $16, R17, R17")
	g.ins("BNE %s", elem)
	g.put(laneDone)
	g.ins("ADD $16, R12, R12")
	g.ins("ADD R6, R13, R13")
	g.ins("ADD $1, R14, R14")
	g.ins("CMP R25, R14")
	g.ins("BLO %s", lane)
	g.endLoops("R0", "R1", "R4", "R5", "R11", row, "R9", "R10", "R8", group)
}

// copyRuns writes the kernel that copies runs of e >= 16 bytes: 64 and
// then 32 bytes at a time with paired loads and stores, the last 32 bytes
// ending at the run's end, or two overlapping 16-byte moves for runs
// shorter than 32 bytes.
func (g *Generator) copyRuns(k table.Kernel) {
	g.function(k.Name(), "copies, in each row of each group, w runs of e >= 16 bytes from src + x*srcX to dst + x*dstX.", table.Copiers.Signature)
	g.params(table.Copiers.Signature, map[string]string{
		"dst": "R0", "src": "R1", "e": "R2", "w": "R3", "dstX": "R4", "srcX": "R5", "rows": "R6",
		"dstRow": "R7", "srcRow": "R8", "groups": "R9", "dstSkip": "R10", "srcSkip": "R11",
	})
	short := g.label("short")
	g.ins("CMP $32, R2")
	g.ins("BLO %s", short)
	for _, long := range []bool{true, false} {
		step := 32
		if !long {
			step = 16
			g.put(short)
		}
		g.ins("SUB $%d, R2, R12", step) // offset of the last piece of a run
		group, row, run := g.label("group"), g.label("row"), g.label("run")
		g.put(group)
		g.ins("MOVD R6, R13")
		g.put(row)
		g.ins("MOVD R0, R14")
		g.ins("MOVD R1, R15")
		g.ins("MOVD R3, R16")
		g.put(run)
		g.ins("ADD R12, R15, R24") // the last piece, ending at the run's end
		g.ins("ADD R12, R14, R25")
		if long {
			pairs, single, last := g.label("pairs"), g.label("single"), g.label("last")
			g.ins("MOVD R15, R19")
			g.ins("MOVD R14, R20")
			g.put(pairs) // 64 bytes while two whole pieces come before the last
			g.ins("ADD $32, R19, R23")
			g.ins("CMP R24, R23")
			g.ins("BHS %s", single)
			g.ins("FLDPQ (R19), (F0, F1)")
			g.ins("FLDPQ 32(R19), (F2, F3)")
			g.ins("FSTPQ (F0, F1), (R20)")
			g.ins("FSTPQ (F2, F3), 32(R20)")
			g.ins("ADD $64, R19, R19")
			g.ins("ADD $64, R20, R20")
			g.ins("B %s", pairs)
			g.put(single)
			g.ins("CMP R24, R19")
			g.ins("BHS %s", last)
			g.ins("FLDPQ (R19), (F0, F1)")
			g.ins("FSTPQ (F0, F1), (R20)")
			g.put(last)
			g.ins("FLDPQ (R24), (F0, F1)")
			g.ins("FSTPQ (F0, F1), (R25)")
		} else {
			g.ins("FMOVQ (R15), F0")
			g.ins("FMOVQ (R24), F1")
			g.ins("FMOVQ F0, (R14)")
			g.ins("FMOVQ F1, (R25)")
		}
		g.ins("ADD R4, R14, R14")
		g.ins("ADD R5, R15, R15")
		g.ins("SUBS $1, R16, R16")
		g.ins("BNE %s", run)
		g.endLoops("R0", "R1", "R7", "R8", "R13", row, "R10", "R11", "R9", group)
	}
}
