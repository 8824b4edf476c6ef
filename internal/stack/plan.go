// Package stack plans NCHW calls of block size 2 whose depth-side rows fit
// a 64-byte register (YOLO's 13x13 maps: rows of 13 to 52 bytes) for the
// stacked-row kernels of package kernels (AVX-512).
//
// In NCHW the four planes (i, j) that one output row draws from each hold
// their rows back to back, and the space side holds the rows they make back
// to back too. So k consecutive rows of each plane fill one register (L =
// k*W*w bytes, masked), and the 4*L bytes of the 2*k space rows they make
// fill four; one permutation maps the one to the other, the same for every
// such stack of k rows anywhere in the call. A kernel keeps that
// permutation in registers and runs stack after stack: four masked loads,
// eight two-table permutes, four masked stores, where the row kernels pay
// a loop iteration and partial vectors for every 13-byte row.
//
// The stacks run along every row of the call. In both orders a plane's
// rows continue each other's bytes for a segment (DCR: the rows of all the
// channels of a plane group; CRD: those of one channel), and the plane's
// next segment lies four segments further on, past the three other
// planes' (the next image in DCR, the next channel in CRD), while the
// space side holds the rows they make back to back throughout. A stack
// that reaches past the end of a segment takes the rest of its rows from
// the next one: two masked loads (or stores) per register instead of one.
// Where the rows are not a multiple of k, the call's last stack overlaps
// the one before it and rewrites the same bytes.
package stack

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// The layout of a plan's table, which the kernels read: an index vector per
// register they write, then the depth side's load or store mask and the
// space side's four.
const (
	Vector    = 64                   // bytes of a register
	Planes    = 4                    // the planes (i, j) of block size 2
	MaskDepth = Planes * Vector      // offset of the depth side's mask
	MaskSpace = MaskDepth + 8        // offset of the space side's masks, one per register
	TabBytes  = MaskSpace + 8*Planes // bytes of a table
	MaxRow    = Vector               // the longest depth row, in bytes, that plans take (a stack of one row)
	b         = 2                    // the block size
	pairBytes = 2 * Vector           // the bytes a two-table permute picks from
	countMax  = 1 << 30              // bounds stacks so that offsets stay far from overflow
)

// A Plan runs a call as Stacks stacks. Stack u starts at v = min(u*Step,
// Last) bytes along the rows: four times as far into the space side, and
// on the depth side, where its four planes lie Plane bytes apart, Depth(v)
// bytes in (LastDepth = Depth(Last)): the segments of a plane, Plane bytes
// each, lie 4*Plane bytes apart. A stack whose Step bytes reach past its
// segment's end takes the rest from the start of the next.
//
// Tab holds, per register the kernel writes (the space side's four for a
// DepthToSpace, the planes' for a SpaceToDepth), the index vector of its
// two-table permutes in grains of Grain bytes: those whose top bit is set
// pick from the second pair of registers read, the others from the first.
// Then the masks of the bytes loaded or stored: the depth side's (Step
// bytes) and the space side's, one per register.
//
// Paired plans are for kernels without byte permutes (AVX-512 BW), which
// move 1-byte elements as pairs: the byte of plane (i, 0) and the byte of
// plane (i, 1) that go side by side into a space row, one 2-byte grain. A
// DepthToSpace kernel pairs them first, interleaving planes (i, 0) and (i,
// 1) within each 16-byte lane (VPUNPCKLBW and VPUNPCKHBW: the pairs of
// block row i lie in its two registers lo_i and hi_i); its permutes then
// pick from (lo_0, hi_0) and (lo_1, hi_1). A SpaceToDepth kernel's
// permutes gather the pairs of block row i into two registers, lane by
// lane those of the lane's first and last eight bytes of the planes, which
// it splits after (VPSHUFB, then VPUNPCKLQDQ and VPUNPCKHQDQ).
type Plan struct {
	ToDepth                              bool
	Grain                                int
	Paired                               bool
	Stacks, Step, Last, LastDepth, Plane int
	Tab                                  [TabBytes]byte
}

