package amd64

// The tile kernels of general transposes (vec.Tile), in AVX2.

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

// tile writes a tile kernel: for each strip, a loop over its tiles runs
// the proven tile program, its rows addressed from the tile's first row
// and its columns from the tile's first column in dst, each in runs of
// four (rowAddr). The steps between tiles stay in their argument slots,
// as does where a strip starts, in those of dst and src: registers are
// short with 16 rows and columns.
func (g *Generator) tile(k table.Kernel) error {
	c := g.c
	p, err := vec.Tile(k.Width)
	if err != nil {
		return err
	}
	b, chunk := vec.TileShape(k.Width)
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
	tiles := c.GP64()
	stripLoop, tileLoop := g.label("strip"), g.label("tile")
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
	bases(&dst, d, cols)
	g.lower(p, src.mem, dst.mem)
	c.ADDQ(param(c, "srcTile"), s)
	c.ADDQ(param(c, "dstTile"), d)
	c.DECQ(tiles)
	c.JNZ(operand.LabelRef(tileLoop))
	for _, arg := range [][2]string{{"src", "srcStrip"}, {"dst", "dstStrip"}} {
		ptr := s
		if arg[0] == "dst" {
			ptr = d
		}
		c.Load(c.Param(arg[0]), ptr)
		c.ADDQ(param(c, arg[1]), ptr)
		c.Store(ptr, c.Param(arg[0]))
	}
	c.DECQ(param(c, "strips"))
	c.JNZ(operand.LabelRef(stripLoop))
	c.VZEROUPPER()
	c.RET()
	return nil
}
