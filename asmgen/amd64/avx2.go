package amd64

// The AVX2 lowering: vec programs over 16- and 32-byte registers, the
// kernels of 16-byte elements for any block size, and the run copier.

import (
	"bytes"
	"fmt"
	"math/bits"
	"slices"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

// Programs returns the verified chunk bodies of a fixed-b kernel, by chunk.
func Programs(k table.Kernel) (map[int]*vec.Prog, error) {
	if k.Cp > 0 && k.Streaming { // whole pixels in whole aligned stores: one chunk of lcm(pixel, 32) bytes per lane
		pd := vec.CRD(k.B, k.Cp, k.Width)
		wide := 2 * vec.LaneBytes
		chunk := pd.E / gcd(pd.E, wide) * wide
		return vec.Bodies(k.Name(), []int{chunk}, vectorRegs, scratch, vec.PeriodBuilder(pd, k.Unzip, wide))
	}
	if k.Cp > 0 && vec.RunFits(k.B, k.Cp, k.Width) {
		return vec.Bodies(k.Name(), vec.RunChunks(k.B, k.Cp, k.Width), vectorRegs, scratch, func(chunk int) (*vec.Prog, error) {
			return vec.RunNetwork(k.B, k.Cp, k.Width, chunk, k.Unzip)
		})
	}
	if pd, ok := vec.KernelPeriod(k.B, k.Cp, k.Width); ok {
		unzip := k.Unzip
		// The row in passes of 32-byte registers, from windows tiling the
		// input or placed for each register's pieces (vec.WideWindows),
		// its end in 16-byte ones.
		chunks, narrow := pd.WideChunks(), vec.PeriodBuilder(pd, unzip, vec.LaneBytes)
		first, wide := chunks[0], func(chunk int) (*vec.Prog, error) {
			return vec.WideWindows(pd, chunk, unzip, func(p *vec.Prog) bool { return p.MaxLive(scratch) <= vectorRegs })
		}
		switch {
		case vec.PixelFits(pd):
			chunks = pd.Chunks()
			wide = func(chunk int) (*vec.Prog, error) { return vec.PixelNetwork(pd, chunk, unzip) }
			narrow = wide
		case k.Cp > 0 && vec.StagedFits(k.B, k.Cp, k.Width):
			first = vec.StagedChunk(k.B, k.Cp, k.Width)
			chunks = append([]int{first}, pd.Chunks()...)
			wide = func(chunk int) (*vec.Prog, error) {
				if unzip {
					return vec.StagedUnzip(k.B, k.Cp, k.Width, chunk)
				}
				return vec.StagedZip(k.B, k.Cp, k.Width, chunk)
			}
		}
		return vec.Bodies(k.Name(), chunks, vectorRegs, scratch, func(chunk int) (*vec.Prog, error) {
			if chunk == first {
				return wide(chunk)
			}
			return narrow(chunk)
		})
	}
	build := vec.ShuffleZip
	switch {
	case !k.Unzip && k.Width == vec.LaneBytes:
		build = func(b, _, chunk int) (*vec.Prog, error) { return vec.LaneZip(b, chunk) }
	case k.Unzip && k.Width == vec.LaneBytes:
		build = func(b, _, chunk int) (*vec.Prog, error) { return vec.LaneUnzip(b, chunk) }
	case !k.Unzip && bits.OnesCount(uint(k.B)) == 1:
		build = vec.UnpackZip
	case k.Unzip && bits.OnesCount(uint(k.B)) == 1:
		build = vec.UnpackUnzip
	case k.Unzip:
		build = vec.ShuffleUnzip
	}
	var chunks []int
	for _, chunk := range table.Chunks(k.B) {
		if chunk >= k.Width && (!k.Streaming || chunk == 32) {
			chunks = append(chunks, chunk)
		}
	}
	if lines(k) {
		chunks = append(chunks, 2*32)
	}
	body := func(chunk int) (*vec.Prog, error) {
		switch {
		case transposes(k) && chunk == 32:
			return vec.TransposeUnzip(k.B, k.Width)
		case !k.Unzip && vec.RotateFits(k.B, k.Width) && chunk >= 16:
			return vec.RotateZip(k.B, k.Width, chunk)
		case k.Unzip && vec.RotateFits(k.B, k.Width) && k.Width >= 4 && chunk == 32:
			// Not of bytes and words: on a Zen 5, SpaceToDepth of b = 3,
			// 5, 7 by rotation ran no faster than ShuffleUnzip's (1.00x to
			// 1.10x).
			return vec.RotateUnzip(k.B, k.Width, chunk)
		}
		return build(k.B, k.Width, chunk)
	}
	return vec.Bodies(k.Name(), chunks, vectorRegs, scratch, func(chunk int) (*vec.Prog, error) {
		if chunk != 2*32 {
			return body(chunk)
		}
		p, err := body(32)
		if err != nil {
			return nil, err
		}
		return vec.Lines(p, k.B, k.Width, 32, vectorRegs, scratch)
	})
}

// lines reports whether an AVX2 unzip also has chunks of two 32-byte
// chunks whose stores fill each lane's cache line in a row (vec.Lines):
// b = 8, where a chunk's lines can all fall in one L1 set.
func lines(k table.Kernel) bool {
	return k.Unzip && k.Cp == 0 && !k.Streaming && k.B == 8
}

// chunkImm is a chunk's size as an immediate: one byte where it fits, as
// the kernels have always written it, else four.
func chunkImm(chunk int) operand.Constant {
	if chunk < 256 {
		return operand.Imm(uint64(chunk))
	}
	return operand.U32(chunk)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// transposes reports whether an AVX2 unzip moves its 32-byte chunks as a
// transpose (vec.TransposeUnzip): b of 4 or 8 with pixels of at most 16
// bytes, but not in the streaming kernels, whose stores are whole
// registers.
func transposes(k table.Kernel) bool {
	return k.Unzip && k.Cp == 0 && !k.Streaming && (k.B == 4 || k.B == 8) && k.B*k.Width <= vec.LaneBytes
}

// vectorRegs is the number of vector registers AVX2 code may use.
const vectorRegs = 16

// scratch is how many registers beyond its operands an instruction's
// lowering needs: byte and word deinterleaves mask or shift both inputs
// first, VPERMD takes its index from a register and VPBLENDVB its mask.
func scratch(in vec.Instr) int {
	switch {
	case in.Op == vec.Deinterleave && in.Grain <= 2:
		return 2
	case in.Op == vec.Permute2 && (!vec.IsBlend(in.Idx) || in.Grain < 4):
		return 1
	}
	return 0
}

// fixedB writes a zip or unzip kernel for one block size: a branch on the
// row length to the largest chunk that fits, then for every row a loop over
// chunks whose last chunk ends exactly at the row's end, overlapping the one
// before if need be. So nothing outside the rows is ever read or written.
// A half-chunk row end was 49 KB of binary for 1.2x on rows of 40 bytes.
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
		c.CMPQ(z.n, chunkImm(chunk))
		c.JAE(operand.LabelRef(paths[chunk]))
	}
	c.RET() // rows shorter than every chunk: the caller does not send them

	for _, chunk := range sizes {
		c.Label(paths[chunk])
		g.hoist(progs[chunk])
		limit, off := c.GP64(), c.GP64()
		c.MOVQ(z.n, limit)
		c.SUBQ(chunkImm(chunk), limit)
		groupLoop, rowLoop, chunkLoop, rowDone := g.label("group"), g.label("row"), g.label("chunks"), g.label("rowdone")
		rows := c.GP64() // rows left in the group; sp and dp point at the current row
		c.Label(groupLoop)
		c.Load(c.Param("rows"), rows)
		c.Label(rowLoop)
		c.XORQ(off, off)
		c.Label(chunkLoop)
		body := func(chunk int) {
			rowMem, ilvMem := g.chunkAddrs(k, z, off)
			if !k.Unzip {
				g.lower(progs[chunk], rowMem, ilvMem)
			} else {
				g.lower(progs[chunk], ilvMem, rowMem)
			}
		}
		body(chunk)

		c.CMPQ(off, limit)
		c.JEQ(operand.LabelRef(rowDone))
		c.ADDQ(chunkImm(chunk), off)
		c.CMPQ(off, limit)
		c.JLE(operand.LabelRef(chunkLoop))
		c.MOVQ(limit, off) // the last chunk ends at the row's end
		c.JMP(operand.LabelRef(chunkLoop))

		c.Label(rowDone)
		g.end(loops{[2]reg.GPVirtual{z.sp, z.dp}, z.strides, rows, z.groups, rowLoop, groupLoop, z.steps}, k.Streaming)
		g.hoisted = nil
	}
}

