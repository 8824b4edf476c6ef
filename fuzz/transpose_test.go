package fuzz

import (
	"bytes"
	"slices"
	"testing"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/verify"
)

// FuzzTranspose gives TransposeBytes and Transpose an arbitrary shape (up
// to 8 dims of up to 7, 4096 elements), perm and element size (1 to 16
// bytes): a valid call is handled and equals the naive transpose, through
// the byte API and, for 4-byte elements, a Plan; an invalid one is
// handled with an error wrapping exactly one sentinel, and leaves dst
// untouched.
func FuzzTranspose(f *testing.F) {
	f.Add([]byte{1, 4, 4, 3, 5, 7}, []byte{0, 3, 4, 1, 5, 2}, uint8(2))
	f.Add([]byte{3, 5, 4, 7, 4}, []byte{0, 2, 4, 1, 3}, uint8(1))
	f.Add([]byte{2, 5, 2, 3, 2, 3}, []byte{0, 1, 3, 2, 4, 5}, uint8(4))
	f.Add([]byte{2, 1, 3, 3, 1, 2, 1}, []byte{6, 0, 2, 1, 4, 3, 5}, uint8(3))
	f.Add([]byte{7, 6, 5, 4, 3, 2}, []byte{5, 3, 1, 0, 4, 2}, uint8(8))
	f.Add([]byte{4, 4, 6, 6}, []byte{2, 3, 0, 1}, uint8(15)) // 16-byte elements: a 16x36 matrix of 16-byte words
	f.Fuzz(func(t *testing.T, dims, order []byte, es uint8) {
		if len(dims) > 8 {
			dims = dims[:8]
		}
		shape := make([]int, len(dims))
		n := 1
		for k, d := range dims {
			if shape[k] = int(d % 8); n*shape[k] > 4096 {
				shape[k] = 1
			}
			n *= shape[k]
		}
		perm := make([]int, len(order))
		for k, d := range order {
			perm[k] = int(d % 9)
		}
		size := int(es%16) + 1
		src := fill(dims, n*size)
		dst := make([]byte, n*size)
		handled, err := bs.TransposeBytes(dst, src, size, shape, perm)
		valid := len(perm) == len(shape)
		for k := range perm {
			valid = valid && perm[k] < len(perm) && !slices.Contains(perm[:k], perm[k])
		}
		switch {
		case !handled:
			t.Fatalf("shape %v perm %v: not handled", shape, perm)
		case !valid && (err == nil || verify.Wrapped(err) != 1):
			t.Fatalf("shape %v perm %v: an invalid perm gave %v", shape, perm, err)
		case !valid && !bytes.Equal(dst, make([]byte, len(dst))):
			t.Fatalf("shape %v perm %v: an invalid call wrote dst", shape, perm)
		case !valid:
			return
		case err != nil:
			t.Fatalf("shape %v perm %v: %v", shape, perm, err)
		}
		want := make([][]byte, n)
		elems := make([][]byte, n)
		for i := range elems {
			elems[i] = src[i*size : (i+1)*size]
		}
		ref.Transpose(want, elems, shape, perm)
		if !bytes.Equal(dst, bytes.Join(want, nil)) {
			pl, _ := bs.NewTransposePlan(shape, perm, size, 0)
			t.Fatalf("shape %v perm %v: %v differs from the naive transpose", shape, perm, pl)
		}
		if size != 4 {
			return
		}
		pl, err := bs.NewTransposePlan(shape, perm, size, 0)
		if err != nil {
			t.Fatalf("shape %v perm %v: NewTransposePlan: %v", shape, perm, err)
		}
		clear(dst)
		if err := pl.Run(dst, src); err != nil || !bytes.Equal(dst, bytes.Join(want, nil)) {
			t.Fatalf("shape %v perm %v: %v: Run gave %v or a wrong output", shape, perm, pl, err)
		}
	})
}

// FuzzONNXParams: any attributes either give Params the op accepts, with
// the order of one of ONNX's exact modes, or an error wrapping exactly one
// sentinel.
func FuzzONNXParams(f *testing.F) {
	f.Add(int64(1), int64(12), int64(270), int64(480), int64(2), "CRD", true)
	f.Add(int64(1), int64(3), int64(224), int64(224), int64(4), "", false)
	f.Add(int64(-1), int64(3), int64(1)<<40, int64(224), int64(-4), "dcr", false)
	f.Add(int64(1), int64(2), int64(4), int64(6), int64(2), "CRD", false)
	f.Add(int64(1), int64(2), int64(4), int64(6), int64(2), "pixel_unshuffle", false)
	f.Fuzz(func(t *testing.T, n, c, h, w, b int64, mode string, d2s bool) {
		op := bs.OpSpaceToDepth
		if d2s {
			op = bs.OpDepthToSpace
		}
		p, err := bs.ONNXParams(op, []int64{n, c, h, w}, b, mode)
		if err != nil {
			if matched := verify.Wrapped(err); matched != 1 {
				t.Fatalf("%v %d %d %d %d b=%d %q: error %v wraps %d sentinels", op, n, c, h, w, b, mode, err, matched)
			}
			return
		}
		if want, ok := map[string]bs.Order{"": bs.DCR, "DCR": bs.DCR, "CRD": bs.CRD}[mode]; !ok || p.Order != want {
			t.Fatalf("%v mode %q: accepted as %v", op, mode, p.Order)
		}
		if _, err := bs.Describe(op, p, 1); err != nil {
			t.Fatalf("%v %+v: accepted by ONNXParams, rejected by the op: %v", op, p, err)
		}
	})
}