// New plans a validated call for kernels that permute grains of grain bytes
// (1, 2 or 4), or reports false if the call is not NCHW, of block size 2,
// with depth rows of at most MaxRow bytes and elements a multiple of grain.
// With paired set (and grain 1) it plans for kernels that move 1-byte
// elements as pairs, and reports false for other elements.
func New(g *shape.Geometry, grain int, paired bool) (*Plan, bool) {
	d, w := g, g.Elem
	row := d.W * w
	if g.NHWC || g.B != b || row > MaxRow || w%grain != 0 || g.Len() == 0 || paired && (grain != 1 || w != 1) {
		return nil, false
	}
	cp := d.C / (b * b) // C' of the channels the block spreads
	p := &Plan{ToDepth: g.ToDepth, Grain: grain, Paired: paired, Plane: cp * d.H * row}
	if paired {
		p.Grain = 2
	}
	if g.CRD {
		p.Plane = d.H * row
	}
	rows := d.N * cp * d.H
	k := min(Vector/row, p.Plane/row) // a stack spans at most two segments
	p.Step, p.Last = k*row, (rows-k)*row
	p.LastDepth = Depth(p.Last, p.Plane)
	p.Stacks = (rows + k - 1) / k
	p.fill(row, w)
	return p, true
}

// Depth is where byte v along the rows of a plane lies on the depth side,
// from the plane's start, with segments of plane bytes (v >= 0, plane >= 1).
func Depth(v, plane int) int { return v/plane*Planes*plane + v%plane }

// fill writes the table of stacks of k = p.Step/row rows of row bytes of
// w-byte elements.
func (p *Plan) fill(row, w int) {
	l := p.Step
	binary.LittleEndian.PutUint64(p.Tab[MaskDepth:], lowBits(l))
	for r := range Planes {
		binary.LittleEndian.PutUint64(p.Tab[MaskSpace+8*r:], lowBits(min(max(Planes*l-r*Vector, 0), Vector)))
	}
	top := byte(0x80) // the top bit of a grain, in its last byte
	for r := range Planes {
		idx := p.Tab[r*Vector:][:Vector]
		for at := 0; at < Vector; at += p.Grain {
			var from int // the byte of the pairs this grain of register r takes
			var ok bool
			switch {
			case p.Paired && !p.ToDepth:
				from, ok = pairedZipFrom(r*Vector+at, row, l)
			case p.Paired:
				from, ok = pairedUnzipFrom(r, at, row, l)
			case !p.ToDepth:
				from, ok = zipFrom(r*Vector+at, row, w, l)
			default:
				from, ok = unzipFrom(r, at, row, w, l)
			}
			if !ok {
				continue // a byte the mask keeps from being written
			}
			// Below 128 grains, so the low byte holds it; the permutes
			// read its low 7 (bytes), 6 (words) or 5 (dwords) bits.
			idx[at] = byte(from % pairBytes / p.Grain)
			if from >= pairBytes {
				idx[at+p.Grain-1] |= top
			}
		}
	}
}

// spaceByte splits byte x of a stack's space side into the plane and the byte of
// the plane's register it comes from: x = (r*b + i)*b*row + (c*b + j)*w + e
// for byte e of column c of row r of plane (i, j).
func spaceByte(x, row, w int) (plane, y int) {
	line, col := x/(b*row), x%(b*row)
	r, i := line/b, line%b
	c, j, e := col/(b*w), col/w%b, col%w
	return i*b + j, r*row + c*w + e
}

// zipFrom is where byte x of the space side comes from in a DepthToSpace,
// as a byte of the two pairs of plane registers (planes 0 and 1, then 2 and
// 3), or false past the stack's 4*l bytes.
func zipFrom(x, row, w, l int) (int, bool) {
	if x >= Planes*l {
		return 0, false
	}
	plane, y := spaceByte(x, row, w)
	return plane*Vector + y, true
}

