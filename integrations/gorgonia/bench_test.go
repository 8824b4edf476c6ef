package gorgonia_test

import (
	"testing"

	"gorgonia.org/tensor"

	bsg "github.com/blockshuffle/blockshuffle/integrations/gorgonia"
)

// benchShapes are Transposes as graphs write them: DepthToSpace's rank-6
// forms (YOLO's reorg, ESPCN's output layer, a b=3 image block), and the
// transposes of issue 32's table, float32 unless dt says otherwise.
var benchShapes = []struct {
	name        string
	shape, perm []int
	dt          tensor.Dtype
}{
	{"yolo_1x256x13x13_b2_DCR", []int{1, 2, 2, 64, 13, 13}, []int{0, 3, 4, 1, 5, 2}, tensor.Float32},
	{"espcn_1x12x270x480_b2_CRD", []int{1, 3, 2, 2, 270, 480}, []int{0, 1, 4, 2, 5, 3}, tensor.Float32},
	{"1x27x224x224_b3_DCR", []int{1, 3, 3, 3, 224, 224}, []int{0, 3, 4, 1, 5, 2}, tensor.Float32},
	{"nchw2nhwc_1x3x224x224", []int{1, 3, 224, 224}, []int{0, 2, 3, 1}, tensor.Float32},
	{"nchw2nhwc_1x64x56x56", []int{1, 64, 56, 56}, []int{0, 2, 3, 1}, tensor.Float32},
	{"nhwc2nchw_1x224x224x3", []int{1, 224, 224, 3}, []int{0, 3, 1, 2}, tensor.Float32},
	{"nhwc2nchw_1x480x640x3_uint8", []int{1, 480, 640, 3}, []int{0, 3, 1, 2}, tensor.Uint8},
	{"heads_1x128x12x64", []int{1, 128, 12, 64}, []int{0, 2, 1, 3}, tensor.Float32},
	{"kT_1x12x128x64", []int{1, 12, 128, 64}, []int{0, 1, 3, 2}, tensor.Float32},
	{"matrix_1024x1024", []int{1024, 1024}, []int{1, 0}, tensor.Float32},
	{"matrix_4096x3", []int{4096, 3}, []int{1, 0}, tensor.Float32},
	{"rank6_4x6x8x5x7x3", []int{4, 6, 8, 5, 7, 3}, []int{5, 3, 1, 0, 4, 2}, tensor.Float32},
	{"nchw2nhwc_1x64x270x480", []int{1, 64, 270, 480}, []int{0, 2, 3, 1}, tensor.Float32},
}

// BenchmarkTranspose compares gorgonia's tensor.Transpose with the
// adapter's Transpose allocating its result, TransposeInto reusing one,
// and copy() of the same bytes.
func BenchmarkTranspose(b *testing.B) {
	for _, c := range benchShapes {
		n := 1
		for _, d := range c.shape {
			n *= d
		}
		x := tensor.New(tensor.WithShape(c.shape...), tensor.Of(c.dt))
		out := tensor.New(tensor.WithShape(n), tensor.Of(c.dt))
		run := func(name string, f func() error) {
			b.Run(c.name+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(int(c.dt.Size()) * n))
				for b.Loop() {
					if err := f(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		run("gorgonia", func() error { _, err := tensor.Transpose(x, c.perm...); return err })
		run("blockshuffle_alloc", func() error { _, err := bsg.Transpose(x, c.perm...); return err })
		run("blockshuffle_reuse", func() error { return bsg.TransposeInto(out, x, c.perm...) })
		run("copy", func() error { return tensor.Copy(out, x) })
	}
}
