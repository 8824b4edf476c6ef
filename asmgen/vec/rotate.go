package vec

import (
	"fmt"
	"slices"
)

// Rotating zips and unzips move b lanes (b odd) of w-byte words through
// 32-byte registers with permutes across the whole register (AVX2's
// VPERMD and VPERMQ): the interleaved side of a 32-byte chunk per lane is b
// registers, and word k of interleaved register L belongs to lane
// (n*L + k) % b, n = 32/w words a register. Since n is a power of two and b
// odd, the b registers' words at each place k belong to b different lanes,
// and each lane's words to different places. So a zip permutes each lane's
// register once, putting each of its words at the place it takes in
// whichever interleaved register it goes to, and builds each interleaved
// register by blending those at each place; an unzip blends first and
// permutes after. That is b permutes and at most b*(b-1) blends (VPBLENDD,
// which runs on every vector port) for 32*b bytes, where ShuffleZip's
// in-lane byte shuffles take one shuffle per lane and 16-byte piece of
// output.

// RotateFits reports whether RotateZip and RotateUnzip move b lanes of
// w-byte words.
func RotateFits(b, w int) bool { return b%2 == 1 && b > 1 && (w == 4 || w == 8) }

// rotatePlaces returns, for each lane j and place k, the lane's word that
// place k of its interleaved register holds (x), and which interleaved
// register that is (reg).
func rotatePlaces(b, w int) (x, reg [][]int) {
	n := 2 * LaneBytes / w
	x, reg = make([][]int, b), make([][]int, b)
	for j := range b {
		x[j], reg[j] = make([]int, n), make([]int, n)
	}
	for L := range b {
		for k := range n {
			e := n*L + k
			x[e%b][k], reg[e%b][k] = e/b, L
		}
	}
	return x, reg
}

// permuteWords moves the w-byte words of a: word k of the result is word
// idx[k] of a (VPERMQ for 8-byte words, VPERMD for 4).
func (p *Prog) permuteWords(a, w int, idx []int) int {
	if w == 8 {
		return p.Quads(a, idx)
	}
	return p.Permute2(a, a, w, idx)
}

// blendWords is a with the w-byte words where fromB holds taken from b, as
// a blend of dwords.
func (p *Prog) blendWords(a, b, w int, fromB []bool) int {
	sel := make([]bool, 2*LaneBytes/4)
	for k := range sel {
		sel[k] = fromB[k*4/w]
	}
	return p.Blend(a, b, 4, sel)
}

// RotateZip builds the zip of b lanes of w-byte words by 32-byte chunks
// per lane by rotation (see RotateFits).
func RotateZip(b, w int) (*Prog, error) {
	if !RotateFits(b, w) {
		return nil, fmt.Errorf("vec: no rotating zip of %d lanes of %d-byte words", b, w)
	}
	const chunk = 2 * LaneBytes
	p := NewProg(chunk)
	x, reg := rotatePlaces(b, w)
	placed := make([]int, b)
	for j := range b {
		placed[j] = p.permuteWords(p.Load(Mem{j, 0}, chunk), w, x[j])
	}
	for L := range b {
		acc := -1
		for j := range b {
			from := make([]bool, len(reg[j]))
			for k, r := range reg[j] {
				from[k] = r == L
			}
			switch {
			case !slices.Contains(from, true): // the lane has no word here
			case acc < 0:
				acc = placed[j]
			default:
				acc = p.blendWords(acc, placed[j], w, from)
			}
		}
		p.Store(acc, 0, chunk, Mem{0, L * chunk})
	}
	return p.finish(inputs(b, chunk), map[int]Value{0: ZipWant(b, w, chunk)})
}

// RotateUnzip builds the unzip of b lanes of w-byte words by 32-byte
// chunks per lane by rotation (see RotateFits).
func RotateUnzip(b, w int) (*Prog, error) {
	if !RotateFits(b, w) {
		return nil, fmt.Errorf("vec: no rotating unzip of %d lanes of %d-byte words", b, w)
	}
	const chunk = 2 * LaneBytes
	p := NewProg(chunk)
	x, reg := rotatePlaces(b, w)
	ilv := make([]int, b)
	for L := range b {
		ilv[L] = p.Load(Mem{0, L * chunk}, chunk)
	}
	for j := range b {
		acc := ilv[reg[j][0]]
		for L := range b {
			from := make([]bool, len(reg[j]))
			for k, r := range reg[j] {
				from[k] = r == L && r != reg[j][0]
			}
			if slices.Contains(from, true) {
				acc = p.blendWords(acc, ilv[L], w, from)
			}
		}
		// Word k of acc is word x[j][k] of lane j: put each in its place.
		idx := make([]int, len(x[j]))
		for k, at := range x[j] {
			idx[at] = k
		}
		p.Store(p.permuteWords(acc, w, idx), 0, chunk, Mem{j, 0})
	}
	return p.finish(inputs(1, b*chunk), UnzipWant(b, w, chunk))
}
