package amd64

import (
	"math/bits"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

// Bundle pairs: an AVX2 SpaceToDepth of 1- or 2-byte elements whose rows
// are pairMin to 16 bytes (YOLO's 13x13 maps) moves two consecutive bundles
// at a time, writing the two rows of each plane, 2n bytes together, in one
// 32-byte store, where a bundle alone writes each row with a 16-byte store
// of a register half: half the stores and loop steps (on a Zen 4, YOLO's
// 1-byte DCR SpaceToDepth at 0.62 of copy() against 0.46).
//
// Of the pair's space rows, a (of the first bundle) and b (of the second,
// 4n bytes on), block row i of each, planes (i, 0) and (i, 1) take the
// even and the odd bundles. Each plane's register draws, in lane 0, on a's
// 2n bytes and b's first 32-2n: 32 bytes together, two 16-byte windows if
// the second is a[16:2n] followed by b[0:32-2n], which a blend of two
// loads makes (the load of b's bytes starts 2n-16 bytes before b, 2n+16
// after a). Lane 1 draws on b's bytes from 32-2n to 2n, in b's first and
// second 16 bytes. So two windows, x = [a[0:16] | b[0:16]] and y =
// [a[16:2n] b[0:32-2n] | b[16:32]], each shuffled in-lane and the two
// ORed, make each plane's register with no lane-crossing permute, where
// sliding b's half over with VPERMQ would cost a cross-lane permute per
// register. The masks depend on n, known only at run time: they
// come from a table with an entry per n.
//
// The 32-2n bytes past a pair's rows land in the rows of the bundles after
// it, which rewrite them: pairs run while need(n) bundles remain before the
// group's last one, which moves exactly.
const (
	pairMin     = 9                             // the shortest row, in bytes, of the paths that pair bundles (the 16-byte chunk's)
	pairMax     = 16                            // the longest
	pairWindows = 2                             // x and y
	pairMasks   = 2*pairWindows + 1             // the shuffles of x and y for the even and the odd bundles, and the blend that makes y
	pairNeed    = pairMasks * 2 * vec.LaneBytes // offset of need in a table entry
	pairEntry   = 256                           // bytes of a table entry (a power of two): the masks, need, padding
)

// pairMasksOf returns the masks of rows of n bytes (pairMin <= n <= 16) of
// w-byte elements: the shuffle of window t for the even (j = 0) or odd
// (j = 1) bundles at j*pairWindows+t, then the blend that makes y (see Bundle
// pairs): set where y's bytes come from b.
func pairMasksOf(n, w int) (masks [pairMasks][2 * vec.LaneBytes]byte) {
	const none = 0x80 // VPSHUFB writes zero
	for t := range 2 * pairWindows {
		for k := range masks[t] {
			masks[t][k] = none
		}
	}
	for q := 2*n - vec.LaneBytes; q < vec.LaneBytes; q++ {
		masks[2*pairWindows][q] = none
	}
	for j := range 2 {
		for k := range 2 * n { // byte k of the plane's register: a's row, then b's
			row, at := 0, k
			if k >= n {
				row, at = 1, k-n
			}
			off := (2*(at/w)+j)*w + at%w // in the space row
			lane := k / vec.LaneBytes
			t, pos := off/vec.LaneBytes, off%vec.LaneBytes // x, or y from byte 16 on
			if lane == 0 && row == 1 {
				t, pos = 1, 2*n-vec.LaneBytes+off // y's bytes of b
			}
			masks[j*pairWindows+t][k] = byte(pos)
		}
	}
	return masks
}

// pairNeeds is how many bundles must remain before a group's last one for
// a pair of rows of n bytes to run: the two it moves, and those its slop
// reaches (at least one).
func pairNeeds(n int) int {
	slop := 2*vec.LaneBytes - 2*n
	return max(2, 1+(slop+n-1)/n)
}

// pairTable is the data of the masks and needs of every row length, entry
// n-pairMin for rows of n bytes.
func pairTable(w int) []byte {
	var out []byte
	for n := pairMin; n <= pairMax; n++ {
		entry := make([]byte, pairEntry)
		for t, m := range pairMasksOf(n, w) {
			copy(entry[t*len(m):], m[:])
		}
		entry[pairNeed] = byte(pairNeeds(n))
		out = append(out, entry...)
	}
	return out
}

// pairs reports whether the bundle kernel k pairs the bundles of its path of
// one chunk (not the loop over chunks) whose rows are longer than shorter
// bytes.
func pairs(k table.Kernel, chunk, shorter int) bool {
	return k.Unzip && k.Width <= 2 && chunk == pairMax && shorter+1 >= pairMin
}

// pairEntryOf sets tab to the table entry of rows of n bytes, less
// pairMin entries: operands add the displacement pairDisp.
func (g *Generator) pairEntryOf(k table.Kernel, n, tab reg.GPVirtual) {
	c := g.c
	c.LEAQ(g.constant(pairTable(k.Width)), tab)
	t := c.GP64()
	c.MOVQ(n, t)
	c.SHLQ(operand.Imm(uint64(bits.TrailingZeros(pairEntry))), t) // pairEntry * n
	c.ADDQ(t, tab)
}

// pairDisp is the displacement from tab (pairEntryOf) to the entry's start.
const pairDisp = -pairMin * pairEntry

// bundlePairs moves bundles two at a time, from the bundle at d and s, while
// bundles (those left before the group's last) is at least the entry's
// need, leaving d, s and bundles at the first bundle it left.
func (g *Generator) bundlePairs(d, s, n, plane, plane3, bundles, tab reg.GPVirtual) {
	c := g.c
	var masks [pairMasks]reg.VecPhysical
	for t := range masks {
		masks[t] = ymm[8+t]
		c.VMOVDQU(operand.Mem{Base: tab, Disp: pairDisp + t*2*vec.LaneBytes}, masks[t])
	}
	need := operand.Mem{Base: tab, Disp: pairDisp + pairNeed}
	loop, done := g.label("pairs"), g.label("pairsdone")
	c.CMPQ(bundles, need)
	c.JLT(operand.LabelRef(done))
	c.Label(loop)
	s1 := c.GP64() // the space rows of block row 1
	c.LEAQ(operand.Mem{Base: s, Index: n, Scale: 2}, s1)
	planes := planeMems(d, plane, plane3)
	for i, row := range []reg.GPVirtual{s, s1} {
		a := operand.Mem{Base: row}
		b := operand.Mem{Base: row, Index: n, Scale: 4} // 4n bytes on
		x, y := ymm[0], ymm[1]
		c.VMOVDQU(a, x.AsX())
		c.VINSERTI128(operand.Imm(1), b, x, x)
		c.VMOVDQU(a.Offset(vec.LaneBytes), y.AsX())
		c.VINSERTI128(operand.Imm(1), b.Offset(vec.LaneBytes), y, y)
		// b's first 32-2n bytes at 2n-16: the load starts at a + 2n + 16.
		c.VPBLENDVB(masks[2*pairWindows], operand.Mem{Base: row, Index: n, Scale: 2, Disp: vec.LaneBytes}, y, y)
		for j := range 2 {
			out, t := ymm[2+2*j], ymm[3+2*j]
			c.VPSHUFB(masks[j*pairWindows], x, out)
			c.VPSHUFB(masks[j*pairWindows+1], y, t)
			c.VPOR(t, out, out)
			c.VMOVDQU(out, planes[2*i+j])
		}
	}
	c.LEAQ(operand.Mem{Base: d, Index: n, Scale: 2}, d)
	c.LEAQ(operand.Mem{Base: s, Index: n, Scale: 8}, s)
	c.SUBQ(operand.Imm(2), bundles)
	c.CMPQ(bundles, need)
	c.JGE(operand.LabelRef(loop))
	c.Label(done)
}
