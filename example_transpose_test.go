package blockshuffle_test

import (
	"fmt"

	"github.com/x448/float16"

	"github.com/blockshuffle/blockshuffle"
)

// PyTorch exports pixel_unshuffle(x, 2) on a [1, 3, 4, 6] tensor as
// Reshape [1, 3, 2, 2, 3, 2], Transpose perm [0, 1, 3, 5, 2, 4], Reshape
// [1, 12, 2, 3]. MatchTranspose sees SpaceToDepth in the Transpose.
func ExampleMatchTranspose() {
	op, p, ok := blockshuffle.MatchTranspose([]int{1, 3, 2, 2, 3, 2}, []int{0, 1, 3, 5, 2, 4})
	fmt.Println(ok, op, p.Order, p.Layout)
	fmt.Printf("N=%d C=%d H=%d W=%d BlockSize=%d\n", p.N, p.C, p.H, p.W, p.BlockSize)
	_, _, ok = blockshuffle.MatchTranspose([]int{2, 3, 5}, []int{2, 0, 1}) // a 6x5 matrix transpose
	fmt.Println(ok)
	// Output:
	// true SpaceToDepth CRD NCHW
	// N=1 C=3 H=4 W=6 BlockSize=2
	// false
}

// A host's Transpose kernel gains the fast path in three lines; here on the
// rank-5 form of TensorFlow's depth_to_space (N left out) of float16 data:
//
//	if handled, err := blockshuffle.Transpose(dst, src, shape, perm); handled {
//		return err
//	}
//	// ... the host's own transpose ...
func ExampleTranspose() {
	shape := []int{1, 2, 2, 2, 1} // H, W, b, b, C'
	perm := []int{0, 2, 1, 3, 4}  // H, b, W, b, C'
	src := make([]float16.Float16, 8)
	for i := range src {
		src[i] = float16.Fromfloat32(float32(i))
	}
	dst := make([]float16.Float16, len(src))
	handled, err := blockshuffle.Transpose(dst, src, shape, perm)
	fmt.Println(handled, err, dst)
	// Output:
	// true <nil> [0 1 4 5 2 3 6 7]
}

// An ONNX interpreter maps a node to Params in one call: the input's dims,
// the blocksize attribute and the mode attribute ("" when absent).
func ExampleONNXParams() {
	p, err := blockshuffle.ONNXParams(blockshuffle.OpDepthToSpace, []int64{1, 12, 270, 480}, 2, "CRD")
	if err != nil {
		panic(err)
	}
	out, _ := p.DepthToSpaceDims()
	fmt.Println(p.Order, out.Shape(p.Layout))
	_, err = blockshuffle.ONNXParams(blockshuffle.OpDepthToSpace, []int64{1, 10, 270, 480}, 2, "")
	fmt.Println(err)
	// Output:
	// CRD [1 3 540 960]
	// blockshuffle: DepthToSpace: C = 10 is not a multiple of BlockSize*BlockSize = 2*2: shape not divisible by the block size
}

// An image enters a model HWC to CHW: a transpose that is no block
// shuffle, planned once and run on every frame.
func ExampleNewTransposePlan() {
	shape := []int{2, 3, 3} // H, W, C of a 2x3 RGB image
	perm := []int{2, 0, 1}  // C, H, W
	pl, err := blockshuffle.NewTransposePlan(shape, perm, 1, 0)
	if err != nil {
		panic(err)
	}
	src := []uint8{
		10, 11, 12, 20, 21, 22, 30, 31, 32,
		40, 41, 42, 50, 51, 52, 60, 61, 62,
	}
	dst := make([]uint8, len(src))
	err = blockshuffle.RunPlan(pl, dst, src)
	fmt.Println(err, dst)
	// pl.String() names the tier and how it moves the tensor, e.g.
	// "avx2: transpose of dims [6 3] by [1 0], 1-byte words: 6x3 matrices
	// into 3x6, by Go tiles of 16".

	// Output:
	// <nil> [10 20 30 40 50 60 11 21 31 41 51 61 12 22 32 42 52 62]
}
