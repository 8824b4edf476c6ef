// Package amd64 lowers the kernel table to AVX2 assembly with avo.
package amd64

import (
	"fmt"
	"maps"
	"math/bits"
	"slices"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

// ZipSignature is the Go signature of every fixed-b zip and unzip kernel:
// groups groups of rows rows. n is the number of bytes of each depth row (a
// multiple of the element width, and at least 4 and at least the width);
// strides and lane are in bytes.
const ZipSignature = "func(space, depth *byte, n, rows, spaceStride, depthStride, lane, laneI, groups, groupSpace, groupDepth int)"

// ZipNSignature adds the block size, for the kernels that take any.
const ZipNSignature = "func(space, depth *byte, n, rows, spaceStride, depthStride, lane, groups, groupSpace, groupDepth, b int)"

// Generator accumulates the kernels of one assembly file.
type Generator struct {
	c      *build.Context
	consts map[string]operand.Mem
	labels int
	stream bool // full-register stores are non-temporal
}

// New starts a file of kernels that are left out of purego builds.
func New() *Generator {
	c := build.NewContext()
	c.ConstraintExpr("!purego")
	return &Generator{c: c, consts: map[string]operand.Mem{}}
}

// Result returns the file built so far.
func (g *Generator) Result() (*ir.File, error) { return g.c.Result() }

// Programs returns the verified chunk bodies of a fixed-b kernel, by chunk.
func Programs(k table.Kernel) (map[int]*vec.Prog, error) {
	var pd vec.Period
	switch {
	case k.Cp > 0:
		pd = vec.CRD(k.B, k.Cp, k.Width)
	case k.Width&(k.Width-1) != 0:
		pd = vec.Runs(k.B, k.Width)
	}
	if pd.B > 0 {
		build := vec.PeriodZip
		if k.Kind == table.Unzip {
			build = vec.PeriodUnzip
		}
		progs := map[int]*vec.Prog{}
		for _, chunk := range pd.Chunks() {
			p, err := build(pd, chunk)
			if err != nil {
				return nil, fmt.Errorf("%s, %d-byte chunks: %w", k.Name(), chunk, err)
			}
			if live := p.MaxLive(scratch); live > vectorRegs {
				return nil, fmt.Errorf("%s, %d-byte chunks: %d values live, AVX2 has %d registers", k.Name(), chunk, live, vectorRegs)
			}
			progs[chunk] = p
		}
		return progs, nil
	}
	build := vec.ShuffleZip
	switch {
	case k.Kind == table.Zip && k.Width == vec.LaneBytes:
		build = func(b, _, chunk int) (*vec.Prog, error) { return vec.LaneZip(b, chunk) }
	case k.Kind == table.Unzip && k.Width == vec.LaneBytes:
		build = func(b, _, chunk int) (*vec.Prog, error) { return vec.LaneUnzip(b, chunk) }
	case k.Kind == table.Zip && bits.OnesCount(uint(k.B)) == 1:
		build = vec.UnpackZip
	case k.Kind == table.Unzip && bits.OnesCount(uint(k.B)) == 1:
		build = vec.UnpackUnzip
	case k.Kind == table.Unzip:
		build = vec.ShuffleUnzip
	}
	progs := map[int]*vec.Prog{}
	for _, chunk := range table.Chunks(k.B) {
		if chunk < k.Width || k.Streaming && chunk != 32 {
			continue
		}
		p, err := build(k.B, k.Width, chunk)
		if err != nil {
			return nil, fmt.Errorf("%s, %d-byte chunks: %w", k.Name(), chunk, err)
		}
		if live := p.MaxLive(scratch); live > vectorRegs {
			return nil, fmt.Errorf("%s, %d-byte chunks: %d values live, AVX2 has %d registers", k.Name(), chunk, live, vectorRegs)
		}
		progs[chunk] = p
	}
	return progs, nil
}

// vectorRegs is the number of vector registers AVX2 code may use.
const vectorRegs = 16

// scratch is how many registers beyond its operands an instruction's
// lowering needs: byte and word deinterleaves mask or shift both inputs first.
func scratch(in vec.Instr) int {
	if in.Op == vec.Deinterleave && in.Unit <= 2 {
		return 2
	}
	return 0
}

// RunsSignature is the Go signature of the run copying kernel: groups
// groups of rows rows of w runs of e >= 16 bytes each.
const RunsSignature = "func(dst, src *byte, e, w, dstX, srcX, rows, dstRow, srcRow, groups, dstGroup, srcGroup int)"

// MinN is the shortest row a fixed-b kernel handles: its smallest chunk.
func MinN(progs map[int]*vec.Prog) int {
	return slices.Min(slices.Collect(maps.Keys(progs)))
}

// Kernel adds one kernel of the table and returns the shortest row, in
// bytes, a fixed-b kernel handles (0 for the others).
func (g *Generator) Kernel(k table.Kernel) (minN int, err error) {
	if k.ISA != table.AVX2 {
		if k.Kind == table.Runs {
			g.copyRuns512(k)
			return 0, nil
		}
		return g.fixedB512(k)
	}
	if k.Kind == table.Runs {
		g.copyRuns(k)
		return 0, nil
	}
	if k.B == 0 {
		g.moveN(k)
		return 0, nil
	}
	progs, err := Programs(k)
	if err != nil {
		return 0, err
	}
	g.fixedB(k, progs)
	return MinN(progs), nil
}

func (g *Generator) label(what string) string {
	g.labels++
	return fmt.Sprintf("%s%d", what, g.labels)
}

// rowAddr computes the address of lane j from a few registers, since x86
// addressing scales an index by 1, 2, 4 or 8 only: lanes are grouped in
// runs of table.Split(b), each run starting at its own base register.
type rowAddr struct {
	bases       []reg.GPVirtual // base k = base 0 + k*laneI
	split       int
	lane, lane3 reg.GPVirtual
}

func (r rowAddr) mem(j, off int) operand.Mem {
	base := r.bases[j/r.split]
	switch j %= r.split; j {
	case 0:
		return operand.Mem{Base: base, Disp: off}
	case 3:
		return operand.Mem{Base: base, Index: r.lane3, Scale: 1, Disp: off}
	}
	return operand.Mem{Base: base, Index: r.lane, Scale: uint8(j), Disp: off}
}

// fixedB writes a zip or unzip kernel for one block size: a branch on the
// row length to the largest chunk that fits, then for every row a loop over
// chunks whose last chunk ends exactly at the row's end, overlapping the one
// before if need be. So nothing outside the rows is ever read or written.
func (g *Generator) fixedB(k table.Kernel, progs map[int]*vec.Prog) {
	c := g.c
	note := ""
	if k.Streaming {
		note = "It writes with non-temporal stores: n must be a multiple of 32 and every output address 32-byte aligned."
	}
	g.zipPrologue(k, note)
	g.stream = k.Streaming
	defer func() { g.stream = false }()
	z := g.zipParams(k, false)

	var sizes []int
	for chunk := range progs {
		sizes = append(sizes, chunk)
	}
	slices.Sort(sizes)
	slices.Reverse(sizes)
	paths := map[int]string{}
	for _, chunk := range sizes {
		paths[chunk] = g.label("chunk")
		c.CMPQ(z.n, operand.Imm(uint64(chunk)))
		c.JAE(operand.LabelRef(paths[chunk]))
	}
	c.RET() // rows shorter than every chunk: the caller does not send them

	for _, chunk := range sizes {
		c.Label(paths[chunk])
		limit, off := c.GP64(), c.GP64()
		c.MOVQ(z.n, limit)
		c.SUBQ(operand.Imm(uint64(chunk)), limit)
		groupLoop, rowLoop, chunkLoop, rowDone := g.label("group"), g.label("row"), g.label("chunks"), g.label("rowdone")
		rows := c.GP64() // rows left in the group; sp and dp point at the current row
		c.Label(groupLoop)
		c.Load(c.Param("rows"), rows)
		c.Label(rowLoop)
		c.XORQ(off, off)
		c.Label(chunkLoop)
		rowMem, ilvMem := g.chunkAddrs(k, z, off)
		if k.Kind == table.Zip {
			g.lower(progs[chunk], rowMem, ilvMem)
		} else {
			g.lower(progs[chunk], ilvMem, rowMem)
		}

		c.CMPQ(off, limit)
		c.JEQ(operand.LabelRef(rowDone))
		c.ADDQ(operand.Imm(uint64(chunk)), off)
		c.CMPQ(off, limit)
		c.JLE(operand.LabelRef(chunkLoop))
		c.MOVQ(limit, off) // the last chunk ends at the row's end
		c.JMP(operand.LabelRef(chunkLoop))

		c.Label(rowDone)
		g.end(loops{[2]reg.GPVirtual{z.sp, z.dp}, [2]string{"spaceStride", "depthStride"}, rows, z.groups, rowLoop, groupLoop, z.steps}, k.Streaming)
	}
}

// zipPrologue starts a fixed-b kernel's function: name, signature and doc,
// with note added to the doc.
func (g *Generator) zipPrologue(k table.Kernel, note string) {
	c := g.c
	c.Function(k.Name())
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr(ZipSignature)
	what := fmt.Sprintf("interleaves %d rows (lanes) of %d-byte elements into one", k.B, k.Width)
	if k.Kind == table.Unzip {
		what = fmt.Sprintf("splits one row into %d rows (lanes) of %d-byte elements", k.B, k.Width)
	}
	if k.Cp > 0 {
		what = fmt.Sprintf("moves NHWC CRD pixels of %d channels of %d-byte elements, block size %d, between the depth row and the space rows (lanes)", k.Cp, k.Width, k.B)
	}
	doc := []string{fmt.Sprintf("%s %s, for each of rows rows.", k.Name(), what)}
	if note != "" {
		doc = append(doc, note)
	}
	c.Doc(doc...) // one call: each call replaces the function's documentation
}

// zipRegs are where a fixed-b kernel keeps its arguments.
type zipRegs struct {
	sp, dp, n reg.GPVirtual
	groups    operand.Op // groups left: a register, or a stack slot
	addr      rowAddr
	laneI     reg.GPVirtual // zero value: lanes in one run
	steps     [2]operand.Mem
}

// zipParams loads a fixed-b kernel's arguments. With spill set, n stays
// in memory and the group count goes to the stack, leaving registers to
// the body.
func (g *Generator) zipParams(k table.Kernel, spill bool) zipRegs {
	c := g.c
	z := zipRegs{sp: c.GP64(), dp: c.GP64()}
	lane := c.GP64()
	c.Load(c.Param("space"), z.sp)
	c.Load(c.Param("depth"), z.dp)
	if spill {
		slot, t := c.AllocLocal(8), c.GP64()
		c.Load(c.Param("groups"), t)
		c.MOVQ(t, slot)
		z.groups = slot
	} else {
		z.n = c.GP64()
		c.Load(c.Param("n"), z.n)
		groups := c.GP64()
		c.Load(c.Param("groups"), groups)
		z.groups = groups
	}
	c.Load(c.Param("lane"), lane)
	z.steps = g.groupSteps()
	z.addr = rowAddr{lane: lane, split: table.Split(k.B)}
	if z.addr.split > 3 {
		z.addr.lane3 = c.GP64()
		c.LEAQ(operand.Mem{Base: lane, Index: lane, Scale: 2}, z.addr.lane3)
	}
	if k.B > z.addr.split { // more than one run of lanes
		z.laneI = c.GP64()
		c.Load(c.Param("laneI"), z.laneI)
	}
	return z
}

// chunkAddrs returns the memory operands of a chunk off bytes into the
// lanes: the lanes start at bases derived from dp + off, the interleaved
// bytes at sp + off*b.
func (g *Generator) chunkAddrs(k table.Kernel, z zipRegs, off reg.GPVirtual) (rowMem, ilvMem func(int, int) operand.Mem) {
	c := g.c
	addr := z.addr
	addr.bases = []reg.GPVirtual{c.GP64()}
	c.LEAQ(operand.Mem{Base: z.dp, Index: off, Scale: 1}, addr.bases[0])
	for len(addr.bases) < (k.B+addr.split-1)/addr.split {
		next := c.GP64()
		c.LEAQ(operand.Mem{Base: addr.bases[len(addr.bases)-1], Index: z.laneI, Scale: 1}, next)
		addr.bases = append(addr.bases, next)
	}
	ilv := operand.Mem{Base: z.sp, Index: off, Scale: uint8(k.B)}
	if k.B != 2 && k.B != 4 && k.B != 8 {
		p := c.GP64()
		c.IMUL3Q(operand.Imm(uint64(k.B)), off, p)
		c.ADDQ(z.sp, p)
		ilv = operand.Mem{Base: p}
	}
	rowMem = func(j, o int) operand.Mem { return addr.mem(j, o) }
	ilvMem = func(_, o int) operand.Mem { m := ilv; m.Disp = o; return m }
	return rowMem, ilvMem
}

// loops are the row and group loops around every kernel's body: two
// pointers step by their row strides (named arguments) after each row, and
// by the group steps after a group's last row.
type loops struct {
	ptrs               [2]reg.GPVirtual
	rowStrides         [2]string
	rows               reg.GPVirtual
	groups             operand.Op // a register or a stack slot
	rowLoop, groupLoop string
	steps              [2]operand.Mem
}

// end closes the loops and returns from the kernel, fencing non-temporal
// stores first.
func (g *Generator) end(l loops, stream bool) {
	c := g.c
	c.ADDQ(param(c, l.rowStrides[0]), l.ptrs[0])
	c.ADDQ(param(c, l.rowStrides[1]), l.ptrs[1])
	c.DECQ(l.rows)
	c.JNZ(operand.LabelRef(l.rowLoop))
	c.ADDQ(l.steps[0], l.ptrs[0])
	c.ADDQ(l.steps[1], l.ptrs[1])
	c.DECQ(l.groups)
	c.JNZ(operand.LabelRef(l.groupLoop))
	if stream {
		c.SFENCE() // non-temporal stores are weakly ordered
	}
	c.VZEROUPPER()
	c.RET()
}

// groupSteps stores, in two stack slots, what takes the space and depth
// pointers from the end of a group's last row to the next group's first:
// groupSpace - rows*spaceStride and groupDepth - rows*depthStride. Keeping
// them in memory leaves the registers to the row loop.
func (g *Generator) groupSteps() [2]operand.Mem {
	return g.stepsFor("groupSpace", "spaceStride", "groupDepth", "depthStride")
}

// stepsFor is groupSteps for kernels whose arguments have other names:
// group and row strides of the first pointer, then of the second.
func (g *Generator) stepsFor(group0, row0, group1, row1 string) [2]operand.Mem {
	c := g.c
	slots := c.AllocLocal(16)
	steps := [2]operand.Mem{slots, slots.Offset(8)}
	for i, names := range [2][2]string{{group0, row0}, {group1, row1}} {
		step, t := c.GP64(), c.GP64()
		c.Load(c.Param("rows"), t)
		c.IMULQ(param(c, names[1]), t)
		c.Load(c.Param(names[0]), step)
		c.SUBQ(t, step)
		c.MOVQ(step, steps[i])
	}
	return steps
}

// param is the memory operand of an argument, for instructions that read it
// where it is rather than through a register.
func param(c *build.Context, name string) operand.Mem {
	b, err := c.Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// lower emits a verified program. in and out map a program's input and
// output streams to memory operands. Vector registers are assigned here by a
// linear scan over the (straight-line) program, which needs no more
// registers than values are live at once; avo's allocator, a greedy graph
// colourer, may reach for the AVX-512-only registers instead.
func (g *Generator) lower(p *vec.Prog, in, out func(stream, off int) operand.Mem) {
	c := g.c
	last := make([]int, p.NumValues())
	for i, ins := range p.Instrs {
		for _, v := range ins.Uses() {
			last[v] = i
		}
	}
	var pool regPool
	for i := vectorRegs - 1; i >= 0; i-- {
		if p.Width == 32 {
			pool.free = append(pool.free, ymm[i])
		} else {
			pool.free = append(pool.free, ymm[i].AsX().(reg.VecPhysical))
		}
	}
	take, release := pool.take, pool.release
	regs := make([]reg.VecPhysical, p.NumValues())
	val := func(i int) reg.VecPhysical { return regs[i] }
	for i, ins := range p.Instrs {
		var tmp []reg.VecPhysical
		for range scratch(ins) {
			tmp = append(tmp, take())
		}
		for _, r := range tmp { // scratch is read before dst is written
			release(r)
		}
		for k, v := range ins.Uses() {
			if last[v] == i && (k == 0 || v != ins.A) { // a value read twice is freed once
				release(regs[v])
			}
		}
		var dst reg.VecPhysical
		if ins.Op != vec.Store {
			dst = take()
			regs[ins.Dst] = dst
		}
		switch ins.Op {
		case vec.Load:
			m := in(ins.Mem.Stream, ins.Mem.Off)
			switch ins.Size {
			case 32, 16:
				c.VMOVDQU(m, dst)
			case 8:
				c.VMOVQ(m, dst)
			case 4:
				c.VMOVD(m, dst)
			}
		case vec.LoadBcast:
			c.VBROADCASTI128(in(ins.Mem.Stream, ins.Mem.Off), dst)
		case vec.LoadPair:
			c.VMOVDQU(in(ins.Mem.Stream, ins.Mem.Off), dst.AsX())
			c.VINSERTI128(operand.Imm(1), in(ins.Mem2.Stream, ins.Mem2.Off), dst, dst)
		case vec.Store:
			g.store(p.Width, val(ins.A), ins.Part, ins.Size, out(ins.Mem.Stream, ins.Mem.Off))
		case vec.Interleave:
			unpack := map[[2]int]func(...operand.Op){
				{1, 0}: c.VPUNPCKLBW, {1, 1}: c.VPUNPCKHBW, {2, 0}: c.VPUNPCKLWD, {2, 1}: c.VPUNPCKHWD,
				{4, 0}: c.VPUNPCKLDQ, {4, 1}: c.VPUNPCKHDQ, {8, 0}: c.VPUNPCKLQDQ, {8, 1}: c.VPUNPCKHQDQ,
			}[[2]int{ins.Unit, b2i(ins.High)}]
			unpack(val(ins.B), val(ins.A), dst)
		case vec.Deinterleave:
			g.deinterleave(ins.Unit, ins.High, val(ins.A), val(ins.B), dst, tmp)
		case vec.Lanes:
			c.VPERM2I128(operand.Imm(uint64(ins.Sel[0]|ins.Sel[1]<<4)), val(ins.B), val(ins.A), dst)
		case vec.Shuffle:
			c.VPSHUFB(g.constant(maskBytes(ins.Mask)), val(ins.A), dst)
		case vec.Or:
			c.VPOR(val(ins.B), val(ins.A), dst)
		}
	}
}

// regPool hands out vector registers to a linear scan, and checks that it
// never hands one out twice or takes one back twice.
type regPool struct {
	free []reg.VecPhysical
	busy map[reg.VecPhysical]bool
}

func (p *regPool) take() reg.VecPhysical {
	r := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	if p.busy == nil {
		p.busy = map[reg.VecPhysical]bool{}
	}
	if p.busy[r] {
		panic(fmt.Sprintf("amd64: register %v handed out twice", r))
	}
	p.busy[r] = true
	return r
}

func (p *regPool) release(r reg.VecPhysical) {
	if !p.busy[r] {
		panic(fmt.Sprintf("amd64: register %v freed twice", r))
	}
	p.busy[r] = false
	p.free = append(p.free, r)
}

// ymm lists the registers AVX2 code may use.
var ymm = []reg.VecPhysical{
	reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7,
	reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12, reg.Y13, reg.Y14, reg.Y15,
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// vecReg is a vector register, physical or virtual.
type vecReg interface {
	reg.Register
	AsX() reg.Register
}

// store writes part `part` (size bytes) of a register of width bytes.
func (g *Generator) store(width int, v vecReg, part, size int, m operand.Mem) {
	c := g.c
	switch {
	case size == width && g.stream && width == 32:
		c.VMOVNTDQ(v, m)
	case size == width:
		c.VMOVDQU(v, m)
	case size == 16 && part == 0:
		c.VMOVDQU(v.AsX(), m)
	case size == 16:
		c.VEXTRACTI128(operand.Imm(1), v, m)
	case size == 8 && part == 0:
		c.VMOVQ(v.AsX(), m)
	case size == 8 && part == 1 && width == 16:
		c.VMOVHPS(v, m)
	case size == 4 && part == 0:
		c.VMOVD(v.AsX(), m)
	case size == 4 && width == 16:
		c.VPEXTRD(operand.Imm(uint64(part)), v, m)
	default:
		panic(fmt.Sprintf("amd64: no store of part %d of %d bytes from a %d-byte register", part, size, width))
	}
}

// deinterleave keeps the even (or odd) units of each lane of a, then of b.
// Bytes and words go through a saturating pack of the masked or shifted
// wider units, in the two scratch registers tmp; dwords and qwords have
// direct shuffles.
func (g *Generator) deinterleave(unit int, odd bool, a, b, dst reg.VecPhysical, tmp []reg.VecPhysical) {
	c := g.c
	switch unit {
	case 1, 2:
		ta, tb := tmp[0], tmp[1]
		if odd {
			shift := c.VPSRLW
			if unit == 2 {
				shift = c.VPSRLD
			}
			shift(operand.Imm(uint64(8*unit)), a, ta)
			shift(operand.Imm(uint64(8*unit)), b, tb)
		} else {
			lowHalf := g.constant(lowHalves(unit))
			c.VPAND(lowHalf, a, ta)
			c.VPAND(lowHalf, b, tb)
		}
		if unit == 1 {
			c.VPACKUSWB(tb, ta, dst)
		} else {
			c.VPACKUSDW(tb, ta, dst)
		}
	case 4:
		imm := uint64(0x88)
		if odd {
			imm = 0xdd
		}
		c.VSHUFPS(operand.Imm(imm), b, a, dst)
	case 8:
		if odd {
			c.VPUNPCKHQDQ(b, a, dst)
		} else {
			c.VPUNPCKLQDQ(b, a, dst)
		}
	}
}

// lowHalves is 32 bytes of units of 2*unit bytes whose low half is all ones.
func lowHalves(unit int) []byte {
	out := make([]byte, 32)
	for i := range out {
		if i%(2*unit) < unit {
			out[i] = 0xff
		}
	}
	return out
}

func maskBytes(mask []int8) []byte {
	out := make([]byte, len(mask))
	for i, m := range mask {
		out[i] = byte(m) // negative: high bit set, pshufb writes zero
	}
	return out
}

// constant returns read-only data holding b (16 or 32 bytes), shared by all
// kernels that need the same bytes.
func (g *Generator) constant(b []byte) operand.Mem {
	key := string(b)
	if m, ok := g.consts[key]; ok {
		return m
	}
	name := fmt.Sprintf("shuffle%d", len(g.consts))
	m := g.c.StaticGlobal(name)
	g.c.DataAttributes(attr.RODATA | attr.NOPTR)
	for i := 0; i < len(b); i += 8 {
		var u uint64
		for k := 7; k >= 0; k-- {
			u = u<<8 | uint64(b[i+k])
		}
		g.c.AddDatum(i, operand.U64(u))
	}
	g.consts[key] = m
	return m
}

// moveN writes the kernel for 16-byte elements and any block size: each
// element moves whole, two at a time where the row allows.
func (g *Generator) moveN(k table.Kernel) {
	c := g.c
	c.Function(k.Name())
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr(ZipNSignature)
	if k.Kind == table.Zip {
		c.Doc(k.Name() + " interleaves b rows (lane bytes apart) of 16-byte elements into one, for each of rows rows.")
	} else {
		c.Doc(k.Name() + " splits one row into b rows (lane bytes apart) of 16-byte elements, for each of rows rows.")
	}
	rowS, rowD := c.GP64(), c.GP64()
	n, groups, lane, b := c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("space"), rowS)
	c.Load(c.Param("depth"), rowD)
	c.Load(c.Param("n"), n)
	c.Load(c.Param("groups"), groups)
	c.Load(c.Param("lane"), lane)
	c.Load(c.Param("b"), b)
	stride := c.GP64() // bytes between a row's consecutive elements in space
	c.MOVQ(b, stride)
	c.SHLQ(operand.Imm(4), stride)
	next := g.groupSteps()

	groupLoop, rowLoop, jLoop, pairLoop, single, jDone := g.label("group"), g.label("row"), g.label("lanes"), g.label("pairs"), g.label("single"), g.label("lanedone")
	rows := c.GP64()
	c.Label(groupLoop)
	c.Load(c.Param("rows"), rows)
	c.Label(rowLoop)
	j, sp, dp := c.GP64(), c.GP64(), c.GP64()
	c.XORQ(j, j)
	c.MOVQ(rowS, sp)
	c.MOVQ(rowD, dp)
	c.Label(jLoop)
	s, d, left := c.GP64(), c.GP64(), c.GP64()
	c.MOVQ(sp, s)
	c.MOVQ(dp, d)
	c.MOVQ(n, left)
	c.Label(pairLoop)
	c.CMPQ(left, operand.Imm(32))
	c.JB(operand.LabelRef(single))
	y := c.YMM()
	second := operand.Mem{Base: s, Index: stride, Scale: 1}
	if k.Kind == table.Zip {
		c.VMOVDQU(operand.Mem{Base: d}, y)
		c.VMOVDQU(y.AsX(), operand.Mem{Base: s})
		c.VEXTRACTI128(operand.Imm(1), y, second)
	} else {
		c.VMOVDQU(operand.Mem{Base: s}, y.AsX())
		c.VINSERTI128(operand.Imm(1), second, y, y)
		c.VMOVDQU(y, operand.Mem{Base: d})
	}
	c.ADDQ(operand.Imm(32), d)
	c.LEAQ(operand.Mem{Base: s, Index: stride, Scale: 2}, s)
	c.SUBQ(operand.Imm(32), left)
	c.JMP(operand.LabelRef(pairLoop))
	c.Label(single)
	c.TESTQ(left, left)
	c.JZ(operand.LabelRef(jDone))
	x := c.XMM()
	if k.Kind == table.Zip {
		c.VMOVDQU(operand.Mem{Base: d}, x)
		c.VMOVDQU(x, operand.Mem{Base: s})
	} else {
		c.VMOVDQU(operand.Mem{Base: s}, x)
		c.VMOVDQU(x, operand.Mem{Base: d})
	}
	c.Label(jDone)
	c.ADDQ(operand.Imm(16), sp)
	c.ADDQ(lane, dp)
	c.INCQ(j)
	c.CMPQ(j, b)
	c.JB(operand.LabelRef(jLoop))

	g.end(loops{[2]reg.GPVirtual{rowS, rowD}, [2]string{"spaceStride", "depthStride"}, rows, groups, rowLoop, groupLoop, next}, false)
}

// copyRuns writes the kernel that copies runs of e >= 16 bytes, x-th run of
// a row from src + x*srcX to dst + x*dstX: 32 bytes at a time with the last
// piece ending at the run's end, or two overlapping 16-byte moves for runs
// shorter than 32 bytes.
func (g *Generator) copyRuns(k table.Kernel) {
	c := g.c
	var doc []string
	if k.Streaming {
		doc = append(doc, "It writes with non-temporal stores: e must be a multiple of 32 and every dst address 32-byte aligned.")
	}
	// last becomes the offset of the last 32- or 16-byte piece of a run.
	dst, src, e, groups, last, steps := g.runCopier(k, doc...)
	g.stream = k.Streaming
	defer func() { g.stream = false }()
	short, groupLoop := g.label("short"), g.label("group")
	c.CMPQ(e, operand.Imm(32))
	c.JB(operand.LabelRef(short))
	c.SUBQ(operand.Imm(32), last)
	// One loop nest per path: long runs move 32 bytes at a time. A
	// streaming kernel only has runs of multiples of 32 bytes.
	paths := []bool{true, false}
	if k.Streaming {
		paths = paths[:1]
	}
	for _, long := range paths {
		if !long {
			c.Label(short)
			c.SUBQ(operand.Imm(16), last)
		}
		gl := groupLoop + fmt.Sprint(b2i(long))
		g.eachRun(dst, src, groups, gl, steps, k.Streaming, func(d, s reg.GPVirtual) {
			if long {
				y := c.YMM()
				g.copyPieces(s, d, last, operand.Imm(32), func(from, to operand.Mem) {
					c.VMOVDQU(from, y)
					g.store(32, y, 0, 32, to)
				})
			} else {
				g.copyHeadTail(s, d, last, c.XMM(), c.XMM())
			}
		})
	}
	if k.Streaming {
		c.Label(short) // not taken: runs are at least 32 bytes
		c.RET()
	}
}

// runCopier begins the function of run copier k, of AVX2 or AVX-512: its
// header and documentation (doc adds lines), the parameters it loops with,
// the group and row strides, and last = e, which each path lowers to the
// offset of a run's last piece.
func (g *Generator) runCopier(k table.Kernel, doc ...string) (dst, src, e, groups, last reg.GPVirtual, steps [2]operand.Mem) {
	c := g.c
	c.Function(k.Name())
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr(RunsSignature)
	c.Doc(append([]string{k.Name() + " copies, in each row of each group, w runs of e >= 16 bytes from src + x*srcX to dst + x*dstX."}, doc...)...)
	dst, src, e, groups = c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("e"), e)
	c.Load(c.Param("groups"), groups)
	steps = g.stepsFor("dstGroup", "dstRow", "srcGroup", "srcRow")
	last = c.GP64()
	c.MOVQ(e, last)
	return dst, src, e, groups, last, steps
}

// copyPieces copies one run from s to d in pieces of size bytes, the last
// piece at offset last (run length - size), overlapping the one before it
// where the run is not a whole number of pieces. move copies one piece.
func (g *Generator) copyPieces(s, d, last reg.GPVirtual, size operand.Constant, move func(from, to operand.Mem)) {
	c := g.c
	off := c.GP64()
	pieces, done := g.label("pieces"), g.label("piecesdone")
	c.XORQ(off, off)
	c.Label(pieces)
	move(operand.Mem{Base: s, Index: off, Scale: 1}, operand.Mem{Base: d, Index: off, Scale: 1})
	c.CMPQ(off, last)
	c.JEQ(operand.LabelRef(done))
	c.ADDQ(size, off)
	c.CMPQ(off, last)
	c.JLE(operand.LabelRef(pieces))
	c.MOVQ(last, off)
	c.JMP(operand.LabelRef(pieces))
	c.Label(done)
}

// eachRun loops over the runs of a run copier: groups of rows (the group
// loop's label is groupLoop) of w runs, dstX and srcX bytes apart, calling
// run with the addresses of each.
func (g *Generator) eachRun(dst, src, groups reg.GPVirtual, groupLoop string, steps [2]operand.Mem, streaming bool, run func(d, s reg.GPVirtual)) {
	c := g.c
	rowLoop, runLoop := g.label("row"), g.label("run")
	rows, x, d, s := c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Label(groupLoop)
	c.Load(c.Param("rows"), rows)
	c.Label(rowLoop)
	c.Load(c.Param("w"), x)
	c.MOVQ(dst, d)
	c.MOVQ(src, s)
	c.Label(runLoop)
	run(d, s)
	c.ADDQ(param(c, "dstX"), d)
	c.ADDQ(param(c, "srcX"), s)
	c.DECQ(x)
	c.JNZ(operand.LabelRef(runLoop))
	g.end(loops{[2]reg.GPVirtual{dst, src}, [2]string{"dstRow", "srcRow"}, rows, groups, rowLoop, groupLoop, steps}, streaming)
}

// copyHeadTail copies a run of one to two registers' width, a and b, from
// s to d: its first bytes and its last ones, from offset last, overlapping.
func (g *Generator) copyHeadTail(s, d, last reg.GPVirtual, a, b reg.Register) {
	c := g.c
	c.VMOVDQU(operand.Mem{Base: s}, a)
	c.VMOVDQU(operand.Mem{Base: s, Index: last, Scale: 1}, b)
	c.VMOVDQU(a, operand.Mem{Base: d})
	c.VMOVDQU(b, operand.Mem{Base: d, Index: last, Scale: 1})
}
