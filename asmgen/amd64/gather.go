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
// reads the vector's offset and its windows' offsets from offs, asks for
// the line of its first window gatherAhead tiles on (farRep), shuffles
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
	// by: a tile's bytes, or none past farRep; ahead: the source
	// gatherAhead times by on.
	by, ahead, none := c.GP64(), c.GP64(), c.GP64()
	c.MOVQ(param(c, "srcRep"), by)
	c.XORL(none.As32(), none.As32())
	c.CMPQ(by, operand.U32(farRep))
	c.CMOVQHI(none, by)
	c.Label(repLoop)
	c.LEAQ(operand.Mem{Base: src, Index: by, Scale: gatherAhead}, ahead)
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
		if n == 0 {
			c.PREFETCHT0(operand.Mem{Base: ahead, Index: t, Scale: 1})
		}
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

// gatherAhead is how many tiles ahead a gather kernel asks, for each
// output vector, for the line its first window starts in (PREFETCHT0,
// which never faults, past the source's end too). A SpaceToDepth in NCHW
// reads every other element of its rows, each row in two tiles a plane
// apart, whose page-bound streams the hardware's prefetchers did not
// keep ahead of beyond the L3. On a Zen 5, one goroutine, of copy(),
// without and with, 1x64x270x480 /b2 (the report's): avx2, DCR of 5-byte
// elements 0.18-0.19 and 0.46-0.48, 7-byte 0.17-0.18 and 0.39-0.41, CRD
// 0.32-0.34 and 0.56-0.63; avx512vbmi, DCR of 3-byte elements 0.29-0.33
// and 0.42-0.44, CRD of 7-byte 0.50-0.52 and 0.62-0.67; in the L3
// (1x64x100x100) avx2 0.31-0.34 and 0.40-0.42. The one more load cost
// calls in the L1 or L2 up to 8% (1x256x13x13 /b2 of 3-byte elements,
// avx512vbmi, DepthToSpace 0.48-0.50 and 0.46-0.48); 1, 2 and 4 tiles
// ahead tied.
const gatherAhead = 2

// farRep is the most bytes apart a gather's tiles (srcRep) may lie for
// it to ask for lines gatherAhead tiles on; farther, it asks for its own
// tile's. Far tiles are planes of a DepthToSpace of 3-byte elements,
// whose lines two planes on are no use soon: 1x64x270x480 /b2, planes
// 12 MB (DCR) and 0.8 MB (CRD) apart, of copy(), asking two tiles on and
// not: avx2 0.40-0.65 and 0.55-0.70, avx512vbmi 0.56-0.76 and 0.62-0.92.
const farRep = 64 << 10
