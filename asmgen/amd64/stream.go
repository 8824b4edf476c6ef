package amd64

import (
	"encoding/binary"

	"github.com/mmcloughlin/avo/operand"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
)

func init() {
	lowerings[table.Streamers] = func(g *Generator, k table.Kernel) (int, error) {
		g.streamRuns(k)
		return 0, nil
	}
}

// streamRuns writes streaming run copier k (table.Streamers). A group's
// runs tile one block of the output, so it is written as a stream of
// 32-byte aligned non-temporal stores, whatever the run length: the
// copier with a streaming twin only for runs of a multiple of 32 bytes
// left NHWC DCR at b = 3 (runs of 36 or 72 bytes) to ordinary stores,
// which read every output line from memory before writing it.
//
// A store whose 32 bytes lie in one run is one load. One that crosses from
// run r to run r+1 takes the last 32 bytes of r and the first 32 of r+1,
// both inside their runs: a blend keeps the dwords it needs of each
// (those of r on top) and a dword rotation puts r's first. Runs and the
// block are whole dwords (e%4 = 0, dst 4-byte aligned), so every split
// falls between dwords. The block's unaligned head and tail are two
// ordinary 32-byte stores, of its first and last 32 bytes.
func (g *Generator) streamRuns(k table.Kernel) {
	c := g.c
	g.function(k)
	c.Doc(k.Name()+" copies, in each row of each group, w runs of e bytes (at least 32, a multiple of 4) from src + x*srcX to dst + x*e, the rows e*w bytes apart,",
		"writing each group's block of dst with aligned non-temporal stores.")
	dst, src, e, srcX := c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("e"), e)
	c.Load(c.Param("srcX"), srcX)
	// Per group, in stack slots: the block's length, and where its last
	// run ends, less 32, from the group's source.
	slots := c.AllocLocal(24)
	blockLen, tailSrc, groups := slots, slots.Offset(8), slots.Offset(16)
	t, u := c.GP64(), c.GP64()
	c.Load(c.Param("rows"), t)
	c.IMULQ(param(c, "w"), t)
	c.IMULQ(e, t)
	c.MOVQ(t, blockLen)
	c.Load(c.Param("rows"), t)
	c.DECQ(t)
	c.IMULQ(param(c, "srcRow"), t)
	c.Load(c.Param("w"), u)
	c.DECQ(u)
	c.IMULQ(srcX, u)
	c.ADDQ(u, t)
	c.ADDQ(e, t)
	c.SUBQ(operand.I32(32), t)
	c.MOVQ(t, tailSrc)
	c.Load(c.Param("groups"), t)
	c.MOVQ(t, groups)
	// Rotation indices, then blend masks, both read at offsets of the
	// bytes a crossing store takes from run r (see crossRuns).
	tables := c.GP64()
	c.LEAQ(g.constant(crossTables()), tables)

	groupLoop, chunks, cross, store, done := g.label("group"), g.label("chunk"), g.label("cross"), g.label("store"), g.label("groupdone")
	c.Label(groupLoop)
	end, p := c.GP64(), c.GP64()
	c.MOVQ(dst, end)
	c.ADDQ(blockLen, end)
	head := ymm[0]
	c.VMOVDQU(operand.Mem{Base: src}, head)
	c.VMOVDQU(head, operand.Mem{Base: dst})
	c.MOVQ(src, t)
	c.ADDQ(tailSrc, t)
	c.VMOVDQU(operand.Mem{Base: t}, head)
	c.VMOVDQU(head, operand.Mem{Base: end, Disp: -32})
	c.LEAQ(operand.Mem{Base: dst, Disp: 31}, p) // the first aligned store
	c.ANDQ(operand.I32(-32), p)
	c.ANDQ(operand.I32(-32), end) // past the last aligned store
	// q is where the store at p starts in run a, x the runs left in the
	// row after a, row the row's first run.
	q, a, x, row := c.GP64(), c.GP64(), c.GP64(), c.GP64()
	c.MOVQ(p, q)
	c.SUBQ(dst, q)
	c.MOVQ(src, a)
	c.MOVQ(src, row)
	c.Load(c.Param("w"), x)
	c.CMPQ(p, end)
	c.JAE(operand.LabelRef(done))

	nextRun := func() {
		same := g.label("samerow")
		c.ADDQ(srcX, a)
		c.DECQ(x)
		c.JNZ(operand.LabelRef(same))
		c.Load(c.Param("w"), x)
		c.ADDQ(param(c, "srcRow"), row)
		c.MOVQ(row, a)
		c.Label(same)
	}
	out, left, right, mask := ymm[0], ymm[1], ymm[2], ymm[3]
	c.Label(chunks)
	avail := c.GP64() // bytes of run a from q on
	c.MOVQ(e, avail)
	c.SUBQ(q, avail)
	c.CMPQ(avail, operand.I32(32))
	c.JB(operand.LabelRef(cross))
	c.VMOVDQU(operand.Mem{Base: a, Index: q, Scale: 1}, out)
	c.ADDQ(operand.I32(32), q)
	c.CMPQ(q, e)
	c.JB(operand.LabelRef(store))
	c.XORQ(q, q)
	nextRun()
	c.JMP(operand.LabelRef(store))

	c.Label(cross)
	c.VMOVDQU(operand.Mem{Base: a, Index: e, Scale: 1, Disp: -32}, left) // run r's last 32 bytes
	nextRun()
	c.VMOVDQU(operand.Mem{Base: a}, right) // run r+1's first
	c.VMOVDQU(operand.Mem{Base: tables, Index: avail, Scale: 1, Disp: 64}, mask)
	c.VPBLENDVB(mask, left, right, right) // r's last avail/4 dwords on top
	c.NEGQ(avail)
	c.VMOVDQU(operand.Mem{Base: tables, Index: avail, Scale: 1, Disp: 32}, mask) // the rotation's indices
	c.VPERMD(right, mask, out)
	c.LEAQ(operand.Mem{Base: avail, Disp: 32}, q) // 32 - avail bytes of r+1 taken

	c.Label(store)
	c.VMOVNTDQ(out, operand.Mem{Base: p})
	c.ADDQ(operand.I32(32), p)
	c.CMPQ(p, end)
	c.JB(operand.LabelRef(chunks))

	c.Label(done)
	c.ADDQ(param(c, "dstGroup"), dst)
	c.ADDQ(param(c, "srcGroup"), src)
	c.DECQ(groups)
	c.JNZ(operand.LabelRef(groupLoop))
	c.SFENCE() // non-temporal stores are weakly ordered
	c.VZEROUPPER()
	c.RET()
}

// crossTables are the tables of a store crossing runs that takes s dwords
// (4s bytes) from run r: at byte 32 - 4s the dword indices of a rotation
// by s (its dword k is dword (k + 8 - s) mod 8 of the blend), at byte
// 64 + 4s the blend's mask (dword d from r, all ones, for d >= 8 - s).
func crossTables() []byte {
	b := make([]byte, 128)
	for d := range 16 {
		binary.LittleEndian.PutUint32(b[4*d:], uint32(d%8))
		if d >= 8 {
			binary.LittleEndian.PutUint32(b[64+4*d:], ^uint32(0))
		}
	}
	return b
}
