package gonnx

import (
	"fmt"
	"slices"
	"sync"

	"github.com/advancedclimatesystems/gonnx"
	"github.com/advancedclimatesystems/gonnx/onnx"
	"github.com/advancedclimatesystems/gonnx/ops"
	"gorgonia.org/tensor"

	"github.com/blockshuffle/blockshuffle"
	bsg "github.com/blockshuffle/blockshuffle/integrations/gorgonia"
)

// Install makes m run DepthToSpace, SpaceToDepth and Transpose nodes with
// blockshuffle's kernels, each node's run on at most workers goroutines
// (0: automatic, as blockshuffle.Params.Workers; 1 keeps each node on the
// goroutine that runs the model). gonnx v1.1.0 loads opset 13 models
// only, so the opset 13 operators are installed; for another opset, use
// Getter. Calling it twice is harmless: the last workers holds.
func Install(m *gonnx.Model, workers int) {
	m.GetOperator = Getter(13, workers, m.GetOperator)
}

// Getter returns an operator getter that serves DepthToSpace and
// SpaceToDepth as the given opset of the default ONNX domain defines them
// (Opset reads it from a model), runs next's Transpose nodes, every perm
// and dtype, with integrations/gorgonia, and asks next for everything
// else; workers bounds each node's goroutines, as in Install. gonnx makes
// every operator afresh on each Model.Run and hands it its node, so the
// getter keeps a plan per node (integrations/gorgonia's Plan), made on
// the node's first run and again when its input's shape or dtype changes.
// A negative workers is an error wrapping blockshuffle.ErrWorkers from
// each node's run.
func Getter(opset int64, workers int, next gonnx.OpGetter) gonnx.OpGetter {
	plans := &nodePlans{m: map[*onnx.NodeProto]nodePlan{}}
	return func(name string) (ops.Operator, error) {
		switch name {
		case "DepthToSpace":
			return &depthSpace{op: blockshuffle.OpDepthToSpace, version: version(opset, 1, 11, 13), workers: workers, plans: plans}, nil
		case "SpaceToDepth":
			return &depthSpace{op: blockshuffle.OpSpaceToDepth, version: version(opset, 1, 13, 28), workers: workers, plans: plans}, nil
		}
		o, err := next(name)
		if err != nil || name != "Transpose" {
			return o, err
		}
		if t, ok := o.(*transposeOp); ok { // Install called twice: gonnx's own, with these workers
			o = t.Operator
		}
		return &transposeOp{Operator: o, workers: workers, plans: plans}, nil
	}
}

// Opset is the version of the default ONNX domain ("" or "ai.onnx") that
// mp imports, which decides the version of each of its standard operators;
// 0 if it imports none.
func Opset(mp *onnx.ModelProto) int64 {
	for _, o := range mp.GetOpsetImport() {
		if d := o.GetDomain(); d == "" || d == "ai.onnx" {
			return o.GetVersion()
		}
	}
	return 0
}

// version is the newest of an operator's versions at or before opset, or 0
// if the operator did not exist yet.
func version(opset int64, versions ...int64) int64 {
	v := int64(0)
	for _, w := range versions {
		if w <= opset {
			v = w
		}
	}
	return v
}

// depthSpace is ONNX's DepthToSpace or SpaceToDepth.
type depthSpace struct {
	op        blockshuffle.Op
	version   int64
	blocksize int64
	mode      string
	workers   int
	node      *onnx.NodeProto // set by Init
	plans     *nodePlans
}

// nodePlans are the plans of the nodes of the models a getter serves.
type nodePlans struct {
	mu sync.Mutex
	m  map[*onnx.NodeProto]nodePlan
}

// nodePlan is a node's plan and what it was made for: an input's shape
// and dtype, and the op's options or the transpose's perm.
type nodePlan struct {
	shape []int
	dtype tensor.Dtype
	o     bsg.Options
	perm  []int
	plan  *bsg.Plan
}

// get returns node's plan for input x, options o and perm: the one made
// before for the same, else one made by newPlan, kept.
func (n *nodePlans) get(node *onnx.NodeProto, x *tensor.Dense, o bsg.Options, perm []int, newPlan func() (*bsg.Plan, error)) (*bsg.Plan, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if e, ok := n.m[node]; ok && e.dtype == x.Dtype() && e.o == o && slices.Equal(e.perm, perm) && slices.Equal(e.shape, x.Shape()) {
		return e.plan, nil
	}
	pl, err := newPlan()
	if err != nil {
		return nil, err
	}
	n.m[node] = nodePlan{slices.Clone(x.Shape()), x.Dtype(), o, slices.Clone(perm), pl}
	return pl, nil
}

func (d *depthSpace) String() string { return fmt.Sprintf("%v-%d operator", d.op, d.version) }

