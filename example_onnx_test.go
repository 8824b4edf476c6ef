package blockshuffle_test

import (
	"fmt"

	"github.com/x448/float16"

	"github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/generic"
)

// ONNX TensorProto.DataType values.
const (
	onnxFloat      int32 = 1
	onnxUint8      int32 = 2
	onnxInt8       int32 = 3
	onnxUint16     int32 = 4
	onnxInt16      int32 = 5
	onnxInt32      int32 = 6
	onnxInt64      int32 = 7
	onnxString     int32 = 8
	onnxBool       int32 = 9
	onnxFloat16    int32 = 10
	onnxDouble     int32 = 11
	onnxUint32     int32 = 12
	onnxUint64     int32 = 13
	onnxComplex64  int32 = 14
	onnxComplex128 int32 = 15
	onnxBFloat16   int32 = 16
)

// bfloat16 is how an interpreter without a bfloat16 package holds the type:
// raw bits, which blockshuffle moves unchanged.
type bfloat16 uint16

// onnxValue is an interpreter's tensor: data type, dims and typed data.
type onnxValue struct {
	DType int32
	Dims  []int64
	Data  any // []float32 for FLOAT, []float16.Float16 for FLOAT16, []string for STRING, ...
}

// onnxNode is a DepthToSpace or SpaceToDepth node with its attributes:
// blocksize (INT, int64) and, for DepthToSpace, mode (STRING, "DCR" or "CRD").
type onnxNode struct {
	OpType string
	Attrs  map[string]any
}

// runDepthSpace executes the node on x, an NCHW tensor as ONNX requires.
func runDepthSpace(node onnxNode, x onnxValue) (onnxValue, error) {
	fail := func(format string, args ...any) (onnxValue, error) {
		return onnxValue{}, fmt.Errorf(node.OpType+": "+format, args...)
	}
	b, ok := node.Attrs["blocksize"].(int64)
	if !ok || int64(int(b)) != b { // int is 32 bits on some platforms
		return fail("blocksize attribute %v is not a usable int64", node.Attrs["blocksize"])
	}
	if len(x.Dims) != 4 {
		return fail("input has dims %v, want 4 dims (NCHW)", x.Dims)
	}
	var d [4]int
	for i, v := range x.Dims {
		if d[i] = int(v); int64(d[i]) != v {
			return fail("dim %d does not fit in int", v)
		}
	}
	p := blockshuffle.Params{N: d[0], C: d[1], H: d[2], W: d[3], BlockSize: int(b)}
	var out blockshuffle.Dims
	var err error
	d2s := node.OpType == "DepthToSpace"
	switch {
	case d2s:
		mode, ok := node.Attrs["mode"].(string)
		if !ok {
			mode = "DCR" // the ONNX default
		}
		if p.Order, err = blockshuffle.ParseOrder(mode); err != nil {
			return fail("%v", err)
		}
		out, err = p.DepthToSpaceDims()
	case node.OpType == "SpaceToDepth": // no mode attribute: always DCR
		out, err = p.SpaceToDepthDims()
	default:
		return fail("not a block shuffle")
	}
	if err != nil {
		return onnxValue{}, err
	}

	var data any
	switch x.DType {
	case onnxFloat:
		data, err = shuffleTyped[float32](d2s, x.Data, p)
	case onnxDouble:
		data, err = shuffleTyped[float64](d2s, x.Data, p)
	case onnxFloat16:
		data, err = shuffleTyped[float16.Float16](d2s, x.Data, p)
	case onnxBFloat16:
		data, err = shuffleTyped[bfloat16](d2s, x.Data, p)
	case onnxInt8:
		data, err = shuffleTyped[int8](d2s, x.Data, p)
	case onnxUint8:
		data, err = shuffleTyped[uint8](d2s, x.Data, p)
	case onnxInt16:
		data, err = shuffleTyped[int16](d2s, x.Data, p)
	case onnxUint16:
		data, err = shuffleTyped[uint16](d2s, x.Data, p)
	case onnxInt32:
		data, err = shuffleTyped[int32](d2s, x.Data, p)
	case onnxUint32:
		data, err = shuffleTyped[uint32](d2s, x.Data, p)
	case onnxInt64:
		data, err = shuffleTyped[int64](d2s, x.Data, p)
	case onnxUint64:
		data, err = shuffleTyped[uint64](d2s, x.Data, p)
	case onnxBool:
		data, err = shuffleTyped[bool](d2s, x.Data, p)
	case onnxComplex64:
		data, err = shuffleTyped[complex64](d2s, x.Data, p)
	case onnxComplex128:
		data, err = shuffleTyped[complex128](d2s, x.Data, p)
	case onnxString:
		data, err = shuffleAny[string](d2s, x.Data, p)
	default:
		return fail("unsupported data type %d", x.DType)
	}
	if err != nil {
		return onnxValue{}, err
	}
	s := out.Shape(blockshuffle.NCHW)
	return onnxValue{DType: x.DType, Dims: []int64{int64(s[0]), int64(s[1]), int64(s[2]), int64(s[3])}, Data: data}, nil
}

