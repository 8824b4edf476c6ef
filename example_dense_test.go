package blockshuffle_test

import (
	"fmt"

	"github.com/x448/float16"

	"github.com/blockshuffle/blockshuffle"
)

// Number is a tensor library's own element constraint. Its types are all
// blockshuffle Elements, so a function constrained by it can call
// blockshuffle's typed functions directly; float16.Float16 and a bfloat16
// defined over uint16 are covered by ~uint16.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// Dense is a generic NCHW tensor with a typed backing slice.
type Dense[T Number] struct {
	shape [4]int
	data  []T
}

func (t *Dense[T]) Data() []T     { return t.data }
func (t *Dense[T]) Shape() [4]int { return t.shape }

// PixelShuffle is PyTorch's pixel_shuffle (DepthToSpace, CRD, NCHW) writing
// into out, whose buffer is reused when it is large enough: in a model run
// over and over, nothing is allocated after the first call.
func PixelShuffle[T Number](out, t *Dense[T], r int) error {
	s := t.Shape()
	p := blockshuffle.Params{N: s[0], C: s[1], H: s[2], W: s[3], BlockSize: r, Order: blockshuffle.CRD}
	dims, err := p.DepthToSpaceDims()
	if err != nil {
		return err
	}
	n := len(t.Data())
	if cap(out.data) < n {
		out.data = make([]T, n)
	}
	if err := blockshuffle.DepthToSpace(out.data[:n], t.Data(), p); err != nil {
		return err
	}
	out.shape, out.data = dims.Shape(p.Layout), out.data[:n]
	return nil
}

// A Dense[T] with Data() []T passes its slice straight through; the same
// generic code serves float32, float16 and every other Number.
func Example_genericDense() {
	// Two output channels of one 2x2 block each: pixel_shuffle (CRD) takes
	// channels 0-3 for the first and 4-7 for the second.
	x := &Dense[float32]{shape: [4]int{1, 8, 1, 1}, data: []float32{1, 2, 3, 4, 5, 6, 7, 8}}
	var y Dense[float32]
	if err := PixelShuffle(&y, x, 2); err != nil {
		panic(err)
	}
	fmt.Println(y.Shape(), y.Data())

	h := &Dense[float16.Float16]{shape: [4]int{1, 4, 1, 1}}
	for _, v := range []float32{0.5, -1, 2, 65504} {
		h.data = append(h.data, float16.Fromfloat32(v))
	}
	var hy Dense[float16.Float16]
	if err := PixelShuffle(&hy, h, 2); err != nil {
		panic(err)
	}
	fmt.Println(hy.Shape(), hy.Data()[3].Float32())

	err := PixelShuffle(&hy, h, 3)
	fmt.Println(err)
	// Output:
	// [1 2 2 2] [1 2 3 4 5 6 7 8]
	// [1 1 2 2] 65504
	// blockshuffle: DepthToSpace: C = 4 is not a multiple of BlockSize*BlockSize = 3*3: shape not divisible by the block size
}
