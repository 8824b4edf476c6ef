package blockshuffle_test

import (
	"fmt"
	"slices"

	"github.com/x448/float16"

	"github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/generic"
)

// denseTensor stands in for a gorgonia-style dense tensor (the shape of
// gorgonia.org/tensor's *Dense): a flat backing slice behind
// Data() interface{}, a shape, strides, and views that share another
// tensor's backing slice with other strides.
type denseTensor struct {
	shape, strides []int
	data           interface{} // []float32, []float16.Float16, []string, ...
	view           bool
}

func (t *denseTensor) Data() interface{} { return t.data }
func (t *denseTensor) Shape() []int      { return t.shape }
func (t *denseTensor) Strides() []int    { return t.strides }
func (t *denseTensor) IsView() bool      { return t.view }

// depthToSpaceDense is DepthToSpace for a 4-D NCHW dense tensor. blockshuffle
// reads the backing slice in row-major order, so a view whose strides are not
// the row-major ones of its shape (a transpose, a slice with gaps) must be
// materialized by the library first; a contiguous tensor goes straight in.
func depthToSpaceDense(t *denseTensor, blockSize int, order blockshuffle.Order) (*denseTensor, error) {
	s := t.Shape()
	if len(s) != 4 {
		return nil, fmt.Errorf("DepthToSpace: want a 4-D NCHW tensor, have shape %v", s)
	}
	if t.IsView() && !slices.Equal(t.Strides(), rowMajor(s)) {
		return nil, fmt.Errorf("DepthToSpace: view with strides %v is not contiguous: materialize it first", t.Strides())
	}
	p := blockshuffle.Params{N: s[0], C: s[1], H: s[2], W: s[3], BlockSize: blockSize, Order: order}
	out, err := p.DepthToSpaceDims()
	if err != nil {
		return nil, err
	}
	var data interface{}
	switch src := t.Data().(type) {
	case []float32:
		data, err = depthToSpaceInto(src, p)
	case []float64:
		data, err = depthToSpaceInto(src, p)
	case []float16.Float16:
		data, err = depthToSpaceInto(src, p)
	case []int8:
		data, err = depthToSpaceInto(src, p)
	case []uint8:
		data, err = depthToSpaceInto(src, p)
	case []int32:
		data, err = depthToSpaceInto(src, p)
	case []int64:
		data, err = depthToSpaceInto(src, p)
	case []bool:
		data, err = depthToSpaceInto(src, p)
	case []string: // holds pointers: package generic moves it with Go assignments
		dst := make([]string, len(src))
		data, err = dst, generic.DepthToSpace(dst, src, p)
	default:
		return nil, fmt.Errorf("DepthToSpace: unsupported element type %T", src)
	}
	if err != nil {
		return nil, err
	}
	shape := out.Shape(p.Layout) // an array: [N, C, H, W] in memory order
	return &denseTensor{shape: shape[:], strides: rowMajor(shape[:]), data: data}, nil
}

// depthToSpaceInto allocates the output, as a tensor library's operator
// does; a caller that reuses buffers would pass its own dst instead.
func depthToSpaceInto[T blockshuffle.Element](src []T, p blockshuffle.Params) ([]T, error) {
	dst := make([]T, len(src))
	return dst, blockshuffle.DepthToSpace(dst, src, p)
}

// rowMajor is the strides, in elements, of a contiguous tensor of shape s.
func rowMajor(s []int) []int {
	strides := make([]int, len(s))
	n := 1
	for i := len(s) - 1; i >= 0; i-- {
		strides[i] = n
		n *= s[i]
	}
	return strides
}

// A gorgonia-style tensor library switches on the type behind Data(),
// checks that the tensor is contiguous, and builds the result tensor from
// the dims blockshuffle computes.
func Example_gorgoniaDense() {
	t := &denseTensor{
		shape:   []int{1, 4, 1, 2},
		strides: []int{8, 2, 2, 1},
		data:    []float32{1, 2, 3, 4, 5, 6, 7, 8},
	}
	out, err := depthToSpaceDense(t, 2, blockshuffle.DCR)
	fmt.Println(out.Shape(), out.Data(), err)

	words := &denseTensor{
		shape:   []int{1, 4, 1, 1},
		strides: []int{4, 1, 1, 1},
		data:    []string{"a", "b", "c", "d"},
	}
	out, err = depthToSpaceDense(words, 2, blockshuffle.CRD)
	fmt.Println(out.Shape(), out.Data(), err)

	// A transposed view: same backing slice, strides that are not row-major.
	view := &denseTensor{shape: []int{1, 4, 2, 1}, strides: []int{8, 1, 4, 4}, data: t.data, view: true}
	_, err = depthToSpaceDense(view, 2, blockshuffle.DCR)
	fmt.Println(err)
	// Output:
	// [1 1 2 4] [1 3 2 4 5 7 6 8] <nil>
	// [1 1 2 2] [a b c d] <nil>
	// DepthToSpace: view with strides [8 1 4 4] is not contiguous: materialize it first
}