// hoist loads the vector constants of a program (shuffle masks, blend
// masks, dword permute indices) into the top registers, before the loops
// that run it, as many as fit beside its values, the most used first;
// lower takes the others from memory where they are used. A 32-byte
// chunk of unzip3x1AVX2 loads 9 masks beside its 6 pieces of data: on a
// Zen 5, NHWC to NCHW of 1x224x224x3 bytes moved at 0.48 of copy() with
// the masks loaded where used, 0.67 hoisted.
func (g *Generator) hoist(p *vec.Prog) {
	g.hoisted = map[string]reg.VecPhysical{}
	uses := map[string]int{}
	var keys []string
	for _, in := range p.Instrs {
		if key, ok := avx2Const(in); ok {
			if uses[key] == 0 {
				keys = append(keys, key)
			}
			uses[key]++
		}
	}
	slices.SortStableFunc(keys, func(a, b string) int { return uses[b] - uses[a] })
	free := vectorRegs - p.MaxLive(scratch)
	for i, key := range keys[:max(0, min(free, len(keys)))] {
		r := ymm[vectorRegs-1-i]
		if len(key) == vec.LaneBytes {
			g.c.VMOVDQU(g.constant([]byte(key)), r.AsX())
		} else {
			g.loadYMM([]byte(key), r)
		}
		g.hoisted[key] = r
	}
}

