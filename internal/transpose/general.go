package transpose

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// MaxRank is the highest rank General plans: the canonical form's arrays
// hold one more dim, the words of an element.
const MaxRank = maxRank - 1

// Check validates a transpose of a row-major tensor of the given shape by
// perm (output dim k is input dim perm[k]) with elements of elem bytes, of
// rank at most MaxRank, and returns its size in bytes. Its errors wrap
// shape's sentinels: ErrRank, ErrElemSize, ErrPerm, ErrNegativeDim,
// ErrOverflow.
func Check(size, perm []int, elem int) (bytes int, err error) {
	fail := func(sentinel error, format string, args ...any) (int, error) {
		return 0, fmt.Errorf("blockshuffle: Transpose of shape %v by perm %v: %s: %w", size, perm, fmt.Sprintf(format, args...), sentinel)
	}
	switch {
	case len(size) > MaxRank:
		return fail(shape.ErrRank, "%d dims, at most %d", len(size), MaxRank)
	case elem < 1:
		return fail(shape.ErrElemSize, "elemSize = %d", elem)
	case len(perm) != len(size):
		return fail(shape.ErrPerm, "%d dims in perm, %d in shape", len(perm), len(size))
	case !isPermutation(perm):
		return fail(shape.ErrPerm, "not a permutation of 0..%d", len(perm)-1)
	case slices.ContainsFunc(size, func(d int) bool { return d < 0 }):
		return fail(shape.ErrNegativeDim, "a dim below 0")
	}
	n, ok := shape.Count(size...)
	if ok {
		bytes, ok = shape.Count(n, elem)
	}
	if !ok {
		return fail(shape.ErrOverflow, "more than %d bytes", math.MaxInt)
	}
	return bytes, nil
}

// isPermutation reports whether perm, of at most maxRank entries, is a
// permutation of 0..len(perm)-1.
func isPermutation(perm []int) bool {
	if len(perm) > maxRank {
		return false
	}
	var seen [maxRank]bool
	for _, d := range perm {
		if d < 0 || d >= len(perm) || seen[d] {
			return false
		}
		seen[d] = true
	}
	return true
}

// A General is the plan of any transpose Check accepts of rank up to
// MaxRank, in canonical form (dims of size 1 dropped, dims that stay
// adjacent merged) twice over: moving words of the widest size (8, 4 or 2
// bytes) that divides the element, and moving bytes, for slices whose
// addresses that word size does not divide. Where the last dim stays last
// it copies runs; elsewhere it transposes 2-D tiles between the dim that is
// contiguous in src and the one contiguous in dst, the other dims as outer
// loops.
type General struct {
	bytes int
	words wordForm // words of the widest size dividing the element
	raw   wordForm // the same in bytes
}

type wordForm struct {
	word int // bytes a word
	canonical
}

// NewGeneral plans a transpose that Check accepted, of rank at most
// MaxRank.
func NewGeneral(size, perm []int, elem, bytes int) General {
	g := General{bytes: bytes}
	if bytes == 0 {
		return g
	}
	word := 1
	for _, w := range []int{8, 4, 2} {
		if elem%w == 0 {
			word = w
			break
		}
	}
	g.words = newWordForm(size, perm, elem, word)
	g.raw = newWordForm(size, perm, elem, 1)
	return g
}

// newWordForm is the canonical form of the transpose moving words of word
// bytes: the input gains a last dim of elem/word words, which stays last.
func newWordForm(size, perm []int, elem, word int) wordForm {
	var s, p [maxRank]int
	n := copy(s[:], size)
	copy(p[:], perm)
	s[n], p[n] = elem/word, n
	return wordForm{word, canon(s[:n+1], p[:n+1])}
}

// Bytes is the size in bytes of the tensors.
func (g *General) Bytes() int { return g.bytes }

