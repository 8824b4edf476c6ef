package amd64

// The tile kernels of general transposes: vec.Tile in AVX2, vec.Tile512 in
// AVX-512.

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

// tile writes a tile kernel: three loops, over bands, strips and tiles,
// around the proven tile program, its rows addressed from the tile's
// first row and its columns from the tile's first column in dst, each in
// runs of four (rowAddr). The steps stay in their argument slots:
// registers are short with 16 rows and columns. Tiles of more columns
// (AVX-512's of bytes and words) store them last, in order, from a
// pointer that steps four columns at a time.
func (g *Generator) tile(k table.Kernel) error {
	c := g.c
	vl := k.ISA.TwoTable() && k.Width == 1 // AVX2's program in 32 registers
	p, err := vec.Tile(k.Width)
	switch {
	case vl:
		p, err = vec.TileVL()
	case k.ISA.TwoTable():
		p, err = vec.Tile512(k.Width)
	}
	if err != nil {
		return err
	}
	b, chunk := k.TileShape()
	cols := chunk / k.Width
	g.function(k)
	c.Doc(fmt.Sprintf("%s transposes tiles of %d rows of %d bytes of %d-byte words, in each of strips strips.", k.Name(), b, chunk, k.Width))
	s, d := c.GP64(), c.GP64()
	c.Load(c.Param("src"), s)
	c.Load(c.Param("dst"), d)
	side := func(name string, lanes int) rowAddr {
		r := rowAddr{lane: c.GP64(), split: 4}
		c.Load(c.Param(name), r.lane)
		if lanes > 3 {
			r.lane3 = c.GP64()
			c.LEAQ(operand.Mem{Base: r.lane, Index: r.lane, Scale: 2}, r.lane3)
		}
		return r
	}
	src, dst := side("srcRow", b), side("dstRow", cols)
	var idx map[string]reg.VecPhysical // AVX-512's permute indices, in registers
	if k.ISA.TwoTable() && !vl {
		idx = g.hoistIndices(p)
	}
	tiles, strips := c.GP64(), c.GP64()
	bandLoop, stripLoop, tileLoop := g.label("band"), g.label("strip"), g.label("tile")
	c.Label(bandLoop)
	c.Load(c.Param("strips"), strips)
	c.Label(stripLoop)
	c.Load(c.Param("tiles"), tiles)
	c.Label(tileLoop)
	bases := func(r *rowAddr, from reg.GPVirtual, lanes int) {
		r.bases = []reg.GPVirtual{from}
		for len(r.bases)*r.split < lanes { // the next run of four lanes
			next := c.GP64()
			c.LEAQ(operand.Mem{Base: r.bases[len(r.bases)-1], Index: r.lane, Scale: 4}, next)
			r.bases = append(r.bases, next)
		}
	}
	in := func(x, off int) operand.Mem { return src.mem(x, off) } // src's bases as they are when it loads
	out := func(x, off int) operand.Mem { return dst.mem(x, off) }
	if b <= 16 {
		bases(&src, s, b)
	} else { // the rows of each half from a pointer of its own, stepping
		half := g.stepping(k, src, s, b/2)
		in = half
	}
	if cols <= 16 {
		bases(&dst, d, cols)
	} else {
		out = g.stepping(k, dst, d, cols)
	}
	if b > 16 || cols > 16 {
		p = p.Grouped() // loads and stores in stream order, as stepping needs
	}
	switch {
	case vl:
		g.lowerVL(p, in, out)
	case k.ISA.TwoTable():
		g.lower512(p, in, out, idx, nil)
	default:
		g.lower(p, in, out)
	}
	step := func(srcStep, dstStep string) {
		c.ADDQ(param(c, srcStep), s)
		c.ADDQ(param(c, dstStep), d)
	}
	step("srcTile", "dstTile")
	c.DECQ(tiles)
	c.JNZ(operand.LabelRef(tileLoop))
	step("srcSkip", "dstSkip")
	c.DECQ(strips)
	c.JNZ(operand.LabelRef(stripLoop))
	step("srcBandSkip", "dstBandSkip")
	c.DECQ(param(c, "bands"))
	c.JNZ(operand.LabelRef(bandLoop))
	c.VZEROUPPER()
	c.RET()
	return nil
}

// stepping addresses the lanes of r (rows or columns) from pointers that
// step four lanes at a time, one for each span of run lanes from base
// on: where a tile has more lanes than rowAddr's bases can take in
// registers. Its lanes must be asked for in order within each span.
func (g *Generator) stepping(k table.Kernel, r rowAddr, base reg.GPVirtual, run int) func(x, off int) operand.Mem {
	c := g.c
	var ptrs []reg.GPVirtual
	var at []int // the lane each pointer points at, within its span
	return func(x, off int) operand.Mem {
		span := x / run
		for len(ptrs) <= span { // a span's pointer, made where it is first used
			p := c.GP64()
			c.MOVQ(base, p)
			for range len(ptrs) * run / r.split {
				c.LEAQ(operand.Mem{Base: p, Index: r.lane, Scale: 4}, p)
			}
			ptrs, at = append(ptrs, p), append(at, 0)
		}
		x -= span * run
		if x < at[span] {
			panic(fmt.Sprintf("amd64: %s reaches lane %d of a span after lane %d", k.Name(), x, at[span]))
		}
		for x >= at[span]+r.split { // the next four lanes
			c.LEAQ(operand.Mem{Base: ptrs[span], Index: r.lane, Scale: 4}, ptrs[span])
			at[span] += r.split
		}
		q := r
		q.bases = ptrs[span : span+1]
		return q.mem(x-at[span], off)
	}
}

// lowerVL emits a program of 32-byte loads of row pairs, unpacks and
// whole-register stores (vec.TileVL) in all 32 of AVX-512's registers, at
// 32 bytes (AVX-512 VL): EVEX forms where a register is beyond 15.
func (g *Generator) lowerVL(p *vec.Prog, in, out func(stream, off int) operand.Mem) {
	c := g.c
	alloc := p.Allocate(vec.Alloc{Regs: zmmRegs})
	val := func(v int) reg.VecPhysical { return zmm(alloc.Of[v]).AsY().(reg.VecPhysical) }
	for _, ins := range p.Instrs {
		switch ins.Op {
		case vec.LoadPair:
			dst := val(ins.Dst)
			c.VMOVDQU64(in(ins.Mem.Stream, ins.Mem.Off), dst.AsX())
			c.VINSERTI32X4(operand.Imm(1), in(ins.Mem2.Stream, ins.Mem2.Off), dst, dst)
		case vec.Interleave:
			g.unpack(ins, val(ins.B), val(ins.A), val(ins.Dst))
		case vec.Store:
			if ins.Part != 0 || ins.Size != 2*vec.LaneBytes {
				panic(fmt.Sprintf("amd64: no VL store of part %d of %d bytes", ins.Part, ins.Size))
			}
			c.VMOVDQU64(val(ins.A), out(ins.Mem.Stream, ins.Mem.Off))
		default:
			panic(fmt.Sprintf("amd64: no VL lowering of op %d", ins.Op))
		}
	}
}
