package amd64

import (
	"bytes"
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/internal/stack"
)

// stackOps are the instructions of a stacked-row kernel's permute grain:
// the two-table permute, with merge masking, and the move of each grain's
// top bit to a mask.
type stackOps struct {
	permute func(table2, table1 operand.Op, k reg.Register, index operand.Op)
	topBits func(v operand.Op, k reg.Register)
}

func (g *Generator) stackOps(stack int) stackOps {
	c := g.c
	switch stack {
	case 1:
		return stackOps{func(t2, t1 operand.Op, k reg.Register, i operand.Op) { c.VPERMI2B(t2, t1, k, i) }, func(v operand.Op, k reg.Register) { c.VPMOVB2M(v, k) }}
	case 2:
		return stackOps{func(t2, t1 operand.Op, k reg.Register, i operand.Op) { c.VPERMI2W(t2, t1, k, i) }, func(v operand.Op, k reg.Register) { c.VPMOVW2M(v, k) }}
	case 4:
		return stackOps{func(t2, t1 operand.Op, k reg.Register, i operand.Op) { c.VPERMI2D(t2, t1, k, i) }, func(v operand.Op, k reg.Register) { c.VPMOVD2M(v, k) }}
	}
	panic(fmt.Sprintf("amd64: no stacked-row permute of %d-byte stacks", stack))
}

func init() {
	lowerings[table.Stacks] = func(g *Generator, k table.Kernel) (int, error) {
		g.stackRows(k)
		return 0, nil
	}
}

// stackRows writes stacked-row kernel k (table.Stacks; internal/stack
// plans its calls and lays out its table). Per stack it loads four
// registers with masks (zeroing, so that masked-off bytes never fault),
// writes each of four more with two merge-masked two-table permutes (the
// index's top bits choose the pair: first the second pair's grains, then,
// under the complement, the first's), and stores them with masks. On the
// depth side a stack that reaches past its segment's end moves each
// register in two masked parts, the second from the next segment.
//
// The four index vectors and five masks stay in registers for the whole
// call: Z8-Z11, K1 (the depth side) and K2-K5 (the space side's
// registers); K6 and K7 hold each permute pair's grains, and the two parts
// of a stack that crosses segments.
func (g *Generator) stackRows(k table.Kernel) {
	c := g.c
	zip := !k.Unzip
	g.function(k)
	what := "DepthToSpace: four planes' stacked rows into the rows they make"
	if !zip {
		what = "SpaceToDepth: stacked rows into the four planes they come from"
	}
	// Without byte permutes, 1-byte elements move as pairs (internal/stack).
	paired := k.Width == 1 && !k.ISA.BytePermutes()
	how := fmt.Sprintf("two-table permutes of %d-byte grains", k.Width)
	ops := g.stackOps(k.Width)
	if paired {
		how = "1-byte elements paired within 16-byte lanes and two-table permutes of the pairs"
		ops = g.stackOps(2)
	}
	c.Doc(fmt.Sprintf("%s runs stacks of short rows of an NCHW %s, with %s.", k.Name(), what, how))
	space, depth, tab := c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("space"), space)
	c.Load(c.Param("depth"), depth)
	c.Load(c.Param("tab"), tab)
	idx := [stack.Planes]reg.VecPhysical{}
	for r := range idx {
		idx[r] = zmm(8 + r)
		c.VMOVDQU64(operand.Mem{Base: tab, Disp: r * stack.Vector}, idx[r])
	}
	evenOdd := zmm(16)
	if paired && !zip {
		pattern := make([]byte, 16)
		for k := range 8 {
			pattern[k], pattern[8+k] = byte(2*k), byte(2*k+1)
		}
		c.VBROADCASTI32X4(g.constant(pattern), evenOdd)
	}
	kDepth := reg.K1
	kSpace := [stack.Planes]reg.Register{reg.K2, reg.K3, reg.K4, reg.K5}
	c.KMOVQ(operand.Mem{Base: tab, Disp: stack.MaskDepth}, kDepth)
	for r, m := range kSpace {
		c.KMOVQ(operand.Mem{Base: tab, Disp: stack.MaskSpace + 8*r}, m)
	}
	// Every count and stride stays in a register: reading the arguments
	// from the stack in the loop made the loop's loads wait on its
	// stores wherever the output lay a multiple of 4 KiB from the stack
	// (28 instead of 44 GB/s on a Zen 5, depending on the binary).
	// (lastDepth, read once, is the exception.)
	plane, plane3, step, last, stacks := c.GP64(), c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("plane"), plane)
	c.LEAQ(operand.Mem{Base: plane, Index: plane, Scale: 2}, plane3)
	c.Load(c.Param("step"), step)
	c.Load(c.Param("last"), last)
	c.Load(c.Param("stacks"), stacks)
	// off runs along the rows, at on the depth side, seg within the segment.
	off, at, seg := c.GP64(), c.GP64(), c.GP64()
	c.XORQ(off, off)
	c.XORQ(at, at)
	c.XORQ(seg, seg)
	u := stackAt{depth, plane, plane3, step, last, off, at, seg}
	stackLoop := g.label("stack")
	c.Label(stackLoop)
	s := c.GP64() // space + 4*min(off, last): the last stack may overlap the one before
	c.MOVQ(off, s)
	c.CMPQ(s, last)
	c.CMOVQGT(last, s)
	c.LEAQ(operand.Mem{Base: space, Index: s, Scale: stack.Planes}, s)
	spaceMem := func(r int) operand.Mem { return operand.Mem{Base: s, Disp: r * stack.Vector} }
	in := [stack.Planes]reg.VecPhysical{zmm(0), zmm(1), zmm(2), zmm(3)}
	if zip {
		g.stackDepthSide(u, func(d reg.Register, k reg.Register, part int) {
			for r, v := range in {
				switch part {
				case 0:
					c.VMOVDQU8_Z(u.plane(d, r), k, v)
				default: // the second part merges into what the first loaded
					c.VMOVDQU8(u.plane(d, r), k, v)
				}
			}
		})
	} else {
		for r, v := range in {
			c.VMOVDQU8_Z(spaceMem(r), kSpace[r], v)
		}
	}
	if paired && zip { // lo_i and hi_i: planes (i, 0) and (i, 1) interleaved by lane
		pairs := [stack.Planes]reg.VecPhysical{zmm(12), zmm(13), zmm(14), zmm(15)}
		for i := 0; i < stack.Planes; i += 2 {
			c.VPUNPCKLBW(in[i+1], in[i], pairs[i])
			c.VPUNPCKHBW(in[i+1], in[i], pairs[i+1])
		}
		in = pairs
	}
	out := [stack.Planes]reg.VecPhysical{zmm(4), zmm(5), zmm(6), zmm(7)}
	for r, v := range out {
		c.VMOVDQA64(idx[r], v)
		ops.topBits(idx[r], reg.K6)
		c.KNOTQ(reg.K6, reg.K7)
		ops.permute(in[3], in[2], reg.K6, v)
		ops.permute(in[1], in[0], reg.K7, v)
		if zip {
			c.VMOVDQU8(v, kSpace[r], spaceMem(r))
		}
	}
	if paired && !zip { // registers 2i and 2i+1 hold the pairs of planes (i, 0) and (i, 1)
		for _, v := range out {
			c.VPSHUFB(evenOdd, v, v) // each lane's even bytes, then its odd ones
		}
		planes := [stack.Planes]reg.VecPhysical{zmm(12), zmm(13), zmm(14), zmm(15)}
		for i := 0; i < stack.Planes; i += 2 {
			c.VPUNPCKLQDQ(out[i+1], out[i], planes[i])
			c.VPUNPCKHQDQ(out[i+1], out[i], planes[i+1])
		}
		out = planes
	}
	if !zip {
		g.stackDepthSide(u, func(d reg.Register, k reg.Register, _ int) {
			for r, v := range out {
				c.VMOVDQU8(v, k, u.plane(d, r))
			}
		})
	}
	// The next stack: one segment on, past the other planes', where this
	// one reached the end of its segment.
	c.ADDQ(step, off)
	c.ADDQ(step, at)
	c.ADDQ(step, seg)
	same := g.label("same")
	c.CMPQ(seg, plane)
	c.JB(operand.LabelRef(same))
	c.SUBQ(plane, seg)
	c.ADDQ(plane3, at)
	c.Label(same)
	c.DECQ(stacks)
	c.JNZ(operand.LabelRef(stackLoop))
	c.VZEROUPPER()
	c.RET()
}

