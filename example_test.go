package blockshuffle_test

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/x448/float16"

	"github.com/blockshuffle/blockshuffle"
)

// A 2x2 block turns 4 channels of 1x2 pixels into one channel of 2x4.
func ExampleDepthToSpace() {
	src := []float32{
		1, 2, // channel 0
		3, 4, // channel 1
		5, 6, // channel 2
		7, 8, // channel 3
	}
	dst := make([]float32, len(src))
	p := blockshuffle.Params{N: 1, C: 4, H: 1, W: 2, BlockSize: 2} // DCR, NCHW
	if err := blockshuffle.DepthToSpace(dst, src, p); err != nil {
		panic(err)
	}
	fmt.Println(dst[:4])
	fmt.Println(dst[4:])
	// Output:
	// [1 3 2 4]
	// [5 7 6 8]
}

// SpaceToDepth undoes DepthToSpace. float16 data moves as raw bits, so
// -0 and NaN payloads survive unchanged.
func ExampleSpaceToDepth_float16() {
	image := []float16.Float16{ // 1 channel, 2x2
		float16.Fromfloat32(0.5), float16.Fromfloat32(float32(math.Copysign(0, -1))),
		float16.Frombits(0x7c01), float16.Fromfloat32(-2), // 0x7c01 is a signalling NaN
	}
	depth := make([]float16.Float16, 4)
	p := blockshuffle.Params{N: 1, C: 1, H: 2, W: 2, BlockSize: 2, Order: blockshuffle.CRD}
	if err := blockshuffle.SpaceToDepth(depth, image, p); err != nil {
		panic(err)
	}
	for _, v := range depth {
		fmt.Printf("%#04x ", v.Bits())
	}
	fmt.Println()
	// Output:
	// 0x3800 0x8000 0x7c01 0xc000
}

// PyTorch's pixel_shuffle on channels-last data is CRD on NHWC: each pixel's
// four channels become a 2x2 block of one channel.
func ExampleDepthToSpace_nhwc() {
	src := []uint8{ // 1x1 image of 2 pixels, 4 channels each
		10, 11, 12, 13,
		20, 21, 22, 23,
	}
	dst := make([]uint8, len(src))
	p := blockshuffle.Params{N: 1, C: 4, H: 1, W: 2, BlockSize: 2, Order: blockshuffle.CRD, Layout: blockshuffle.NHWC}
	if err := blockshuffle.DepthToSpace(dst, src, p); err != nil {
		panic(err)
	}
	fmt.Println(dst[:4]) // output row 0: 2x4 pixels of 1 channel
	fmt.Println(dst[4:]) // output row 1
	// Output:
	// [10 11 20 21]
	// [12 13 22 23]
}

// The byte API takes any element size, here 3-byte elements.
func ExampleDepthToSpaceBytes() {
	src := []byte("a0,a1,b0,b1,c0,c1,d0,d1,") // 4 channels of 1x2 elements
	dst := make([]byte, len(src))
	p := blockshuffle.Params{N: 1, C: 4, H: 1, W: 2, BlockSize: 2}
	if err := blockshuffle.DepthToSpaceBytes(dst, src, 3, p); err != nil {
		panic(err)
	}
	fmt.Println(string(dst[:12])) // output row 0
	fmt.Println(string(dst[12:])) // output row 1
	// Output:
	// a0,b0,a1,b1,
	// c0,d0,c1,d1,
}

// An ONNX interpreter can pass the node's attributes straight through.
func ExampleParseOrder() {
	mode := "CRD" // the DepthToSpace node's "mode" attribute
	order, err := blockshuffle.ParseOrder(mode)
	if err != nil {
		panic(err)
	}
	p := blockshuffle.Params{N: 1, C: 8, H: 2, W: 3, BlockSize: 2, Order: order}
	out, err := p.DepthToSpaceDims()
	fmt.Println(order, out.Shape(p.Layout), err)
	// Output: CRD [1 2 4 6] <nil>
}

