package blockshuffle_test

import (
	"slices"
	"testing"

	bs "github.com/blockshuffle/blockshuffle"
)

// The worked examples of docs/spec.md, copied from the DirectML and ONNX pages.

// directMLDepth is the input of the DirectML DepthToSpace examples: channel k
// of [1, 8, 2, 3] holds 9k + 0..5.
var directMLDepth = []uint32{
	0, 1, 2, 3, 4, 5,
	9, 10, 11, 12, 13, 14,
	18, 19, 20, 21, 22, 23,
	27, 28, 29, 30, 31, 32,
	36, 37, 38, 39, 40, 41,
	45, 46, 47, 48, 49, 50,
	54, 55, 56, 57, 58, 59,
	63, 64, 65, 66, 67, 68,
}

// directMLSpace is the output [1, 2, 4, 6] for each order.
var directMLSpace = map[bs.Order][]uint32{
	bs.DCR: {
		0, 18, 1, 19, 2, 20,
		36, 54, 37, 55, 38, 56,
		3, 21, 4, 22, 5, 23,
		39, 57, 40, 58, 41, 59,

		9, 27, 10, 28, 11, 29,
		45, 63, 46, 64, 47, 65,
		12, 30, 13, 31, 14, 32,
		48, 66, 49, 67, 50, 68,
	},
	bs.CRD: {
		0, 9, 1, 10, 2, 11,
		18, 27, 19, 28, 20, 29,
		3, 12, 4, 13, 5, 14,
		21, 30, 22, 31, 23, 32,

		36, 45, 37, 46, 38, 47,
		54, 63, 55, 64, 56, 65,
		39, 48, 40, 49, 41, 50,
		57, 66, 58, 67, 59, 68,
	},
}

func TestDirectMLExamples(t *testing.T) {
	for _, order := range []bs.Order{bs.DCR, bs.CRD} {
		got := make([]uint32, 48)
		p := bs.Params{N: 1, C: 8, H: 2, W: 3, BlockSize: 2, Order: order}
		if err := bs.DepthToSpace(got, directMLDepth, p); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, directMLSpace[order]) {
			t.Errorf("DepthToSpace %v:\n got %v\nwant %v", order, got, directMLSpace[order])
		}
		p = bs.Params{N: 1, C: 2, H: 4, W: 6, BlockSize: 2, Order: order}
		if err := bs.SpaceToDepth(got, directMLSpace[order], p); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, directMLDepth) {
			t.Errorf("SpaceToDepth %v:\n got %v\nwant %v", order, got, directMLDepth)
		}
	}
}

func TestONNXSpaceToDepthExample(t *testing.T) {
	x := []float32{
		0, 6, 1, 7, 2, 8,
		12, 18, 13, 19, 14, 20,
		3, 9, 4, 10, 5, 11,
		15, 21, 16, 22, 17, 23,
	}
	want := make([]float32, 24) // [1, 4, 2, 3], channel k holds 6k + 0..5
	for i := range want {
		want[i] = float32(i)
	}
	got := make([]float32, 24)
	if err := bs.SpaceToDepth(got, x, bs.Params{N: 1, C: 1, H: 4, W: 6, BlockSize: 2}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// With C == b*b the orders agree; with C == 2*b*b they do not.
func TestOrdersAgreeOnlyWhenOneOutputChannel(t *testing.T) {
	for _, layout := range []bs.Layout{bs.NCHW, bs.NHWC} {
		for _, cp := range []int{1, 2} {
			b := 3
			p := bs.Params{N: 1, C: cp * b * b, H: 2, W: 2, BlockSize: b, Layout: layout}
			src := make([]int16, p.Dims().Len())
			for i := range src {
				src[i] = int16(i)
			}
			dcr, crd := make([]int16, len(src)), make([]int16, len(src))
			if err := bs.DepthToSpace(dcr, src, p); err != nil {
				t.Fatal(err)
			}
			p.Order = bs.CRD
			if err := bs.DepthToSpace(crd, src, p); err != nil {
				t.Fatal(err)
			}
			if same := slices.Equal(dcr, crd); same != (cp == 1) {
				t.Errorf("%v C' = %d: DCR == CRD is %v", layout, cp, same)
			}
		}
	}
}

// b = 1 copies, whatever the order and layout.
func TestBlockSizeOneCopies(t *testing.T) {
	src := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	for _, order := range []bs.Order{bs.DCR, bs.CRD} {
		for _, layout := range []bs.Layout{bs.NCHW, bs.NHWC} {
			p := bs.Params{N: 2, C: 3, H: 1, W: 2, BlockSize: 1, Order: order, Layout: layout}
			for _, f := range []func(dst, src []float64, p bs.Params) error{bs.DepthToSpace[float64], bs.SpaceToDepth[float64]} {
				dst := make([]float64, len(src))
				if err := f(dst, src, p); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(dst, src) {
					t.Errorf("%v %v: got %v", order, layout, dst)
				}
			}
		}
	}
}
