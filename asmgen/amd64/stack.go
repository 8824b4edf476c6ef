package amd64

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/internal/stack"
)

// stackOps are the instructions of a stacked-row kernel's permute unit:
// the two-table permute, with merge masking, and the move of each unit's
// top bit to a mask.
type stackOps struct {
	permute func(table2, table1 operand.Op, k reg.Register, index operand.Op)
	topBits func(v operand.Op, k reg.Register)
}

func (g *Generator) stackOps(unit int) stackOps {
	c := g.c
	switch unit {
	case 1:
		return stackOps{func(t2, t1 operand.Op, k reg.Register, i operand.Op) { c.VPERMI2B(t2, t1, k, i) }, func(v operand.Op, k reg.Register) { c.VPMOVB2M(v, k) }}
	case 2:
		return stackOps{func(t2, t1 operand.Op, k reg.Register, i operand.Op) { c.VPERMI2W(t2, t1, k, i) }, func(v operand.Op, k reg.Register) { c.VPMOVW2M(v, k) }}
	case 4:
		return stackOps{func(t2, t1 operand.Op, k reg.Register, i operand.Op) { c.VPERMI2D(t2, t1, k, i) }, func(v operand.Op, k reg.Register) { c.VPMOVD2M(v, k) }}
	}
	panic(fmt.Sprintf("amd64: no stacked-row permute of %d-byte units", unit))
}

// stackRows writes stacked-row kernel k (table.StackSig; internal/stack
// plans its calls and lays out its table). Per unit it loads four
// registers with masks (zeroing, so that masked-off bytes never fault),
// writes each of four more with two merge-masked two-table permutes (the
// index's top bits choose the pair: first the second pair's units, then,
// under the complement, the first's), and stores them with masks.
//
// The four index vectors and five masks stay in registers for the whole
// call: Z8-Z11, K1 (the depth side) and K2-K5 (the space side's
// registers); K6 and K7 hold each permute pair's units.
func (g *Generator) stackRows(k table.Kernel) {
	c := g.c
	zip := k.Kind == table.StackZip
	c.Function(k.Name())
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func" + table.StackSig.Params())
	what := "DepthToSpace: four planes' stacked rows into the rows they make"
	if !zip {
		what = "SpaceToDepth: stacked rows into the four planes they come from"
	}
	// Without byte permutes, 1-byte elements move as pairs (internal/stack).
	paired := k.Width == 1 && !k.ISA.BytePermutes()
	how := fmt.Sprintf("two-table permutes of %d-byte units", k.Width)
	ops := g.stackOps(k.Width)
	if paired {
		how = "1-byte elements paired within 16-byte lanes and two-table permutes of the pairs"
		ops = g.stackOps(2)
	}
	c.Doc(fmt.Sprintf("%s runs units of short rows of an NCHW %s, with %s.", k.Name(), what, how))
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
	plane, plane3, groups, step, last, group := c.GP64(), c.GP64(), c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("plane"), plane)
	c.LEAQ(operand.Mem{Base: plane, Index: plane, Scale: 2}, plane3)
	c.Load(c.Param("groups"), groups)
	c.Load(c.Param("step"), step)
	c.Load(c.Param("last"), last)
	c.Load(c.Param("group"), group)
	groupLoop, unitLoop := g.label("group"), g.label("unit")
	c.Label(groupLoop)
	off, units := c.GP64(), c.GP64()
	c.XORQ(off, off)
	c.Load(c.Param("units"), units)
	c.Label(unitLoop)
	at := c.GP64() // min(off, last): the last unit may overlap the one before
	c.MOVQ(off, at)
	c.CMPQ(at, last)
	c.CMOVQGT(last, at)
	d, s := c.GP64(), c.GP64()
	c.LEAQ(operand.Mem{Base: depth, Index: at, Scale: 1}, d)
	c.LEAQ(operand.Mem{Base: space, Index: at, Scale: stack.Planes}, s)
	planeMem := [stack.Planes]operand.Mem{
		{Base: d}, {Base: d, Index: plane, Scale: 1}, {Base: d, Index: plane, Scale: 2}, {Base: d, Index: plane3, Scale: 1},
	}
	spaceMem := func(r int) operand.Mem { return operand.Mem{Base: s, Disp: r * stack.Vector} }
	in := [stack.Planes]reg.VecPhysical{zmm(0), zmm(1), zmm(2), zmm(3)}
	for r, v := range in {
		if zip {
			c.VMOVDQU8_Z(planeMem[r], kDepth, v)
		} else {
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
		} else if !paired {
			c.VMOVDQU8(v, kDepth, planeMem[r])
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
		for r, v := range planes {
			c.VMOVDQU8(v, kDepth, planeMem[r])
		}
	}
	c.ADDQ(step, off)
	c.DECQ(units)
	c.JNZ(operand.LabelRef(unitLoop))
	c.ADDQ(group, space)
	c.ADDQ(group, depth)
	c.DECQ(groups)
	c.JNZ(operand.LabelRef(groupLoop))
	c.VZEROUPPER()
	c.RET()
}
