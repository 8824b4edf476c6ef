package amd64

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
	"github.com/blockshuffle/blockshuffle/internal/stack"
)

func init() {
	lowerings[table.Bundles] = func(g *Generator, k table.Kernel) (int, error) {
		return 0, g.bundleRows(k)
	}
}

// bundleRows writes bundle kernel k (table.Bundles.Signature; internal/stack's Bundles
// plans its calls): per bundle, the zip2 (unzip2) lane kernel's program of
// one chunk for each of the bundle's two space rows, block row i taking
// planes 2*i and 2*i+1. A branch on the row length picks the smallest
// chunk of stack.BundleChunks that holds the row, so that each row is one
// program with no tail; rows longer than the largest chunk loop over
// chunks of it, the last one running past the row's end as well. That
// slop lands in the next bundle's rows, on both sides, which rewrites it
// later; the last bundle of each group of a SpaceToDepth, whose slop would
// land in the group's next plane, written before, and the last bundle of a
// DepthToSpace call move exactly instead, so the kernel touches only its
// groups' bytes.
func (g *Generator) bundleRows(k table.Kernel) error {
	c := g.c
	what := "DepthToSpace: four planes' rows into the two rows they make"
	if k.Unzip {
		what = "SpaceToDepth: two rows into the four planes' rows they come from"
	}
	progs, err := Programs(table.Kernel{ISA: k.ISA, Family: table.Lanes, Unzip: k.Unzip, B: 2, Width: k.Width})
	if err != nil {
		return err
	}
	if k.Unzip && k.Width <= 2 {
		// One register of twice the chunk: one or two shuffles where the
		// deinterleaves take up to four, which bound the bundle on a Zen 5.
		for _, chunk := range []int{8, 16} {
			if progs[chunk], err = vec.WideUnzip2(k.Width, chunk); err != nil {
				return err
			}
		}
	}
	var chunks []int
	for _, n := range stack.BundleChunks {
		if progs[n] == nil {
			if n >= k.Width {
				return fmt.Errorf("%s: no program of %d-byte chunks", k.Name(), n)
			}
			continue
		}
		chunks = append(chunks, n)
	}
	g.function(k)
	c.Doc(fmt.Sprintf("%s runs bundles of one row of each of four planes of an NCHW %s, %d-byte elements, each row in whole chunks, past its end, but the last bundle of each group exactly.", k.Name(), what, k.Width))
	// The group stride stays in memory: it is read once per group, and
	// the exact bundle needs the registers.
	space, depth, n, plane, plane3, groups := c.GP64(), c.GP64(), c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("space"), space)
	c.Load(c.Param("depth"), depth)
	c.Load(c.Param("n"), n)
	c.Load(c.Param("plane"), plane)
	c.LEAQ(operand.Mem{Base: plane, Index: plane, Scale: 2}, plane3)
	c.Load(c.Param("groups"), groups)
	// A path per chunk, for the rows that fit it and not the one
	// before; then one looping over the largest chunk, for longer rows.
	// A group's last bundle moves exactly, in chunks of half the size (the
	// smallest path's rows are exactly one chunk; the loop's are longer
	// than the largest), the last chunk ending at the row's end.
	type path struct {
		label        string
		chunk, exact int
		loop, pairs  bool
	}
	var paths []path
	for i, chunk := range chunks {
		exact := chunk / 2
		if i == 0 {
			exact = chunk
		}
		shorter := 0
		if i > 0 {
			shorter = chunks[i-1]
		}
		paths = append(paths, path{g.label("rowchunk"), chunk, exact, false, pairs(k, chunk, shorter)})
		c.CMPQ(n, operand.Imm(uint64(chunk)))
		c.JLE(operand.LabelRef(paths[i].label))
	}
	last := chunks[len(chunks)-1]
	paths = append(paths, path{g.label("rowchunks"), last, last, true, false})
	for i := len(paths) - 1; i >= 0; i-- { // the longest rows' path first: the compares fall through to it
		chunk, exact, loop := paths[i].chunk, paths[i].exact, paths[i].loop
		c.Label(paths[i].label)
		limit := c.GP64()
		c.MOVQ(n, limit)
		c.SUBQ(operand.Imm(uint64(exact)), limit)
		var tab reg.GPVirtual
		if paths[i].pairs {
			tab = c.GP64()
			g.pairEntryOf(k, n, tab)
		}
		groupLoop, bundleLoop, lastBundle := g.label("group"), g.label("bundle"), g.label("lastbundle")
		c.Label(groupLoop)
		d, s, bundles := c.GP64(), c.GP64(), c.GP64()
		c.MOVQ(depth, d)
		c.MOVQ(space, s)
		c.Load(c.Param("bundles"), bundles)
		zip, nextGroup := !k.Unzip, g.label("nextgroup")
		if zip {
			// The space sides of consecutive groups are contiguous, so
			// a DepthToSpace group's last bundle may write its slop into
			// the next group, which rewrites it: only the call's last
			// bundle moves exactly.
			c.CMPQ(groups, operand.Imm(1))
			c.JNE(operand.LabelRef(bundleLoop))
		}
		c.DECQ(bundles)
		c.JZ(operand.LabelRef(lastBundle))
		if paths[i].pairs {
			g.bundlePairs(d, s, n, plane, plane3, bundles, tab)
			c.TESTQ(bundles, bundles)
			c.JZ(operand.LabelRef(lastBundle))
		}
		c.Label(bundleLoop)
		for row := range 2 {
			// A DepthToSpace writes each chunk's slop into the next
			// chunk and row 0's into row 1: so chunk by chunk, row
			// by row, each rewriting the slop before it.
			if !loop {
				g.bundleChunk(k, progs[chunk], row, d, s, n, plane, plane3, nil)
				continue
			}
			off, chunkLoop := c.GP64(), g.label("chunk")
			c.XORQ(off, off)
			c.Label(chunkLoop)
			g.bundleChunk(k, progs[chunk], row, d, s, n, plane, plane3, off)
			c.ADDQ(operand.Imm(uint64(chunk)), off)
			c.CMPQ(off, n)
			c.JLT(operand.LabelRef(chunkLoop))
		}
		c.ADDQ(n, d)
		c.LEAQ(operand.Mem{Base: s, Index: n, Scale: 4}, s)
		c.DECQ(bundles)
		c.JNZ(operand.LabelRef(bundleLoop))
		if zip {
			c.CMPQ(groups, operand.Imm(1))
			c.JNE(operand.LabelRef(nextGroup))
		}
		c.Label(lastBundle)
		for row := range 2 {
			if loop {
				g.exactRow(k, progs[exact], exact, row, d, s, n, plane, plane3, limit)
				continue
			}
			// The path's rows take one exact chunk (the smallest path)
			// or two, the second at limit, which may overlap the first:
			// no loop and its branches, once per group (YOLO's CRD
			// SpaceToDepth: 64 groups, 1.5% faster).
			g.bundleChunk(k, progs[exact], row, d, s, n, plane, plane3, nil)
			if i > 0 {
				g.bundleChunk(k, progs[exact], row, d, s, n, plane, plane3, limit)
			}
		}
		c.Label(nextGroup)
		c.ADDQ(param(c, "group"), space)
		c.ADDQ(param(c, "group"), depth)
		c.DECQ(groups)
		c.JNZ(operand.LabelRef(groupLoop))
		c.VZEROUPPER()
		c.RET()
	}
	return nil
}