// stackAt is the registers that place a stack on the depth side.
type stackAt struct {
	depth, planeBytes, plane3, step, last reg.Register
	off, at, seg                          reg.Register
}

// plane is the address of plane r of a stack whose first plane is at d.
func (u stackAt) plane(d reg.Register, r int) operand.Mem {
	return planeMems(d, u.planeBytes, u.plane3)[r]
}

// planeMems are the addresses of the four planes (i, j) of block size 2
// whose first is at d, plane bytes apart (plane3 = 3*plane): the stacked
// rows' and the bundles' depth side.
func planeMems(d, plane, plane3 reg.Register) [stack.Planes]operand.Mem {
	return [stack.Planes]operand.Mem{
		{Base: d}, {Base: d, Index: plane, Scale: 1}, {Base: d, Index: plane, Scale: 2}, {Base: d, Index: plane3, Scale: 1},
	}
}

// stackDepthSide writes a stack's loads or stores on the depth side: move
// emits them for the four planes of the stack at d under mask k, part 0 for
// a whole stack or the part of its segment, part 1 for the rest, from the
// next segment. The last stack (off > last) lies at lastDepth, inside its
// segment.
func (g *Generator) stackDepthSide(u stackAt, move func(d, k reg.Register, part int)) {
	c := g.c
	whole, final, split, done := g.label("whole"), g.label("final"), g.label("split"), g.label("moved")
	d, rem := c.GP64(), c.GP64()
	c.CMPQ(u.off, u.last)
	c.JGT(operand.LabelRef(final))
	c.LEAQ(operand.Mem{Base: u.depth, Index: u.at, Scale: 1}, d)
	c.MOVQ(u.planeBytes, rem) // bytes left in the segment
	c.SUBQ(u.seg, rem)
	c.CMPQ(rem, u.step)
	c.JB(operand.LabelRef(split))
	c.Label(whole)
	move(d, reg.K1, 0)
	c.JMP(operand.LabelRef(done))
	c.Label(final)
	c.Load(c.Param("lastDepth"), d)
	c.ADDQ(u.depth, d)
	c.JMP(operand.LabelRef(whole))
	c.Label(split)
	c.BZHIQ(rem, g.constant(bytes.Repeat([]byte{0xff}, 8)), rem) // the rem bytes before the segment's end
	c.KMOVQ(rem, reg.K6)
	c.KANDQ(reg.K1, reg.K6, reg.K6)
	c.KANDNQ(reg.K1, reg.K6, reg.K7) // K1 &^ K6
	move(d, reg.K6, 0)
	c.ADDQ(u.plane3, d) // the next segment, minus the rem bytes
	move(d, reg.K7, 1)
	c.Label(done)
}
