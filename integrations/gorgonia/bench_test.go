package gorgonia_test

import (
	"testing"

	"gorgonia.org/tensor"

	bsg "github.com/blockshuffle/blockshuffle/integrations/gorgonia"
)

// benchShapes are DepthToSpace Transposes as graphs write them (ONNX's
// rank-6 forms) on float32: YOLO's reorg, ESPCN's output layer, and a b=3
// image block.
var benchShapes = []struct {
	name        string
	shape, perm []int
}{
	{"yolo_1x256x13x13_b2_DCR", []int{1, 2, 2, 64, 13, 13}, []int{0, 3, 4, 1, 5, 2}},
	{"espcn_1x12x270x480_b2_CRD", []int{1, 3, 2, 2, 270, 480}, []int{0, 1, 4, 2, 5, 3}},
	{"1x27x224x224_b3_DCR", []int{1, 3, 3, 3, 224, 224}, []int{0, 3, 4, 1, 5, 2}},
}

// BenchmarkTranspose compares gorgonia's tensor.Transpose with the adapter's
// Transpose allocating its result and TransposeInto reusing one.
func BenchmarkTranspose(b *testing.B) {
	for _, c := range benchShapes {
		n := 1
		for _, d := range c.shape {
			n *= d
		}
		x := tensor.New(tensor.WithShape(c.shape...), tensor.WithBacking(make([]float32, n)))
		out := tensor.New(tensor.WithShape(n), tensor.Of(tensor.Float32))
		run := func(name string, f func() error) {
			b.Run(c.name+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(4 * n))
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
	}
}