// shuffleTyped runs the SIMD path on data of type []T.
func shuffleTyped[T blockshuffle.Element](d2s bool, data any, p blockshuffle.Params) (any, error) {
	src, ok := data.([]T)
	if !ok {
		return nil, fmt.Errorf("data is %T, want %T", data, src)
	}
	dst := make([]T, len(src))
	if d2s {
		return dst, blockshuffle.DepthToSpace(dst, src, p)
	}
	return dst, blockshuffle.SpaceToDepth(dst, src, p)
}

// shuffleAny runs package generic on types that hold pointers, like string.
func shuffleAny[T any](d2s bool, data any, p blockshuffle.Params) (any, error) {
	src, ok := data.([]T)
	if !ok {
		return nil, fmt.Errorf("data is %T, want %T", data, src)
	}
	dst := make([]T, len(src))
	if d2s {
		return dst, generic.DepthToSpace(dst, src, p)
	}
	return dst, generic.SpaceToDepth(dst, src, p)
}

// An ONNX interpreter maps the node's attributes to Params and switches on
// the tensor's data type. float16 and bfloat16 move as raw bits: the
// signalling NaN 0x7c01 stays signalling, where an implementation that
// computes in float32 would quiet it to 0x7e01.
func Example_onnxNode() {
	d2s := onnxNode{OpType: "DepthToSpace", Attrs: map[string]any{"blocksize": int64(2), "mode": "CRD"}}
	halfs := []float16.Float16{float16.Fromfloat32(1), float16.Frombits(0x7c01), float16.Fromfloat32(-0.5), float16.Fromfloat32(3)}
	y, err := runDepthSpace(d2s, onnxValue{DType: onnxFloat16, Dims: []int64{1, 4, 1, 1}, Data: halfs})
	fmt.Print(y.Dims, err)
	for _, h := range y.Data.([]float16.Float16) {
		fmt.Printf(" %#04x", h.Bits())
	}
	fmt.Println()

	s2d := onnxNode{OpType: "SpaceToDepth", Attrs: map[string]any{"blocksize": int64(2)}}
	brain := []bfloat16{0x3f80, 0x4000, 0x4040, 0x4080} // 1, 2, 3, 4 in bfloat16
	y, err = runDepthSpace(s2d, onnxValue{DType: onnxBFloat16, Dims: []int64{1, 1, 2, 2}, Data: brain})
	fmt.Printf("%v %v %#04x\n", y.Dims, err, y.Data)

	words := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	y, err = runDepthSpace(s2d, onnxValue{DType: onnxString, Dims: []int64{1, 2, 2, 2}, Data: words})
	fmt.Println(y.Dims, err, y.Data)

	d2s.Attrs["mode"] = "RCD"
	_, err = runDepthSpace(d2s, onnxValue{DType: onnxFloat16, Dims: []int64{1, 4, 1, 1}, Data: halfs})
	fmt.Println(err)
	// Output:
	// [1 1 2 2] <nil> 0x3c00 0x7c01 0xb800 0x4200
	// [1 4 1 1] <nil> [0x3f80 0x4000 0x4040 0x4080]
	// [1 8 1 1] <nil> [a e b f c g d h]
	// DepthToSpace: blockshuffle: order "RCD" (want DCR or CRD): unknown order
}