// exactRow moves space row i of the bundle at d and s exactly, as the lane
// kernels move rows: chunks of chunk bytes from the row's start, the last
// one at limit (n - chunk), overlapping the one before it.
func (g *Generator) exactRow(k table.Kernel, p *vec.Prog, chunk, i int, d, s, n, plane, plane3, limit reg.GPVirtual) {
	c := g.c
	off, again, done := c.GP64(), g.label("exact"), g.label("exactdone")
	c.XORQ(off, off)
	c.Label(again)
	g.bundleChunk(k, p, i, d, s, n, plane, plane3, off)
	c.CMPQ(off, limit)
	c.JEQ(operand.LabelRef(done))
	c.ADDQ(operand.Imm(uint64(chunk)), off)
	c.CMPQ(off, limit)
	c.JLE(operand.LabelRef(again))
	c.MOVQ(limit, off)
	c.JMP(operand.LabelRef(again))
	c.Label(done)
}

// bundleChunk lowers one chunk of space row i of the bundle at d (depth) and
// s (space), off bytes into the row (nil: at its start).
func (g *Generator) bundleChunk(k table.Kernel, p *vec.Prog, i int, d, s, n, plane, plane3 reg.GPVirtual, off reg.Register) {
	c := g.c
	if off != nil {
		dd, ss := c.GP64(), c.GP64()
		c.LEAQ(operand.Mem{Base: d, Index: off, Scale: 1}, dd)
		c.LEAQ(operand.Mem{Base: s, Index: off, Scale: 2}, ss)
		d, s = dd, ss
	}
	planes := planeMems(d, plane, plane3)
	row := [2]operand.Mem{{Base: s}, {Base: s, Index: n, Scale: 2}}[i]
	lanes := func(j, o int) operand.Mem { m := planes[2*i+j]; m.Disp = o; return m }
	ilv := func(_, o int) operand.Mem { m := row; m.Disp = o; return m }
	if !k.Unzip {
		g.lower(p, lanes, ilv)
	} else {
		g.lower(p, ilv, lanes)
	}
}