// loadYMM loads constant b, 32 bytes, into r: a 16-byte constant
// broadcast to both lanes where the lanes are the same, so that the
// read-only data every user's binary carries holds them once (4 KB of
// AVX2's constants were such pairs).
func (g *Generator) loadYMM(b []byte, r operand.Op) {
	if bytes.Equal(b[:vec.LaneBytes], b[vec.LaneBytes:]) {
		g.c.VBROADCASTI128(g.constant(b[:vec.LaneBytes]), r)
		return
	}
	g.c.VMOVDQU(g.constant(b), r)
}

// avx2Const is the vector constant an instruction's lowering reads, if
// any: a VPSHUFB mask, a VPBLENDVB mask or a VPERMD index, the AVX-512
// lowering's constants cut to a 32-byte register.
func avx2Const(ins vec.Instr) (string, bool) {
	switch {
	case ins.Op == vec.Shuffle:
		return string(maskBytes(ins.Mask)), true
	case ins.Op == vec.Permute2 && vec.IsBlend(ins.Idx) && ins.Grain < 4:
		return string(blendMask(ins.Grain, ins.Idx)[:2*vec.LaneBytes]), true
	case ins.Op == vec.Permute2 && !vec.IsBlend(ins.Idx):
		return string(indexBytes(ins.Grain, keepByIndex(ins))[:2*vec.LaneBytes]), true
	}
	return "", false
}

