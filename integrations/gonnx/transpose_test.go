package gonnx_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/advancedclimatesystems/gonnx/onnx"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"google.golang.org/protobuf/proto"
	"gorgonia.org/tensor"
)

// transposeNode is a Transpose node from a to b by perm.
func transposeNode(a, b string, perm ...int64) *onnx.NodeProto {
	return &onnx.NodeProto{OpType: "Transpose", Input: []string{a}, Output: []string{b},
		Attribute: []*onnx.AttributeProto{{Name: "perm", Type: onnx.AttributeProto_INTS, Ints: perm}}}
}

// shapeInit is an int64 initializer holding a shape, for Reshape.
func shapeInit(name string, dims ...int64) *onnx.TensorProto {
	return &onnx.TensorProto{Name: name, Dims: []int64{int64(len(dims))}, DataType: int32(onnx.TensorProto_INT64), Int64Data: dims}
}

// typedModel is modelBytes with an input and output of the given ONNX
// element type.
func typedModel(t testing.TB, elem onnx.TensorProto_DataType, in, out []int64, nodes []*onnx.NodeProto, inits []*onnx.TensorProto) []byte {
	t.Helper()
	var m onnx.ModelProto
	if err := proto.Unmarshal(modelBytes(t, in, out, nodes, inits), &m); err != nil {
		t.Fatal(err)
	}
	for _, v := range append(m.Graph.Input, m.Graph.Output...) {
		v.Type.GetTensorType().ElemType = int32(elem)
	}
	b, err := proto.Marshal(&m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameTensor compares two results element by element, bits included.
func sameTensor(t *testing.T, name string, got, want *tensor.Dense) {
	t.Helper()
	if !slices.Equal(got.Shape(), want.Shape()) || got.Dtype() != want.Dtype() {
		t.Fatalf("%s: %v %v, want %v %v", name, got.Dtype(), got.Shape(), want.Dtype(), want.Shape())
	}
	g, w := reflect.ValueOf(got.Data()), reflect.ValueOf(want.Data())
	for i := range g.Len() {
		if fmt.Sprintf("%#v", g.Index(i).Interface()) != fmt.Sprintf("%#v", w.Index(i).Interface()) {
			t.Fatalf("%s: element %d is %v, want %v", name, i, g.Index(i), w.Index(i))
		}
	}
}

// TestTransposeGraph runs a graph of the transposes models carry, a
// layout change around a convolution (NCHW to NHWC), attention heads
// split and merged, an image into a model (NHWC to NCHW), with and
// without the adapter, and compares the results bit for bit.
func TestTransposeGraph(t *testing.T) {
	const c, h, w, heads = 48, 10, 12, 4
	model := transposeGraph(t, c, h, w, heads)
	x := input([]int64{1, c, h, w}, 7)
	sameTensor(t, "transpose graph", run(t, model, true, x), run(t, model, false, x))
}

// transposeGraph is TestTransposeGraph's model for an input of c x h x w
// and heads heads.
func transposeGraph(t testing.TB, c, h, w, heads int64) []byte {
	nodes := []*onnx.NodeProto{
		transposeNode("x", "nhwc", 0, 2, 3, 1), // [1, h, w, c]
		{OpType: "Reshape", Input: []string{"nhwc", "tokens"}, Output: []string{"t"}},
		transposeNode("t", "split", 0, 2, 1, 3),  // [1, heads, h*w, c/heads]
		transposeNode("split", "kt", 0, 1, 3, 2), // K transposed
		transposeNode("kt", "merged", 0, 3, 2, 1),
		{OpType: "Reshape", Input: []string{"merged", "image"}, Output: []string{"img"}},
		transposeNode("img", "y", 0, 3, 1, 2), // an HWC image into CHW
	}
	inits := []*onnx.TensorProto{shapeInit("tokens", 1, h*w, heads, c/heads), shapeInit("image", 1, h, w, c)}
	return typedModel(t, onnx.TensorProto_FLOAT, []int64{1, c, h, w}, []int64{1, c, h, w}, nodes, inits)
}

// TestTransposeDtypes runs one Transpose node of random perms of rank 1 to
// 6 on tensors of several dtypes, with and without the adapter.
func TestTransposeDtypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	types := []struct {
		elem onnx.TensorProto_DataType
		dt   tensor.Dtype
	}{
		{onnx.TensorProto_FLOAT, tensor.Float32}, {onnx.TensorProto_DOUBLE, tensor.Float64},
		{onnx.TensorProto_INT8, tensor.Int8}, {onnx.TensorProto_UINT8, tensor.Uint8},
		{onnx.TensorProto_INT16, tensor.Int16}, {onnx.TensorProto_UINT16, tensor.Uint16},
		{onnx.TensorProto_INT32, tensor.Int32}, {onnx.TensorProto_INT64, tensor.Int64},
		{onnx.TensorProto_BOOL, tensor.Bool},
	}
	for i := range 120 {
		rank := 1 + rng.IntN(6)
		in, shape := make([]int64, rank), make([]int, rank)
		n := 1
		for k := range in {
			shape[k] = 1 + rng.IntN(6)
			if rng.IntN(3) == 0 && n*40 <= 1<<12 {
				shape[k] = 16 + rng.IntN(25)
			}
			in[k], n = int64(shape[k]), n*shape[k]
		}
		perm := rng.Perm(rank)
		perm64, out := make([]int64, rank), make([]int64, rank)
		for k, d := range perm {
			perm64[k], out[k] = int64(d), in[d]
		}
		ty := types[i%len(types)]
		model := typedModel(t, ty.elem, in, out, []*onnx.NodeProto{transposeNode("x", "y", perm64...)}, nil)
		x := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(randomData(ty.dt, n, rng)))
		sameTensor(t, fmt.Sprintf("%v %v perm %v", ty.dt, shape, perm), run(t, model, true, x), run(t, model, false, x))
	}
}