// Init reads the attributes: blocksize, and mode for DepthToSpace from
// version 11 and for SpaceToDepth from version 28.
func (d *depthSpace) Init(n *onnx.NodeProto) error {
	if d.version == 0 {
		return fmt.Errorf("%v: not defined in this opset", d.op)
	}
	d.node = n
	found := false
	for _, a := range n.GetAttribute() {
		switch {
		case a.GetName() == "blocksize" && a.GetType() == onnx.AttributeProto_INT:
			d.blocksize, found = a.GetI(), true
		case a.GetName() == "mode" && a.GetType() == onnx.AttributeProto_STRING && d.hasMode():
			d.mode = string(a.GetS())
		default:
			return ops.ErrInvalidAttribute(a.GetName(), d)
		}
	}
	if !found {
		return fmt.Errorf("%v: the blocksize attribute is required", d)
	}
	return nil
}

// hasMode reports whether the operator's version has the mode attribute.
func (d *depthSpace) hasMode() bool {
	if d.op == blockshuffle.OpDepthToSpace {
		return d.version >= 11
	}
	return d.version >= 28
}

// Apply runs the operator on a 4-D NCHW input.
func (d *depthSpace) Apply(in []tensor.Tensor) ([]tensor.Tensor, error) {
	x, ok := in[0].(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("%v: input is a %T, want *tensor.Dense", d, in[0])
	}
	dims := make([]int64, len(x.Shape()))
	for i, s := range x.Shape() {
		dims[i] = int64(s)
	}
	p, err := blockshuffle.ONNXParams(d.op, dims, d.blocksize, d.mode)
	if err != nil {
		return nil, err
	}
	o := bsg.Options{BlockSize: p.BlockSize, Order: p.Order, Workers: d.workers}
	pl, err := d.plans.get(d.node, x, o, nil, func() (*bsg.Plan, error) { return bsg.NewPlan(d.op, x.Shape(), x.Dtype(), o) })
	if err != nil {
		return nil, err
	}
	y, err := pl.Apply(x)
	if err != nil {
		return nil, err
	}
	return []tensor.Tensor{y}, nil
}

func (d *depthSpace) ValidateInputs(in []tensor.Tensor) ([]tensor.Tensor, error) {
	return ops.ValidateInputs(d, in)
}

func (d *depthSpace) GetMinInputs() int { return 1 }
func (d *depthSpace) GetMaxInputs() int { return 1 }

// GetInputTypeConstraints is every type: ONNX allows all tensor types, and
// gonnx has no bfloat16 for version 13 to add.
func (d *depthSpace) GetInputTypeConstraints() [][]tensor.Dtype {
	return [][]tensor.Dtype{ops.AllTypes}
}

// transposeOp is gonnx's Transpose, its data moved by blockshuffle:
// gonnx's own checks the node and the inputs.
type transposeOp struct {
	ops.Operator
	perm    []int
	workers int
	node    *onnx.NodeProto // set by Init
	plans   *nodePlans
}

// Init lets gonnx's Transpose read the node, and keeps perm for Apply. A
// node without attributes is ONNX's default, the dims reversed, which
// gonnx v1.1.0's Init refuses ("invalid count 0 expected 1"); it reads
// nothing else, and Apply reverses where perm is empty, as gonnx's own
// Apply (tensor.Transpose) does too.
func (t *transposeOp) Init(n *onnx.NodeProto) error {
	if len(n.GetAttribute()) > 0 {
		if err := t.Operator.Init(n); err != nil {
			return err
		}
	}
	t.node, t.perm = n, t.perm[:0]
	for _, a := range n.GetAttribute() {
		if a.GetName() == "perm" {
			for _, v := range a.GetInts() {
				t.perm = append(t.perm, int(v))
			}
		}
	}
	return nil
}

// Apply transposes x with the node's plan (integrations/gorgonia's
// NewTransposePlan): as gorgonia's Transpose for every perm and dtype (no
// perm reverses the axes, as ONNX says), and for empty tensors and bad
// perms, where gorgonia's panics, an empty result or an error.
func (t *transposeOp) Apply(in []tensor.Tensor) ([]tensor.Tensor, error) {
	x, ok := in[0].(*tensor.Dense)
	if !ok {
		return t.Operator.Apply(in)
	}
	pl, err := t.plans.get(t.node, x, bsg.Options{}, t.perm, func() (*bsg.Plan, error) {
		return bsg.NewTransposePlan(x.Shape(), t.perm, x.Dtype(), t.workers)
	})
	if err != nil {
		return nil, err
	}
	y, err := pl.Apply(x)
	if err != nil {
		return nil, err
	}
	return []tensor.Tensor{y}, nil
}
