// Package amd64 lowers the kernel table to x86-64 assembly with avo: AVX2
// (avx2.go) and AVX-512 (avx512.go) kernels on the scaffolding they share,
// in this file: the function prologue and parameters, the addresses of a
// chunk's lanes, the row and group loops, the run copiers' loops, and
// read-only constants.
package amd64

import (
	"fmt"
	"slices"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

// Generator accumulates the kernels of one assembly file.
type Generator struct {
	c      *build.Context
	consts map[string]operand.Mem
	labels int
	stream bool // full-register stores are non-temporal
	// hoisted holds the AVX2 constants loaded into registers before the
	// loops of the program being lowered (hoist).
	hoisted map[string]reg.VecPhysical
}

// New starts a file of kernels built under the given build constraint.
func New(constraint string) *Generator {
	c := build.NewContext()
	c.ConstraintExpr(constraint)
	return &Generator{c: c, consts: map[string]operand.Mem{}}
}

// Result returns the file built so far.
func (g *Generator) Result() (*ir.File, error) { return g.c.Result() }

// Kernel adds one kernel of the table and returns the shortest row, in
// bytes, a fixed-b kernel handles (0 for the others).
func (g *Generator) Kernel(k table.Kernel) (minN int, err error) {
	lower := lowerings[k.Family]
	if lower == nil {
		return 0, fmt.Errorf("%s: amd64 has no lowering of the %s family", k.Name(), k.Family.Name)
	}
	return lower(g, k)
}

// lowerings are the functions that lower each family's kernels: those
// of the lane kernels, of 16-byte elements at any b and of the run
// copiers, whose AVX2 and AVX-512 bodies are in avx2.go and avx512.go,
// are here; every other family's registers in its own file.
var lowerings = map[*table.Family]func(g *Generator, k table.Kernel) (minN int, err error){
	table.Lanes: func(g *Generator, k table.Kernel) (int, error) {
		if k.ISA.TwoTable() {
			return g.fixedB512(k)
		}
		progs, err := Programs(k)
		if err != nil {
			return 0, err
		}
		g.fixedB(k, progs)
		return vec.Smallest(progs), nil
	},
	table.AnyB: func(g *Generator, k table.Kernel) (int, error) { g.moveN(k); return 0, nil },
	table.Copiers: func(g *Generator, k table.Kernel) (int, error) {
		if k.ISA.TwoTable() {
			g.copyRuns512(k)
		} else {
			g.copyRuns(k)
		}
		return 0, nil
	},
}

// function begins kernel k's function: a leaf that never grows the stack,
// whose pointer arguments do not escape, with its family's signature.
func (g *Generator) function(k table.Kernel) {
	g.c.Function(k.Name())
	g.c.Attributes(attr.NOSPLIT)
	g.c.Pragma("noescape")
	g.c.SignatureExpr("func" + k.Signature().Params())
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

// zipPrologue starts a fixed-b kernel's function: name, signature and doc,
// with note added to the doc.
func (g *Generator) zipPrologue(k table.Kernel, note string) {
	c := g.c
	g.function(k)
	what := fmt.Sprintf("interleaves %d rows (lanes) of %d-byte elements into one", k.B, k.Width)
	if k.Unzip {
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
	groups    operand.Op // groups left: a register, or its argument slot
	addr      rowAddr
	laneI     reg.GPVirtual // zero value: lanes in one run
	steps     [2]operand.Mem
	strides   [2]operand.Op // spaceStride and depthStride
}

// zipParams loads a fixed-b kernel's arguments. With spill set, n and the
// group count stay in memory, the count in its own argument slot, leaving
// registers to the body.
func (g *Generator) zipParams(k table.Kernel, spill bool) zipRegs {
	c := g.c
	z := zipRegs{sp: c.GP64(), dp: c.GP64()}
	lane := c.GP64()
	c.Load(c.Param("space"), z.sp)
	c.Load(c.Param("depth"), z.dp)
	if spill {
		z.groups = param(c, "groups")
	} else {
		z.n = c.GP64()
		c.Load(c.Param("n"), z.n)
		groups := c.GP64()
		c.Load(c.Param("groups"), groups)
		z.groups = groups
	}
	c.Load(c.Param("lane"), lane)
	z.steps = g.groupSteps()
	z.strides = [2]operand.Op(g.args("spaceStride", "depthStride"))
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
	rowStrides         [2]operand.Op // registers, or the arguments' stack slots
	rows               reg.GPVirtual
	groups             operand.Op // a register or its argument slot
	rowLoop, groupLoop string
	steps              [2]operand.Mem
}

// end closes the loops and returns from the kernel, fencing non-temporal
// stores first.
func (g *Generator) end(l loops, stream bool) {
	c := g.c
	c.ADDQ(l.rowStrides[0], l.ptrs[0])
	c.ADDQ(l.rowStrides[1], l.ptrs[1])
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

// groupSteps are what takes the space and depth pointers from the end of a
// group's last row to the next group's first: the skips the call passes.
func (g *Generator) groupSteps() [2]operand.Mem {
	return [2]operand.Mem{param(g.c, "spaceSkip"), param(g.c, "depthSkip")}
}

func param(c *build.Context, name string) operand.Mem {
	b, err := c.Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
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

// runCopier begins the function of run copier k, of AVX2 or AVX-512: its
// header and documentation (doc adds lines), the parameters it loops with,
// the group and row strides, and last = e, which each path lowers to the
// offset of a run's last piece.
func (g *Generator) runCopier(k table.Kernel, doc ...string) (dst, src, e, groups, last reg.GPVirtual, steps [2]operand.Mem) {
	c := g.c
	g.function(k)
	c.Doc(append([]string{k.Name() + " copies, in each row of each group, w runs of e >= 16 bytes from src + x*srcX to dst + x*dstX."}, doc...)...)
	dst, src, e, groups = c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("e"), e)
	c.Load(c.Param("groups"), groups)
	steps = [2]operand.Mem{param(c, "dstSkip"), param(c, "srcSkip")}
	last = c.GP64()
	c.MOVQ(e, last)
	return dst, src, e, groups, last, steps
}

// copyRunPaths writes the body of a run copier: one loop nest per run
// length class, chosen once per call, and one per exact length of a
// register. Runs of loopMin bytes and more move piece bytes at a time by
// move, the last piece ending at the run's end; shorter ones are a head
// and a tail of 32 bytes (runs of 32 and more) or 16 bytes, overlapping,
// with no loop over pieces.
func (g *Generator) copyRunPaths(k table.Kernel, doc []string, piece, loopMin int, move func(from, to operand.Mem)) {
	c := g.c
	// last becomes the offset of a run's last piece.
	dst, src, e, groups, last, steps := g.runCopier(k, doc...)
	type path struct{ min, piece int }
	paths := []path{{loopMin, piece}}
	for _, head := range []int{32, 16} {
		if head < loopMin && !k.Streaming { // streaming runs are whole pieces
			paths = append(paths, path{head, head})
		}
	}
	// Runs of exactly one piece, or of 32 or 16 bytes, move in one load
	// and store, with no loop over pieces (16 bytes were two overlapping
	// moves): on a Zen 5, heads split of 1x128x12x64 bytes, 64-byte runs,
	// 1.2x on AVX-512.
	var exact []int
	for _, n := range []int{piece, 32, 16} {
		if !slices.Contains(exact, n) && (n == piece || !k.Streaming) {
			exact = append(exact, n)
		}
	}
	exactLabels := make([]string, len(exact))
	for i, n := range exact {
		exactLabels[i] = g.label("exact")
		c.CMPQ(e, operand.I32(n))
		c.JEQ(operand.LabelRef(exactLabels[i]))
	}
	labels := make([]string, len(paths))
	for i, p := range paths {
		labels[i] = g.label("runs")
		c.CMPQ(e, operand.I32(p.min))
		c.JAE(operand.LabelRef(labels[i]))
	}
	c.RET() // runs shorter than 16 bytes: the caller does not send them
	for i, n := range exact {
		c.Label(exactLabels[i])
		g.eachRun(dst, src, groups, g.label("group"), steps, g.stream, func(d, s reg.GPVirtual) {
			switch {
			case n == piece:
				move(operand.Mem{Base: s}, operand.Mem{Base: d})
			case n == 32:
				c.VMOVDQU(operand.Mem{Base: s}, ymm[0])
				c.VMOVDQU(ymm[0], operand.Mem{Base: d})
			default:
				c.VMOVDQU(operand.Mem{Base: s}, ymm[0].AsX())
				c.VMOVDQU(ymm[0].AsX(), operand.Mem{Base: d})
			}
		})
	}
	for i, p := range paths {
		c.Label(labels[i])
		c.SUBQ(operand.I32(p.piece), last)
		g.eachRun(dst, src, groups, g.label("group"), steps, g.stream, func(d, s reg.GPVirtual) {
			switch {
			case i == 0:
				g.copyPieces(s, d, last, operand.I32(p.piece), move)
			case p.piece == 32: // physical registers: VEX moves, on either ISA
				g.copyHeadTail(s, d, last, ymm[0], ymm[1])
			default:
				g.copyHeadTail(s, d, last, ymm[0].AsX(), ymm[1].AsX())
			}
		})
	}
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
	strides := g.args("dstX", "srcX", "dstRow", "srcRow")
	rows, x, d, s := c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Label(groupLoop)
	c.Load(c.Param("rows"), rows)
	c.Label(rowLoop)
	c.Load(c.Param("w"), x)
	c.MOVQ(dst, d)
	c.MOVQ(src, s)
	g.alignLoop()
	c.Label(runLoop)
	run(d, s)
	c.ADDQ(strides[0], d)
	c.ADDQ(strides[1], s)
	c.DECQ(x)
	c.JNZ(operand.LabelRef(runLoop))
	g.end(loops{[2]reg.GPVirtual{dst, src}, [2]operand.Op{strides[2], strides[3]}, rows, groups, rowLoop, groupLoop, steps}, streaming)
}

// alignLoop starts the next instruction, a loop's head, on a 64-byte
// boundary. Where the run copiers' loop over runs happened to sit decided
// their speed on a Zen 5: 32-byte runs of 1x16x64x64 NHWC DCR at 0.46 of
// copy() in one binary and 0.80 in another, the same code; aligned, 0.76
// to 0.81 in both. Only these loops are aligned: the Go assembler's pass
// that lays out PCALIGN grows with their count, and every pad costs bytes.
func (g *Generator) alignLoop() {
	g.c.Instruction(&ir.Instruction{Opcode: "PCALIGN", Operands: []operand.Op{operand.Imm(64)}})
}

// args loads the named arguments into registers, for loops to read. A
// loop that reads its strides from the argument slots makes its loads
// wait on its own stores wherever the output lies a multiple of 4 KiB
// from the stack: the stacked-row kernels ran at 28 instead of 57 GB/s on
// a Zen 5 in a binary where it did.
func (g *Generator) args(names ...string) []operand.Op {
	out := make([]operand.Op, len(names))
	for i, n := range names {
		r := g.c.GP64()
		g.c.Load(g.c.Param(n), r)
		out[i] = r
	}
	return out
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
