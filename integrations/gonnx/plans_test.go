package gonnx

import (
	"errors"
	"testing"

	"github.com/advancedclimatesystems/gonnx"
	"github.com/advancedclimatesystems/gonnx/onnx"
	"github.com/advancedclimatesystems/gonnx/ops"
	"github.com/advancedclimatesystems/gonnx/ops/opset13"
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
		pl, err := n.get(node, x, o, nil, func() (*bsg.Plan, error) { return bsg.NewPlan(blockshuffle.OpDepthToSpace, x.Shape(), x.Dtype(), o) })
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

// TestTransposePlans: a Transpose node plans once, on its first run, and
// keeps the plan while its input keeps its shape and dtype.
func TestTransposePlans(t *testing.T) {
	getter := Getter(13, 0, nil)
	plans := func() *nodePlans { // the getter's, reached through an operator it makes
		o, err := getter("DepthToSpace")
		if err != nil {
			t.Fatal(err)
		}
		return o.(*depthSpace).plans
	}()
	node := transposeNodeProto(0, 2, 1)
	op := &transposeOp{workers: 0, plans: plans}
	op.node, op.perm = node, []int{0, 2, 1}
	x := tensor.New(tensor.WithShape(2, 3, 4), tensor.Of(tensor.Float32))
	if _, err := op.Apply([]tensor.Tensor{x}); err != nil {
		t.Fatal(err)
	}
	first := plans.m[node].plan
	if _, err := op.Apply([]tensor.Tensor{x}); err != nil || plans.m[node].plan != first || first == nil {
		t.Errorf("the second run made another plan (%v)", err)
	}
	if _, err := op.Apply([]tensor.Tensor{tensor.New(tensor.WithShape(2, 4, 3), tensor.Of(tensor.Float32))}); err != nil || plans.m[node].plan == first {
		t.Errorf("a new shape kept the old plan (%v)", err)
	}
}

// transposeNodeProto is a Transpose node by perm.
func transposeNodeProto(perm ...int64) *onnx.NodeProto {
	return &onnx.NodeProto{OpType: "Transpose", Input: []string{"x"}, Output: []string{"y"},
		Attribute: []*onnx.AttributeProto{{Name: "perm", Type: onnx.AttributeProto_INTS, Ints: perm}}}
}

// TestInstallWorkers: the bound Install takes reaches every node's plan;
// a negative one is each run's error.
func TestInstallWorkers(t *testing.T) {
	for _, c := range []struct {
		name string
		node *onnx.NodeProto
		dt   tensor.Dtype
	}{
		{"DepthToSpace", &onnx.NodeProto{OpType: "DepthToSpace", Attribute: []*onnx.AttributeProto{{Name: "blocksize", Type: onnx.AttributeProto_INT, I: 2}}}, tensor.Float32},
		{"DepthToSpace of strings", &onnx.NodeProto{OpType: "DepthToSpace", Attribute: []*onnx.AttributeProto{{Name: "blocksize", Type: onnx.AttributeProto_INT, I: 2}}}, tensor.String},
		{"Transpose", transposeNodeProto(0, 2, 1, 3), tensor.Float32},
		{"Transpose of strings", transposeNodeProto(0, 2, 1, 3), tensor.String},
	} {
		m := &gonnx.Model{GetOperator: func(name string) (ops.Operator, error) { return opset13.GetOperator(name) }}
		Install(m, -1)
		o, err := m.GetOperator(c.node.GetOpType())
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Init(c.node); err != nil {
			t.Fatalf("%s: Init: %v", c.name, err)
		}
		x := tensor.New(tensor.WithShape(1, 4, 2, 2), tensor.Of(c.dt))
		if _, err := o.Apply([]tensor.Tensor{x}); !errors.Is(err, blockshuffle.ErrWorkers) {
			t.Errorf("%s with workers -1: %v, want ErrWorkers", c.name, err)
		}
	}
}