// unzipFrom is where byte y of plane register r comes from in a
// SpaceToDepth, as a byte of the two pairs of space registers, or false
// past the stack's l bytes.
func unzipFrom(r, y, row, w, l int) (int, bool) {
	if y >= l {
		return 0, false
	}
	line, rem := y/row, y%row // row of the plane, byte within it
	c, e := rem/w, rem%w
	i, j := r/b, r%b
	return (line*b+i)*b*row + (c*b+j)*w + e, true
}

// pairedZipFrom is zipFrom for paired 1-byte elements: where the pair at
// byte x (even) of the space side lies in the pairs (lo_0, hi_0) and (lo_1,
// hi_1). Byte y of plane (i, j) is, interleaved within its 16-byte lane,
// in word y%16 of the lane of lo_i (y%16 < 8) or hi_i.
func pairedZipFrom(x, row, l int) (int, bool) {
	if x >= Planes*l {
		return 0, false
	}
	plane, y := spaceByte(x, row, 1) // plane (i, 0): x is even
	lane, m := y/16, y%16
	word := 8*lane + m
	if m >= 8 {
		word += Vector/2 - 8 // in hi_i, the pair's second table
	}
	return plane/b*pairBytes + 2*word, true
}

// pairedUnzipFrom is unzipFrom for paired 1-byte elements: where word at/2
// of register r (r = 2*i + h) comes from in the space side's pairs. In
// lane q, register 2*i holds the pairs of bytes 16*q to 16*q+7 of planes
// (i, 0) and (i, 1), register 2*i+1 those of bytes 16*q+8 to 16*q+15.
func pairedUnzipFrom(r, at, row, l int) (int, bool) {
	i, h := r/b, r%b
	word := at / 2
	y := 16*(word/8) + 8*h + word%8
	if y >= l {
		return 0, false
	}
	return unzipFrom(i*b, y, row, 1, l)
}

