package gonnx_test

import (
	"testing"

	"github.com/advancedclimatesystems/gonnx"
	"gorgonia.org/tensor"

	bsonnx "github.com/blockshuffle/blockshuffle/integrations/gonnx"
)

// BenchmarkModelRun times gonnx's Model.Run on float32 DepthToSpace three
// ways: gonnx's own Reshape/Transpose/Reshape graph, the same graph with
// its Transpose routed through blockshuffle, and one DepthToSpace node.
func BenchmarkModelRun(b *testing.B) {
	for k, c := range cases {
		single, graph, _ := d2sGraph(b, c.dims, c.b, c.mode)
		x := input(c.dims, uint64(k))
		for _, v := range []struct {
			name    string
			model   []byte
			install bool
		}{
			{"gonnx_graph", graph, false},
			{"routed_graph", graph, true},
			{"node", single, true},
		} {
			b.Run(c.name+"/"+v.name, func(b *testing.B) { benchModel(b, v.model, v.install, x) })
		}
	}
}

// BenchmarkTransposeGraph times gonnx's Model.Run on a graph of Transposes
// (TestTransposeGraph's: NCHW to NHWC, heads split, K transposed, heads
// merged, HWC to CHW) of float32 1x64x56x56, with gonnx's own Transpose
// and with the adapter's.
func BenchmarkTransposeGraph(b *testing.B) {
	const c, h, w, heads = 64, 56, 56, 8
	model := transposeGraph(b, c, h, w, heads)
	x := input([]int64{1, c, h, w}, 7)
	for _, v := range []struct {
		name    string
		install bool
	}{{"gonnx", false}, {"adapter", true}} {
		b.Run(v.name, func(b *testing.B) { benchModel(b, model, v.install, x) })
	}
}

// benchModel times Model.Run of model bytes on float32 input x, with the
// adapter installed if asked.
func benchModel(b *testing.B, model []byte, install bool, x *tensor.Dense) {
	m, err := gonnx.NewModelFromBytes(model)
	if err != nil {
		b.Fatal(err)
	}
	if install {
		bsonnx.Install(m, 0)
	}
	b.SetBytes(int64(4 * x.Size()))
	for b.Loop() {
		if _, err := m.Run(gonnx.Tensors{"x": x}); err != nil {
			b.Fatal(err)
		}
	}
}
