package gonnx_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/advancedclimatesystems/gonnx"
	"github.com/advancedclimatesystems/gonnx/onnx"
	"github.com/advancedclimatesystems/gonnx/ops/opset13"
	"google.golang.org/protobuf/proto"
	"gorgonia.org/tensor"

	"github.com/blockshuffle/blockshuffle"
	bsonnx "github.com/blockshuffle/blockshuffle/integrations/gonnx"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/verify"
)

// The shapes the issue names: ESPCN's output layer, YOLO's reorg and a b=3
// block of a 224x224 image, in both modes.
var cases = []struct {
	name string
	dims []int64 // DepthToSpace input, NCHW
	b    int64
	mode string
}{
	{"espcn", []int64{1, 12, 270, 480}, 2, "CRD"},
	{"yolo", []int64{1, 256, 13, 13}, 2, "DCR"},
	{"b3_dcr", []int64{1, 27, 224, 224}, 3, "DCR"},
	{"b3_crd", []int64{1, 27, 224, 224}, 3, "CRD"},
}

func valueInfo(name string, dims []int64) *onnx.ValueInfoProto {
	shape := &onnx.TensorShapeProto{}
	for _, d := range dims {
		shape.Dim = append(shape.Dim, &onnx.TensorShapeProto_Dimension{Value: &onnx.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return &onnx.ValueInfoProto{Name: name, Type: &onnx.TypeProto{Value: &onnx.TypeProto_TensorType{
		TensorType: &onnx.TypeProto_Tensor{ElemType: int32(onnx.TensorProto_FLOAT), Shape: shape}}}}
}

func intAttr(name string, v int64) *onnx.AttributeProto {
	return &onnx.AttributeProto{Name: name, Type: onnx.AttributeProto_INT, I: v}
}

// modelBytes serializes a one-input, one-output opset 13 model, as an
// exporter would write it.
func modelBytes(t testing.TB, in, out []int64, nodes []*onnx.NodeProto, inits []*onnx.TensorProto) []byte {
	t.Helper()
	m := &onnx.ModelProto{
		IrVersion:   8,
		OpsetImport: []*onnx.OperatorSetIdProto{{Version: 13}},
		Graph: &onnx.GraphProto{
			Name: "g", Node: nodes, Initializer: inits,
			Input: []*onnx.ValueInfoProto{valueInfo("x", in)}, Output: []*onnx.ValueInfoProto{valueInfo("y", out)},
		},
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// singleNode is a model of one DepthToSpace or SpaceToDepth node.
func singleNode(t testing.TB, op string, in, out []int64, b int64, mode string) []byte {
	n := &onnx.NodeProto{OpType: op, Input: []string{"x"}, Output: []string{"y"}, Attribute: []*onnx.AttributeProto{intAttr("blocksize", b)}}
	if mode != "" {
		n.Attribute = append(n.Attribute, &onnx.AttributeProto{Name: "mode", Type: onnx.AttributeProto_STRING, S: []byte(mode)})
	}
	return modelBytes(t, in, out, []*onnx.NodeProto{n}, nil)
}

// decomposed is the same op as Reshape, Transpose, Reshape: ONNX's function
// definition for DCR, PyTorch's pixel_shuffle and pixel_unshuffle for CRD.
func decomposed(t testing.TB, in, mid, out []int64, perm []int64) []byte {
	shapes := []*onnx.TensorProto{
		{Name: "mid", Dims: []int64{int64(len(mid))}, DataType: int32(onnx.TensorProto_INT64), Int64Data: mid},
		{Name: "out", Dims: []int64{int64(len(out))}, DataType: int32(onnx.TensorProto_INT64), Int64Data: out},
	}
	nodes := []*onnx.NodeProto{
		{OpType: "Reshape", Input: []string{"x", "mid"}, Output: []string{"r"}},
		{OpType: "Transpose", Input: []string{"r"}, Output: []string{"tr"},
			Attribute: []*onnx.AttributeProto{{Name: "perm", Type: onnx.AttributeProto_INTS, Ints: perm}}},
		{OpType: "Reshape", Input: []string{"tr", "out"}, Output: []string{"y"}},
	}
	return modelBytes(t, in, out, nodes, shapes)
}

// d2sGraph returns the DepthToSpace of case dims, b, mode as a single node
// and decomposed, with the output dims.
func d2sGraph(t testing.TB, dims []int64, b int64, mode string) (single, graph []byte, out []int64) {
	n, c, h, w := dims[0], dims[1], dims[2], dims[3]
	cp := c / (b * b)
	out = []int64{n, cp, h * b, w * b}
	mid, perm := []int64{n, b, b, cp, h, w}, []int64{0, 3, 4, 1, 5, 2}
	if mode == "CRD" {
		mid, perm = []int64{n, cp, b, b, h, w}, []int64{0, 1, 4, 2, 5, 3}
	}
	return singleNode(t, "DepthToSpace", dims, out, b, mode), decomposed(t, dims, mid, out, perm), out
}

// s2dGraph is d2sGraph for SpaceToDepth of input dims; CRD is only a graph,
// as an opset 13 SpaceToDepth has no mode (PyTorch exports pixel_unshuffle
// so; TestSpaceToDepth28 runs the node of opset 28).
func s2dGraph(t testing.TB, dims []int64, b int64, mode string) (single, graph []byte, out []int64) {
	n, c, h, w := dims[0], dims[1], dims[2], dims[3]
	out = []int64{n, c * b * b, h / b, w / b}
	mid, perm := []int64{n, c, h / b, b, w / b, b}, []int64{0, 3, 5, 1, 2, 4}
	if mode == "CRD" {
		perm = []int64{0, 1, 3, 5, 2, 4}
	} else {
		single = singleNode(t, "SpaceToDepth", dims, out, b, "")
	}
	return single, decomposed(t, dims, mid, out, perm), out
}

// input is float32 data with every kind of bit pattern, NaN payloads too.
func input(dims []int64, seed uint64) *tensor.Dense {
	n := 1
	s := make([]int, len(dims))
	for i, d := range dims {
		s[i] = int(d)
		n *= int(d)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	data := make([]float32, n)
	for i := range data {
		data[i] = math.Float32frombits(rng.Uint32())
	}
	return tensor.New(tensor.WithShape(s...), tensor.WithBacking(data))
}

// run loads model bytes, installs the operators if asked, and runs it.
func run(t testing.TB, model []byte, install bool, x *tensor.Dense) *tensor.Dense {
	t.Helper()
	m, err := gonnx.NewModelFromBytes(model)
	if err != nil {
		t.Fatal(err)
	}
	if install {
		bsonnx.Install(m, 0)
	}
	out, err := m.Run(gonnx.Tensors{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	return out["y"].(*tensor.Dense)
}

// want is internal/ref's result for x.
func want(t testing.TB, op blockshuffle.Op, x *tensor.Dense, b int64, mode string) []uint32 {
	s := x.Shape()
	r := shape.Request{Op: uint8(op), Dims: []int{s[0], s[1], s[2], s[3], int(b)}}
	if mode == "CRD" {
		r.Order = shape.CRD
	}
	dst := make([]float32, x.Size())
	if err := verify.Reference(r, dst, x.Data().([]float32)); err != nil {
		t.Fatal(err)
	}
	return bits(dst)
}

func bits(f []float32) []uint32 {
	b := make([]uint32, len(f))
	for i, v := range f {
		b[i] = math.Float32bits(v)
	}
	return b
}

func compare(t *testing.T, name string, got *tensor.Dense, out []int64, want []uint32) {
	t.Helper()
	shape := make([]int64, len(got.Shape()))
	for i, s := range got.Shape() {
		shape[i] = int64(s)
	}
	if !slices.Equal(shape, out) {
		t.Errorf("%s: shape %v, want %v", name, shape, out)
	}
	if d := bits(got.Data().([]float32)); !slices.Equal(d, want) {
		i := 0
		for d[i] == want[i] {
			i++
		}
		t.Errorf("%s: element %d is %#08x, want %#08x", name, i, d[i], want[i])
	}
}

func TestDepthToSpace(t *testing.T) {
	for k, c := range cases {
		single, graph, out := d2sGraph(t, c.dims, c.b, c.mode)
		x := input(c.dims, uint64(k))
		w := want(t, blockshuffle.OpDepthToSpace, x, c.b, c.mode)
		compare(t, c.name+" DepthToSpace node", run(t, single, true, x), out, w)
		compare(t, c.name+" gonnx's Reshape/Transpose/Reshape", run(t, graph, false, x), out, w)
		compare(t, c.name+" routed Reshape/Transpose/Reshape", run(t, graph, true, x), out, w)
	}
}

func TestSpaceToDepth(t *testing.T) {
	for k, c := range cases {
		dims := []int64{c.dims[0], c.dims[1] / (c.b * c.b), c.dims[2] * c.b, c.dims[3] * c.b}
		single, graph, out := s2dGraph(t, dims, c.b, c.mode)
		x := input(dims, uint64(k))
		w := want(t, blockshuffle.OpSpaceToDepth, x, c.b, c.mode)
		if single != nil {
			compare(t, c.name+" SpaceToDepth node", run(t, single, true, x), out, w)
		}
		compare(t, c.name+" gonnx's Reshape/Transpose/Reshape", run(t, graph, false, x), out, w)
		compare(t, c.name+" routed Reshape/Transpose/Reshape", run(t, graph, true, x), out, w)
	}
}

// Without Install, gonnx v1.1.0 has no DepthToSpace: the test above is not
// passing through some operator gonnx grew meanwhile.
func TestGonnxLacksTheOps(t *testing.T) {
	single, _, _ := d2sGraph(t, []int64{1, 4, 2, 2}, 2, "")
	m, err := gonnx.NewModelFromBytes(single)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Run(gonnx.Tensors{"x": input([]int64{1, 4, 2, 2}, 0)}); err == nil {
		t.Fatal("gonnx ran DepthToSpace on its own: the adapter's tests no longer show anything")
	}
}

// The opset decides the attributes: DepthToSpace-1 has no mode.
func TestOpsetVersions(t *testing.T) {
	node := func(op, mode string) *onnx.NodeProto {
		n := &onnx.NodeProto{OpType: op, Attribute: []*onnx.AttributeProto{intAttr("blocksize", 2)}}
		if mode != "" {
			n.Attribute = append(n.Attribute, &onnx.AttributeProto{Name: "mode", Type: onnx.AttributeProto_STRING, S: []byte(mode)})
		}
		return n
	}
	x := tensor.New(tensor.WithShape(1, 4, 1, 2), tensor.WithBacking([]string{"a", "b", "c", "d", "e", "f", "g", "h"}))
	for _, c := range []struct {
		opset    int64
		op, mode string
		ok       bool
		want     string
	}{
		{1, "DepthToSpace", "", true, "[a c b d e g f h]"},
		{1, "DepthToSpace", "CRD", false, ""},
		{11, "DepthToSpace", "CRD", true, "[a c b d e g f h]"},
		{11, "DepthToSpace", "DCR", true, "[a c b d e g f h]"},
		{13, "DepthToSpace", "XYZ", true, "error"},
		{1, "SpaceToDepth", "DCR", false, ""},
		{13, "SpaceToDepth", "CRD", false, ""},  // a mode from opset 28 on
		{13, "SpaceToDepth", "", true, "error"}, // W=2 and H=1 are no multiples of 2
		{28, "SpaceToDepth", "CRD", true, "error"},
		{28, "DepthToSpace", "crd", true, "error"}, // ONNX's modes are case-sensitive
		{28, "SpaceToDepth", "pixel_unshuffle", true, "error"},
	} {
		get := bsonnx.Getter(c.opset, 0, opset13.GetOperator)
		o, err := get(c.op)
		if err != nil {
			t.Fatal(err)
		}
		err = o.Init(node(c.op, c.mode))
		if (err == nil) != c.ok {
			t.Errorf("opset %d %s mode %q: Init error %v", c.opset, c.op, c.mode, err)
			continue
		}
		if err != nil {
			continue
		}
		y, err := o.Apply([]tensor.Tensor{x})
		got := "error"
		if err == nil {
			got = fmt.Sprint(y[0].Data())
		}
		if got != c.want {
			t.Errorf("opset %d %s mode %q: got %s (%v), want %s", c.opset, c.op, c.mode, got, err, c.want)
		}
	}
}

// nodeBytes are a SpaceToDepth node's bytes as an exporter writes them, read
// back as gonnx reads a model's nodes.
func nodeBytes(t *testing.T, b int64, mode string) *onnx.NodeProto {
	t.Helper()
	n := &onnx.NodeProto{OpType: "SpaceToDepth", Input: []string{"x"}, Output: []string{"y"}, Domain: "",
		Attribute: []*onnx.AttributeProto{intAttr("blocksize", b)}}
	if mode != "" {
		n.Attribute = append(n.Attribute, &onnx.AttributeProto{Name: "mode", Type: onnx.AttributeProto_STRING, S: []byte(mode)})
	}
	raw, err := proto.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	read := &onnx.NodeProto{}
	if err := proto.Unmarshal(raw, read); err != nil {
		t.Fatal(err)
	}
	return read
}

// TestSpaceToDepth28 runs SpaceToDepth-28 nodes of both modes, and no
// mode, on the cases' shapes, against internal/ref; CRD also against
// gonnx's own Reshape/Transpose/Reshape of it (PyTorch's pixel_unshuffle).
func TestSpaceToDepth28(t *testing.T) {
	get := bsonnx.Getter(28, 0, opset13.GetOperator)
	for k, c := range cases {
		dims := []int64{c.dims[0], c.dims[1] / (c.b * c.b), c.dims[2] * c.b, c.dims[3] * c.b}
		x := input(dims, uint64(k))
		for _, mode := range []string{"", "DCR", "CRD"} {
			o, err := get("SpaceToDepth")
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Init(nodeBytes(t, c.b, mode)); err != nil {
				t.Fatalf("%s mode %q: %v", c.name, mode, err)
			}
			y, err := o.Apply([]tensor.Tensor{x})
			if err != nil {
				t.Fatalf("%s mode %q: %v", c.name, mode, err)
			}
			_, graph, out := s2dGraph(t, dims, c.b, mode)
			w := want(t, blockshuffle.OpSpaceToDepth, x, c.b, mode)
			name := fmt.Sprintf("%s SpaceToDepth-28 mode %q", c.name, mode)
			compare(t, name, y[0].(*tensor.Dense), out, w)
			compare(t, name+", gonnx's Reshape/Transpose/Reshape", run(t, graph, false, x), out, w)
		}
	}
}

func TestOpset(t *testing.T) {
	for _, c := range []struct {
		imports []*onnx.OperatorSetIdProto
		want    int64
	}{
		{[]*onnx.OperatorSetIdProto{{Version: 13}}, 13},
		{[]*onnx.OperatorSetIdProto{{Domain: "com.microsoft", Version: 1}, {Domain: "ai.onnx", Version: 28}}, 28},
		{[]*onnx.OperatorSetIdProto{{Domain: "ai.onnx.ml", Version: 3}, {Version: 17}}, 17},
		{nil, 0},
	} {
		if got := bsonnx.Opset(&onnx.ModelProto{OpsetImport: c.imports}); got != c.want {
			t.Errorf("Opset of %v = %d, want %d", c.imports, got, c.want)
		}
	}
}

// TestEmpty runs models whose input has no elements: each node gives an
// empty tensor of the output's shape (gorgonia's Data panics on them).
func TestEmpty(t *testing.T) {
	transpose := func(in, out []int64, perm ...int64) []byte {
		n := &onnx.NodeProto{OpType: "Transpose", Input: []string{"x"}, Output: []string{"y"},
			Attribute: []*onnx.AttributeProto{{Name: "perm", Type: onnx.AttributeProto_INTS, Ints: perm}}}
		return modelBytes(t, in, out, []*onnx.NodeProto{n}, nil)
	}
	for _, c := range []struct {
		name    string
		in, out []int64
		model   []byte
	}{
		{"SpaceToDepth", []int64{0, 3, 4, 4}, []int64{0, 12, 2, 2}, nil},
		{"DepthToSpace", []int64{2, 8, 0, 3}, []int64{2, 2, 0, 6}, nil},
		{"Transpose", []int64{1, 0, 5, 3}, []int64{1, 3, 0, 5}, nil},
	} {
		switch c.name {
		case "Transpose":
			c.model = transpose(c.in, c.out, 0, 3, 1, 2)
		default:
			c.model = singleNode(t, c.name, c.in, c.out, 2, "")
		}
		m, err := gonnx.NewModelFromBytes(c.model)
		if err != nil {
			t.Fatal(err)
		}
		bsonnx.Install(m, 0)
		shape := make([]int, len(c.in))
		for i, d := range c.in {
			shape[i] = int(d)
		}
		got, err := m.Run(gonnx.Tensors{"x": tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(shape...))})
		if err != nil {
			t.Fatalf("%s of %v: %v", c.name, c.in, err)
		}
		y := got["y"].(*tensor.Dense)
		want := make(tensor.Shape, len(c.out))
		for i, d := range c.out {
			want[i] = int(d)
		}
		if !slices.Equal(y.Shape(), want) || y.Size() != 0 || y.Dtype() != tensor.Float32 {
			t.Errorf("%s of %v: got %v %v, want float32 %v", c.name, c.in, y.Dtype(), y.Shape(), want)
		}
	}
	// A perm that is no permutation is an error, not a panic.
	m, err := gonnx.NewModelFromBytes(transpose([]int64{1, 0, 5, 3}, []int64{1, 3, 0, 5}, 0, 0, 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	bsonnx.Install(m, 0)
	if _, err := m.Run(gonnx.Tensors{"x": tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(1, 0, 5, 3))}); err == nil {
		t.Error("Transpose by perm [0 0 1 2]: no error")
	}
}
