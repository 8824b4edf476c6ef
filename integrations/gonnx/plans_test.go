package gonnx

import (
	"testing"

	"github.com/advancedclimatesystems/gonnx/onnx"
	"gorgonia.org/tensor"

	"github.com/blockshuffle/blockshuffle"
	bsg "github.com/blockshuffle/blockshuffle/integrations/gorgonia"
)

// TestNodePlans: a node's plan is made once and kept while its input keeps
// its shape and dtype, and made again when either changes; nodes do not
// share plans.
func TestNodePlans(t *testing.T) {
	n := &nodePlans{m: map[*onnx.NodeProto]nodePlan{}}
	a, b := &onnx.NodeProto{}, &onnx.NodeProto{}
	o := bsg.Options{BlockSize: 2}
	x := tensor.New(tensor.WithShape(1, 8, 2, 3), tensor.Of(tensor.Float32))
	get := func(node *onnx.NodeProto, x *tensor.Dense) *bsg.Plan {
		t.Helper()
		pl, err := n.get(node, blockshuffle.OpDepthToSpace, x, o)
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	first := get(a, x)
	if get(a, x) != first {
		t.Error("a node's plan was made again for the same input")
	}
	if get(b, x) == first {
		t.Error("two nodes share a plan")
	}
	if get(a, tensor.New(tensor.WithShape(1, 8, 3, 2), tensor.Of(tensor.Float32))) == first {
		t.Error("a new shape kept the old plan")
	}
	if get(a, tensor.New(tensor.WithShape(1, 8, 3, 2), tensor.Of(tensor.Int16))) == first {
		t.Error("a new dtype kept the old plan")
	}
}