func lowBits(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

// Reach returns how many bytes from their starts a stacked-row kernel
// reaches on the depth and space sides with these arguments, the masks
// read from tab as the kernel reads them, or false for arguments no kernel
// takes or whose reach would overflow: the check before every call, which
// trusts no plan. A kernel's stacks cross at most one segment boundary
// (step <= plane), the last one none, and lastDepth must be where Last
// lies.
func Reach(tab []byte, stacks, step, last, lastDepth, plane int) (depth, space int, ok bool) {
	const huge = math.MaxInt / 16 // far from overflow after the sums below
	if len(tab) < TabBytes || stacks < 1 || stacks > countMax || step < 1 || step > Vector ||
		plane < step || last < 0 || max(last, plane) > huge || last%plane+step > plane ||
		lastDepth != Depth(last, plane) {
		return 0, 0, false
	}
	at := min((stacks-1)*step, last) // the furthest stack's start along the rows
	if n := maskLen(tab[MaskDepth:]); n > step {
		return 0, 0, false
	} else if n > 0 {
		depth = Depth(at+n-1, plane) + 1 + (Planes-1)*plane
	}
	for r := range Planes {
		if n := maskLen(tab[MaskSpace+8*r:]); n > 0 {
			space = max(space, Planes*at+r*Vector+n)
		}
	}
	return depth, space, true
}

// Reach is the package's Reach for the plan's arguments.
func (p *Plan) Reach() (depth, space int, ok bool) {
	return Reach(p.Tab[:], p.Stacks, p.Step, p.Last, p.LastDepth, p.Plane)
}

// maskLen is one past the highest byte the mask at m selects.
func maskLen(m []byte) int { return 64 - bits.LeadingZeros64(binary.LittleEndian.Uint64(m)) }

// Interpret runs the plan as the kernels do, in Go: the model the kernels
// are tested against, and a check of the table on any machine. Like the
// kernels, it follows the depth side stack by stack, never computing Depth
// but for the last stack.
func (p *Plan) Interpret(space, depth []byte) {
	off, at, seg := 0, 0, 0 // along the rows; on the depth side; into the segment
	for range p.Stacks {
		if off > p.Last {
			p.stack(space[Planes*p.Last:], depth, p.LastDepth, Vector) // within its segment
		} else {
			p.stack(space[Planes*off:], depth, at, p.Plane-seg)
		}
		off, at, seg = off+p.Step, at+p.Step, seg+p.Step
		if seg >= p.Plane {
			seg -= p.Plane
			at += (Planes - 1) * p.Plane
		}
	}
}

// stack runs one stack whose space side starts at space and depth side at
// depth[at:], rem bytes before its segment ends: masked loads of four
// registers, the permutes, masked stores. Bytes from rem on come from the
// next segment.
func (p *Plan) stack(space, depth []byte, at, rem int) {
	zip := !p.ToDepth
	depthMask := binary.LittleEndian.Uint64(p.Tab[MaskDepth:])
	// addr is where byte k of register r lies, and whether it moves.
	addr := func(r, k int, depthSide bool) (*byte, bool) {
		if depthSide {
			if depthMask>>k&1 == 0 {
				return nil, false
			}
			x := at + r*p.Plane + k
			if k >= rem {
				x += (Planes - 1) * p.Plane
			}
			return &depth[x], true
		}
		if binary.LittleEndian.Uint64(p.Tab[MaskSpace+8*r:])>>k&1 == 0 {
			return nil, false // perhaps past space's end
		}
		return &space[r*Vector+k], true
	}
	var in, out [Planes][Vector]byte
	for r := range Planes {
		for k := range Vector {
			if x, ok := addr(r, k, zip); ok {
				in[r][k] = *x
			}
		}
	}
	if p.Paired && zip {
		in = pairUp(in)
	}
	for r := range Planes {
		idx := p.Tab[r*Vector:][:Vector]
		for at := 0; at < Vector; at += p.Grain {
			x := int(idx[at]) % (pairBytes / p.Grain) * p.Grain
			pair := 0
			if idx[at+p.Grain-1]&0x80 != 0 {
				pair = 2
			}
			copy(out[r][at:at+p.Grain], in[pair+x/Vector][x%Vector:])
		}
	}
	if p.Paired && !zip {
		out = split(out)
	}
	for r := range Planes {
		for k := range Vector {
			if x, ok := addr(r, k, !zip); ok {
				*x = out[r][k]
			}
		}
	}
}

// pairUp is the paired DepthToSpace kernels' first step: lo_i and hi_i
// interleave planes (i, 0) and (i, 1) within each 16-byte lane, the first
// and last eight bytes of the lane (VPUNPCKLBW, VPUNPCKHBW).
func pairUp(planes [Planes][Vector]byte) (out [Planes][Vector]byte) {
	for i := range b {
		a, c := planes[i*b], planes[i*b+1]
		for lane := 0; lane < Vector; lane += 16 {
			for k := range 8 {
				out[i*b][lane+2*k], out[i*b][lane+2*k+1] = a[lane+k], c[lane+k]
				out[i*b+1][lane+2*k], out[i*b+1][lane+2*k+1] = a[lane+8+k], c[lane+8+k]
			}
		}
	}
	return out
}

// split is the paired SpaceToDepth kernels' last step, pairUp undone:
// each lane's even and odd bytes apart (VPSHUFB), then plane (i, 0) takes
// the even bytes of registers 2*i and 2*i+1, lane by lane, and plane (i, 1)
// the odd ones (VPUNPCKLQDQ, VPUNPCKHQDQ).
func split(pairs [Planes][Vector]byte) (out [Planes][Vector]byte) {
	for i := range b {
		for lane := 0; lane < Vector; lane += 16 {
			for h := range b {
				for k := range 8 {
					out[i*b][lane+8*h+k] = pairs[i*b+h][lane+2*k]
					out[i*b+1][lane+8*h+k] = pairs[i*b+h][lane+2*k+1]
				}
			}
		}
	}
	return out
}

// String describes the plan, as Describe reports it.
func (p *Plan) String() string {
	return fmt.Sprintf("stacked rows, %d stacks of 4 registers of %d-byte rows", p.Stacks, p.Step)
}