// Run transposes src into dst, each g.Bytes() long; they must not overlap.
func (g *General) Run(dst, src []byte) {
	if g.bytes == 0 {
		return
	}
	f := &g.words
	if f.word > 1 && (uintptr(unsafe.Pointer(&dst[0]))|uintptr(unsafe.Pointer(&src[0])))%uintptr(f.word) != 0 {
		f = &g.raw
	}
	switch f.word {
	case 8:
		run(f, engine.Cast[uint64](dst), engine.Cast[uint64](src))
	case 4:
		run(f, engine.Cast[uint32](dst), engine.Cast[uint32](src))
	case 2:
		run(f, engine.Cast[uint16](dst), engine.Cast[uint16](src))
	default:
		run(f, dst, src)
	}
}

// String says how the plan moves the tensors.
func (g *General) String() string {
	if g.bytes == 0 {
		return "transpose: an empty tensor"
	}
	f := &g.words
	dims, perm := f.dims[:f.n], f.perm[:f.n]
	switch {
	case f.n <= 1:
		return fmt.Sprintf("transpose: a copy of %d bytes", g.bytes)
	case perm[f.n-1] == f.n-1:
		return fmt.Sprintf("transpose of dims %v by %v, %d-byte words: runs of %d words", dims, perm, f.word, dims[f.n-1])
	}
	rows, cols := f.dims[f.perm[f.n-1]], f.dims[f.n-1]
	return fmt.Sprintf("transpose of dims %v by %v, %d-byte words: %dx%d matrices into %dx%d, in tiles of %d", dims, perm, f.word, rows, cols, cols, rows, tile)
}

// tile is the side, in words, of the 2-D tiles: 16 rows of up to 128
// bytes read and written stay in L1.
const tile = 16

// run moves the words of f from src to dst.
func run[T any](f *wordForm, dst, src []T) {
	n := f.n
	if n <= 1 {
		copy(dst, src)
		return
	}
	// Strides in words: of each input dim in src, and of each output dim
	// in dst; at[j] is input dim j's place in the output.
	var in, out, at [maxRank]int
	in[n-1], out[n-1] = 1, 1
	for j := n - 2; j >= 0; j-- {
		in[j] = in[j+1] * f.dims[j+1]
		out[j] = out[j+1] * f.dims[f.perm[j+1]]
	}
	for k := range n {
		at[f.perm[k]] = k
	}
	// The loops outside the innermost work, in output order.
	var count, srcStep, dstStep [maxRank]int
	m := 0
	inner := f.perm[n-1] // contiguous in dst
	for k := range n {
		j := f.perm[k]
		if j == inner || j == n-1 {
			continue
		}
		count[m], srcStep[m], dstStep[m] = f.dims[j], in[j], out[k]
		m++
	}
	var body func(d, s int)
	if inner == n-1 { // the last dim stays last: runs
		runLen := f.dims[n-1]
		body = func(d, s int) { copy(dst[d:d+runLen], src[s:s+runLen]) }
	} else {
		rows, cols, rowStride, colStride := f.dims[inner], f.dims[n-1], in[inner], out[at[n-1]]
		body = func(d, s int) { transpose2D(dst[d:], src[s:], rows, cols, rowStride, colStride) }
	}
	var idx [maxRank]int
	d, s := 0, 0
	for {
		body(d, s)
		k := m - 1
		for ; k >= 0; k-- {
			idx[k]++
			d, s = d+dstStep[k], s+srcStep[k]
			if idx[k] < count[k] {
				break
			}
			d, s = d-dstStep[k]*count[k], s-srcStep[k]*count[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// transpose2D moves a matrix of rows x cols words: word (r, c) from
// src[r*rowStride + c] to dst[c*colStride + r], tile by tile.
func transpose2D[T any](dst, src []T, rows, cols, rowStride, colStride int) {
	for r0 := 0; r0 < rows; r0 += tile {
		r1 := min(r0+tile, rows)
		for c0 := 0; c0 < cols; c0 += tile {
			for c := c0; c < min(c0+tile, cols); c++ {
				to := dst[c*colStride+r0 : c*colStride+r1]
				from := src[r0*rowStride+c:]
				for i := range to {
					to[i] = from[i*rowStride]
				}
			}
		}
	}
}
