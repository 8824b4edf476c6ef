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
	p, err := vec.Tile(k.Width)
	if k.ISA.TwoTable() {
		p, err = vec.Tile512(k.Width, k.ISA.BytePermutes())
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
	if k.ISA.TwoTable() {
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
	bases(&src, s, b)
	out := func(x, off int) operand.Mem { return dst.mem(x, off) } // dst's bases as they are when it stores
	if cols <= 16 {
		bases(&dst, d, cols)
	} else {
		p = p.Grouped()
		dst.bases = []reg.GPVirtual{c.GP64()}
		c.MOVQ(d, dst.bases[0])
		at := 0 // the column dst.bases[0] points at
		out = func(x, off int) operand.Mem {
			if x < at {
				panic(fmt.Sprintf("amd64: %s stores column %d after column %d", k.Name(), x, at))
			}
			for x >= at+dst.split { // the next four columns
				c.LEAQ(operand.Mem{Base: dst.bases[0], Index: dst.lane, Scale: 4}, dst.bases[0])
				at += dst.split
			}
			return dst.mem(x-at, off)
		}
	}
	if k.ISA.TwoTable() {
		g.lower512(p, src.mem, out, idx, nil) // src's bases are set
	} else {
		g.lower(p, src.mem, out)
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