// lower emits a verified program. in and out map a program's input and
// output streams to memory operands. Vector registers are assigned by
// vec's linear scan, which needs no more registers than values are live at
// once; avo's allocator, a greedy graph colourer, may reach for the
// AVX-512-only registers instead.
func (g *Generator) lower(p *vec.Prog, in, out func(stream, off int) operand.Mem) {
	c := g.c
	alloc := p.Allocate(vec.Alloc{Regs: vectorRegs - len(g.hoisted), Temps: scratch})
	phys := func(r int) reg.VecPhysical {
		if p.Width == 32 {
			return ymm[r]
		}
		return ymm[r].AsX().(reg.VecPhysical)
	}
	val := func(v int) reg.VecPhysical { return phys(alloc.Of[v]) }
	// konst is an instruction's constant: its register if hoisted, else
	// its place in memory; inReg loads such a place into tmp.
	konst := func(ins vec.Instr) operand.Op {
		key, _ := avx2Const(ins)
		if r, ok := g.hoisted[key]; ok {
			return phys(int(r.PhysicalIndex()))
		}
		return g.constant([]byte(key))
	}
	inReg := func(op operand.Op, tmp reg.VecPhysical) operand.Op {
		if m, ok := op.(operand.Mem); ok {
			c.VMOVDQU(m, tmp)
			return tmp
		}
		return op
	}
	for i, ins := range p.Instrs {
		var tmp []reg.VecPhysical
		for _, r := range alloc.Scratch[i] {
			tmp = append(tmp, phys(r))
		}
		var dst reg.VecPhysical
		if ins.Op != vec.Store {
			dst = val(ins.Dst)
		}
		switch ins.Op {
		case vec.Load:
			m := in(ins.Mem.Stream, ins.Mem.Off)
			switch ins.Size {
			case 32:
				c.VMOVDQU(m, dst)
			case 16: // VEX zeroes the high lane, as Load says
				c.VMOVDQU(m, dst.AsX())
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
			g.unpack(ins, val(ins.B), val(ins.A), dst)
		case vec.Deinterleave:
			g.deinterleave(ins.Grain, ins.High, val(ins.A), val(ins.B), dst, tmp)
		case vec.Lanes:
			c.VPERM2I128(operand.Imm(uint64(ins.Sel[0]|ins.Sel[1]<<4)), val(ins.B), val(ins.A), dst)
		case vec.Shuffle:
			c.VPSHUFB(konst(ins), val(ins.A), dst)
		case vec.Or:
			c.VPOR(val(ins.B), val(ins.A), dst)
		case vec.Permute2: // blends (vec's blendShuffles, Tiled, Rotate*) and one-table dword permutes (Rotate*)
			switch {
			case vec.IsBlend(ins.Idx) && ins.Grain < 4:
				c.VPBLENDVB(inReg(konst(ins), tmp[0]), val(ins.B), val(ins.A), dst)
				continue
			case ins.Grain != 4 || !vec.IsBlend(ins.Idx) && ins.A != ins.B:
				panic(fmt.Sprintf("amd64: AVX2 has no permute of %d-byte grains %v", ins.Grain, ins.Idx))
			case !vec.IsBlend(ins.Idx):
				c.VPERMD(val(ins.A), inReg(konst(ins), tmp[0]), dst)
				continue
			}
			imm := 0
			for k, i := range ins.Idx {
				if i >= 0 && i != k {
					imm |= 1 << k
				}
			}
			c.VPBLENDD(operand.Imm(uint64(imm)), val(ins.B), val(ins.A), dst)
		case vec.Quads:
			imm := 0
			for k, i := range ins.Idx {
				imm |= i << (2 * k)
			}
			c.VPERMQ(operand.Imm(uint64(imm)), val(ins.A), dst)
		}
	}
}

// unpack emits an Interleave of b into a (high or low halves of each
// lane, at its grain) into dst: VPUNPCKL/H of bytes to quadwords.
func (g *Generator) unpack(ins vec.Instr, b, a, dst reg.Register) {
	c := g.c
	op := map[[2]int]func(...operand.Op){
		{1, 0}: c.VPUNPCKLBW, {1, 1}: c.VPUNPCKHBW, {2, 0}: c.VPUNPCKLWD, {2, 1}: c.VPUNPCKHWD,
		{4, 0}: c.VPUNPCKLDQ, {4, 1}: c.VPUNPCKHDQ, {8, 0}: c.VPUNPCKLQDQ, {8, 1}: c.VPUNPCKHQDQ,
	}[[2]int{ins.Grain, b2i(ins.High)}]
	op(b, a, dst)
}

// ymm lists the registers AVX2 code may use.
var ymm = []reg.VecPhysical{
	reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7,
	reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12, reg.Y13, reg.Y14, reg.Y15,
}

// vecReg is a vector register, physical or virtual.
type vecReg interface {
	reg.Register
	AsX() reg.Register
}

// store writes part `part` (size bytes) of a register of width bytes;
// pieces under 16 bytes come from the low lane (vec's storeRange moves the
// high one down first).
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
	case size == 8 && part == 1:
		c.VMOVHPS(v.AsX(), m)
	case size == 4 && part == 0:
		c.VMOVD(v.AsX(), m)
	case size == 4 && part < 4:
		c.VPEXTRD(operand.Imm(uint64(part)), v.AsX(), m)
	default:
		panic(fmt.Sprintf("amd64: no store of part %d of %d bytes from a %d-byte register", part, size, width))
	}
}