// Errors name the offending values and wrap a sentinel for errors.Is.
func ExampleDepthToSpace_error() {
	src := make([]float32, 1*6*2*2)
	dst := make([]float32, len(src))
	err := blockshuffle.DepthToSpace(dst, src, blockshuffle.Params{N: 1, C: 6, H: 2, W: 2, BlockSize: 2})
	fmt.Println(err)
	fmt.Println(errors.Is(err, blockshuffle.ErrNotDivisible))
	// Output:
	// blockshuffle: DepthToSpace: C = 6 is not a multiple of BlockSize*BlockSize = 2*2: shape not divisible by the block size
	// true
}

// In-place calls are refused with ErrOverlap and leave the data as it was:
// a block shuffle moves almost every element onto a place another element
// has still to be read from. Keep a second buffer and swap the two.
func ExampleDepthToSpace_inPlace() {
	x := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	p := blockshuffle.Params{N: 1, C: 4, H: 1, W: 2, BlockSize: 2}
	err := blockshuffle.DepthToSpace(x, x, p)
	fmt.Println(errors.Is(err, blockshuffle.ErrOverlap), x)

	scratch := make([]float32, len(x)) // allocated once, reused by every call
	if err := blockshuffle.DepthToSpace(scratch, x, p); err != nil {
		panic(err)
	}
	x, scratch = scratch, x // x holds the result; the old input is the next scratch
	fmt.Println(x, len(scratch))
	// Output:
	// true [1 2 3 4 5 6 7 8]
	// [1 3 2 4 5 7 6 8] 8
}

// Describe tells how a call is served on this machine: the tier, the plan
// the call splits into, the goroutines, and the kernel its rows go to.
// Logging it for a model's shapes shows which ones run SIMD kernels.
func ExampleDescribe() {
	// ESPCN x4's output, float32, on one goroutine: a call that may use
	// several is cut into pieces, as many as the machine's caches and
	// cores make worth it.
	p := blockshuffle.Params{N: 1, C: 48, H: 128, W: 128, BlockSize: 4, Workers: 1}
	route, err := blockshuffle.Describe(blockshuffle.OpDepthToSpace, p, 4)
	if err != nil {
		panic(err)
	}
	// The tier and kernel depend on the CPU (avx2: ...; zip4x4AVX2 on a
	// Haswell); the plan of rows this long does not. (Rows shorter than a
	// vector may take a one-pass plan of the tier's own.)
	tier, rest, _ := strings.Cut(route, ": ")
	plan, _, _ := strings.Cut(rest, ";")
	fmt.Println(tier == blockshuffle.Tier())
	fmt.Println(plan)
	// Output:
	// true
	// interleave, 1536 groups of 1 row of 128 pixels of 4×1 4-byte elements in 4 kernel calls
}

// An interpreter plans each DepthToSpace node once, when it loads the
// model, and runs the plan on every inference: a run checks only the
// slices' lengths and overlap, and allocates nothing.
func ExampleNewPlan() {
	// The node: input [1, 8, 1, 2], blocksize 2, mode "CRD".
	p, err := blockshuffle.ONNXParams(blockshuffle.OpDepthToSpace, []int64{1, 8, 1, 2}, 2, "CRD")
	if err != nil {
		panic(err)
	}
	plan, err := blockshuffle.NewPlan(blockshuffle.OpDepthToSpace, p, 4) // float32
	if err != nil {
		panic(err)
	}
	out := make([]float32, 16)
	for inference := range 2 {
		in := make([]float32, 16)
		for i := range in {
			in[i] = float32(100*inference + i)
		}
		if err := blockshuffle.RunPlan(plan, out, in); err != nil {
			panic(err)
		}
		fmt.Println(out[:8])
	}
	fmt.Println(blockshuffle.RunPlan(plan, out, make([]float32, 15)))
	// Output:
	// [0 2 1 3 4 6 5 7]
	// [100 102 101 103 104 106 105 107]
	// blockshuffle: DepthToSpace: len(src) = 15, want 16 for N=1 C=8 H=1 W=2: slice length does not match the shape
}
