package amd64

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
)

func init() {
	lowerings[table.Gathers] = func(g *Generator, k table.Kernel) (int, error) {
		g.gather(k)
		return 0, nil
	}
}

// gather writes gather kernel k (table.Gathers). Per output vector it
// reads the vector's offset and its windows' offsets from offs, shuffles
// each group of windows with the group's index vector, ORs the groups
// together and stores the vector. On AVX-512 VBMI a group of four 32-byte
// windows makes two 64-byte tables, from which VPERMI2B picks, zeroing,
// where there are several groups, the bytes whose index lacks bit 7
// (VPMOVB2M). On AVX2 a group is one 16-byte window, broadcast to both
// lanes, from which VPSHUFB picks, zeroing the bytes whose index has bit 7.
//
// AVX2's plans ran YOLO's 13x13 DepthToSpace no faster than its row
// kernels (0.25-0.26 of copy() with 1-byte elements on a Zen 5), so they
// take no short rows (isa.Windows.ShortRows): they move what no kernel
// takes, elements of 5 or 7 bytes.
func (g *Generator) gather(k table.Kernel) {
	c := g.c
	w := k.ISA.Windows()
	g.function(k)
	c.Doc(fmt.Sprintf("%s writes each output vector of a gather program from %d group(s) of %d window(s) of %d bytes.", k.Name(), k.Groups, w.PerGroup, w.Window))
	dst, src, reps := c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("reps"), reps)
	repLoop, stepLoop := g.label("tile"), g.label("vector")
	stride := 4 * (1 + k.Groups*w.PerGroup) // bytes of offs per vector
	c.Label(repLoop)
	offs, idx, steps := c.GP64(), c.GP64(), c.GP64()
	c.Load(c.Param("offs"), offs)
	c.Load(c.Param("idx"), idx)
	c.Load(c.Param("steps"), steps)
	c.Label(stepLoop)
	at := c.GP64()
	c.MOVLQSX(operand.Mem{Base: offs}, at)
	window := func(n int) operand.Mem { // the n-th window of this vector
		t := c.GP64()
		c.MOVLQSX(operand.Mem{Base: offs, Disp: 4 * (1 + n)}, t)
		return operand.Mem{Base: src, Index: t, Scale: 1}
	}
	var acc reg.VecVirtual
	for grp := range k.Groups {
		var v reg.VecVirtual
		index := operand.Mem{Base: idx, Disp: w.Vector * grp}
		if k.ISA.TwoTable() {
			tabs := [2]reg.VecVirtual{c.ZMM(), c.ZMM()}
			for h, t := range tabs {
				c.VMOVDQU(window(4*grp+2*h), t.AsY())
				c.VINSERTI64X4(operand.U8(1), window(4*grp+2*h+1), t, t)
			}
			v = c.ZMM()
			c.VMOVDQU64(index, v)
			if k.Groups == 1 {
				c.VPERMI2B(tabs[1], tabs[0], v)
			} else {
				m := c.K()
				c.VPMOVB2M(v, m)
				c.VPERMI2B_Z(tabs[1], tabs[0], m, v)
			}
		} else {
			v = c.YMM()
			c.VBROADCASTI128(window(grp), v)
			c.VPSHUFB(index, v, v)
		}
		if grp == 0 {
			acc = v
		} else if k.ISA.TwoTable() {
			c.VPORQ(v, acc, acc)
		} else {
			c.VPOR(v, acc, acc)
		}
	}
	if k.ISA.TwoTable() {
		c.VMOVDQU64(acc, operand.Mem{Base: dst, Index: at, Scale: 1})
	} else {
		c.VMOVDQU(acc, operand.Mem{Base: dst, Index: at, Scale: 1})
	}
	c.ADDQ(operand.I32(stride), offs)
	c.ADDQ(operand.I32(w.Vector*k.Groups), idx)
	c.DECQ(steps)
	c.JNZ(operand.LabelRef(stepLoop))
	c.ADDQ(param(c, "srcRep"), src)
	c.ADDQ(param(c, "dstRep"), dst)
	c.DECQ(reps)
	c.JNZ(operand.LabelRef(repLoop))
	c.VZEROUPPER()
	c.RET()
}