// deinterleave keeps the even (or odd) grains of each lane of a, then of b.
// Bytes and words go through a saturating pack of the masked or shifted
// wider grains, in the two scratch registers tmp; dwords and qwords have
// direct shuffles.
func (g *Generator) deinterleave(grain int, odd bool, a, b, dst reg.VecPhysical, tmp []reg.VecPhysical) {
	c := g.c
	switch grain {
	case 1, 2:
		ta, tb := tmp[0], tmp[1]
		if odd {
			shift := c.VPSRLW
			if grain == 2 {
				shift = c.VPSRLD
			}
			shift(operand.Imm(uint64(8*grain)), a, ta)
			shift(operand.Imm(uint64(8*grain)), b, tb)
		} else {
			lowHalf := g.constant(lowHalves(grain))
			c.VPAND(lowHalf, a, ta)
			c.VPAND(lowHalf, b, tb)
		}
		if grain == 1 {
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

// lowHalves is 32 bytes of grains of 2*grain bytes whose low half is all ones.
func lowHalves(grain int) []byte {
	out := make([]byte, 32)
	for i := range out {
		if i%(2*grain) < grain {
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

// moveN writes the kernel for 16-byte elements and any block size: each
// element moves whole, two at a time where the row allows.
func (g *Generator) moveN(k table.Kernel) {
	c := g.c
	g.function(k)
	if !k.Unzip {
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
	if !k.Unzip {
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
	if !k.Unzip {
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

	g.end(loops{[2]reg.GPVirtual{rowS, rowD}, [2]operand.Op{param(c, "spaceStride"), param(c, "depthStride")}, rows, groups, rowLoop, groupLoop, next}, false)
}

// copyRuns writes the AVX2 run copier: runs of 32 bytes and more move 32
// bytes at a time, the last piece ending at the run's end; shorter runs are
// two overlapping 16-byte moves. (Runs of 32 to 63 bytes as two
// overlapping 32-byte moves, as AVX-512's copier has them, measured 0.40 of
// copy() against 0.53 on runs of exactly 32 bytes, which move twice.)
func (g *Generator) copyRuns(k table.Kernel) {
	c := g.c
	var doc []string
	if k.Streaming {
		doc = append(doc, "It writes with non-temporal stores: e must be a multiple of 32 and every dst address 32-byte aligned.")
	}
	g.stream = k.Streaming
	defer func() { g.stream = false }()
	g.copyRunPaths(k, doc, 32, 32, func(from, to operand.Mem) {
		y := c.YMM()
		c.VMOVDQU(from, y)
		g.store(32, y, 0, 32, to)
	})
}
