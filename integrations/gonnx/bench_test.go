package gonnx_test

import (
	"testing"

	"github.com/advancedclimatesystems/gonnx"

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
			b.Run(c.name+"/"+v.name, func(b *testing.B) {
				m, err := gonnx.NewModelFromBytes(v.model)
				if err != nil {
					b.Fatal(err)
				}
				if v.install {
					bsonnx.Install(m)
				}
				b.SetBytes(int64(4 * x.Size()))
				for b.Loop() {
					if _, err := m.Run(gonnx.Tensors{"x": x}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
