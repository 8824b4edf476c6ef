package vec

import (
	"fmt"
	"slices"
)

// Rotating zips and unzips move b lanes (b odd) of w-byte words through
// 32-byte registers. Take a span of the register that a permute covers:
// all 32 bytes for 4- and 8-byte words (VPERMD, VPERMQ), each 16-byte half
// for bytes and 2-byte words (VPSHUFB), whose halves then move two
// independent pieces of each lane. The interleaved side of one span per
// lane is b spans, and word k of interleaved span L belongs to lane
// (n*L + k) % b, n words a span. Since n is a power of two and b odd, the
// b spans' words at each place k belong to b different lanes, and each
// lane's words to different places. So a zip permutes each lane's span
// once, putting each of its words at the place it takes in whichever
// interleaved span it goes to, and builds each interleaved span by
// blending those at each place; an unzip blends first and permutes after.
// That is b permutes and at most b*(b-1) blends (VPBLENDD, which runs on
// every vector port; VPBLENDVB for bytes and words) for 32*b bytes, where
// ShuffleZip's in-lane byte shuffles take one shuffle per lane and 16-byte
// piece of output. Spans of 16 bytes put the interleaved halves in order
// with one lane move per 32 bytes (zips) or load them in pairs (unzips).

// RotateFits reports whether RotateZip and RotateUnzip move b lanes of
// w-byte words.
func RotateFits(b, w int) bool { return b%2 == 1 && b > 1 && w <= 8 && w&(w-1) == 0 }

// rotation is the places of a rotating zip or unzip of b lanes of w-byte
// words: for each lane j and place k of a span, the lane's word that place
// k of its interleaved span holds (x), and which interleaved span that is
// (reg).
type rotation struct {
	b, w, chunk, span int
	x, reg            [][]int
}

// newRotation is the rotation of a chunk of chunk bytes a lane (16 or
// 32): 16-byte chunks take 16-byte registers, one span each.
func newRotation(b, w, chunk int) rotation {
	r := rotation{b: b, w: w, chunk: chunk, span: 2 * LaneBytes}
	if w < 4 || chunk == LaneBytes {
		r.span = LaneBytes
	}
	n := r.span / w
	r.x, r.reg = make([][]int, b), make([][]int, b)
	for j := range b {
		r.x[j], r.reg[j] = make([]int, n), make([]int, n)
	}
	for L := range b {
		for k := range n {
			e := n*L + k
			r.x[e%b][k], r.reg[e%b][k] = e/b, L
		}
	}
	return r
}

// permute moves the words of each span of a: word k of the result is word
// idx[k] of a.
func (r rotation) permute(p *Prog, a int, idx []int) int {
	switch {
	case r.span == LaneBytes: // in-lane
	case r.w == 8:
		return p.Quads(a, idx)
	case r.w == 4:
		return p.Permute2(a, a, 4, idx)
	}
	mask := make([]int8, r.chunk)
	for i := range mask {
		k, t := i%LaneBytes/r.w, i%r.w
		mask[i] = int8(idx[k]*r.w + t)
	}
	return p.Shuffle(a, mask)
}

// blend is a with the words at the places where fromB holds, in every
// span, taken from b: a blend of dwords, or of the words themselves.
func (r rotation) blend(p *Prog, a, b int, fromB []bool) int {
	grain := min(r.w, 4)
	n := r.span / r.w
	sel := make([]bool, r.chunk/grain)
	for q := range sel {
		sel[q] = fromB[q*grain/r.w%n]
	}
	return p.Blend(a, b, grain, sel)
}

// RotateZip builds the zip of b lanes of w-byte words by chunks of 16 or
// 32 bytes per lane by rotation (see RotateFits), or of 64 for bytes and
// 2-byte words, whose 16-byte spans the permutes of 64-byte registers
// (AVX-512) put in order.
func RotateZip(b, w, chunk int) (*Prog, error) {
	if !RotateFits(b, w) || chunk != LaneBytes && chunk != 2*LaneBytes && (chunk != ZMM || w > 2) {
		return nil, fmt.Errorf("vec: no rotating zip of %d lanes of %d-byte words by %d bytes", b, w, chunk)
	}
	p := NewProg(chunk)
	r := newRotation(b, w, chunk)
	placed := make([]int, b)
	for j := range b {
		placed[j] = r.permute(p, p.Load(Mem{j, 0}, chunk), r.x[j])
	}
	ilv := make([]int, b)
	for L := range b {
		acc := -1
		for j := range b {
			from := make([]bool, len(r.reg[j]))
			for k, at := range r.reg[j] {
				from[k] = at == L
			}
			switch {
			case !slices.Contains(from, true): // the lane has no word here
			case acc < 0:
				acc = placed[j]
			default:
				acc = r.blend(p, acc, placed[j], from)
			}
		}
		ilv[L] = acc
	}
	switch {
	case r.span == chunk:
		for L, v := range ilv {
			p.Store(v, 0, chunk, Mem{0, L * chunk})
		}
	case chunk == ZMM: // two-table permutes of quadwords gather the spans
		if err := p.gatherStores(8, ZipWant(b, w, chunk), Mem{0, 0}, ilv); err != nil {
			return nil, fmt.Errorf("vec: rotating zip of %d lanes of %d-byte words: %w", b, w, err)
		}
	default:
		// Half h of span register L is 16-byte piece h*b + L of the
		// output: pair the pieces into whole registers.
		piece := func(q int) (v, half int) { return ilv[q%b], q / b }
		for i := range b {
			a, ha := piece(2 * i)
			c, hc := piece(2*i + 1)
			p.Store(p.Lanes(a, c, [2]int{ha, 2 + hc}), 0, chunk, Mem{0, i * chunk})
		}
	}
	return p.finish(inputs(b, chunk), map[int]Value{0: ZipWant(b, w, chunk)})
}

// RotateUnzip builds the unzip of b lanes of w-byte words by chunks of
// 16 or 32 bytes per lane by rotation (see RotateFits).
func RotateUnzip(b, w, chunk int) (*Prog, error) {
	if !RotateFits(b, w) || chunk != LaneBytes && chunk != 2*LaneBytes {
		return nil, fmt.Errorf("vec: no rotating unzip of %d lanes of %d-byte words by %d bytes", b, w, chunk)
	}
	p := NewProg(chunk)
	r := newRotation(b, w, chunk)
	ilv := make([]int, b)
	for L := range b {
		if r.span == chunk {
			ilv[L] = p.Load(Mem{0, L * chunk}, chunk)
		} else { // the two halves' span L
			ilv[L] = p.LoadPair(Mem{0, L * LaneBytes}, Mem{0, (b + L) * LaneBytes})
		}
	}
	for j := range b {
		first := r.reg[j][0]
		acc := ilv[first]
		for L := range b {
			from := make([]bool, len(r.reg[j]))
			for k, at := range r.reg[j] {
				from[k] = at == L && at != first
			}
			if slices.Contains(from, true) {
				acc = r.blend(p, acc, ilv[L], from)
			}
		}
		// Word k of acc is word x[j][k] of lane j: put each in its place.
		idx := make([]int, len(r.x[j]))
		for k, at := range r.x[j] {
			idx[at] = k
		}
		p.Store(r.permute(p, acc, idx), 0, chunk, Mem{j, 0})
	}
	return p.finish(inputs(1, b*chunk), UnzipWant(b, w, chunk))
}