// randomData is n random values of dtype dt.
func randomData(dt tensor.Dtype, n int, rng *rand.Rand) any {
	s := reflect.MakeSlice(reflect.SliceOf(dt.Type), n, n)
	for i := range n {
		v, r := s.Index(i), rng.Uint64()
		switch v.Kind() {
		case reflect.Bool:
			v.SetBool(r&1 == 1)
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			v.SetInt(int64(r))
		case reflect.Uint8, reflect.Uint16:
			v.SetUint(r)
		case reflect.Float32, reflect.Float64:
			v.SetFloat(float64(int64(r)) / 1e9)
		}
	}
	return s.Interface()
}

// TestTransposeDefaultPerm runs Transpose nodes without a perm attribute,
// which ONNX defines as the dims reversed and gonnx v1.1.0 refuses to
// load, through the adapter, against a naive reversal, at rank 1 to 5.
func TestTransposeDefaultPerm(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for rank := 1; rank <= 5; rank++ {
		in, out, shape, perm := make([]int64, rank), make([]int64, rank), make([]int, rank), make([]int, rank)
		for k := range in {
			shape[k] = 1 + rng.IntN(7)
			in[k] = int64(shape[k])
		}
		for k := range perm {
			perm[k] = rank - 1 - k
			out[k] = in[perm[k]]
		}
		node := &onnx.NodeProto{OpType: "Transpose", Input: []string{"x"}, Output: []string{"y"}}
		model := typedModel(t, onnx.TensorProto_FLOAT, in, out, []*onnx.NodeProto{node}, nil)
		x := input(in, uint64(rank))
		src := x.Data().([]float32)
		want := make([]float32, len(src))
		ref.Transpose(want, src, shape, perm)
		outShape := make([]int, rank)
		for k, d := range out {
			outShape[k] = int(d)
		}
		sameTensor(t, fmt.Sprintf("%v without perm", shape), run(t, model, true, x),
			tensor.New(tensor.WithShape(outShape...), tensor.WithBacking(want)))
	}
}
