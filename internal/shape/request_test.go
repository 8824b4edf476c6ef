package shape

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestCheckTranspose: every kind of invalid transpose wraps its sentinel
// and names the shape and perm.
func TestCheckTranspose(t *testing.T) {
	huge := math.MaxInt / 4
	for _, c := range []struct {
		size, perm    []int
		elem, workers int
		want          error
	}{
		{[]int{2, 3}, []int{1, 0}, 0, 0, ErrElemSize},
		{[]int{2, 3}, []int{1, 0}, 1, -1, ErrWorkers},
		{[]int{2, 3}, []int{0}, 1, 0, ErrPerm},
		{[]int{2, 3}, []int{0, 0}, 1, 0, ErrPerm},
		{[]int{2, 3}, []int{0, 2}, 1, 0, ErrPerm},
		{[]int{2, 3}, []int{-1, 0}, 1, 0, ErrPerm},
		{[]int{2, -3}, []int{1, 0}, 1, 0, ErrNegativeDim},
		{[]int{huge, huge}, []int{1, 0}, 1, 0, ErrOverflow},
		{[]int{huge / 2, 3}, []int{1, 0}, 4, 0, ErrOverflow},
		{make([]int, MaxRank+1), make([]int, MaxRank+1), 1, 0, ErrRank},
	} {
		r := Request{Transpose: true, Elem: c.elem, Workers: c.workers, Dims: c.size, Perm: c.perm}
		_, err := r.CheckTranspose()
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), "Transpose of shape") {
			t.Errorf("CheckTranspose(%v, %v, %d, %d) = %v, want %v", c.size, c.perm, c.elem, c.workers, err, c.want)
		}
	}
	for _, c := range []struct {
		size, perm []int
		want       int
	}{
		{[]int{huge, huge, 0}, []int{2, 0, 1}, 0}, // an empty tensor of huge dims
		{nil, nil, 4}, // a scalar
	} {
		r := Request{Transpose: true, Elem: 4, Dims: c.size, Perm: c.perm}
		if n, err := r.CheckTranspose(); n != c.want || err != nil {
			t.Errorf("%v by %v: %d, %v", c.size, c.perm, n, err)
		}
	}
}

// TestGeometry: Check describes each operator from its depth side, and
// Request is its inverse.
func TestGeometry(t *testing.T) {
	for _, c := range []struct {
		r    Request
		want Geometry
	}{
		{Request{Elem: 4, Workers: 2, Dims: []int{2, 18, 4, 6, 3}, Layout: NHWC},
			Geometry{NHWC: true, B: 3, N: 2, C: 18, H: 4, W: 6, Cp: 2, Elem: 4, Workers: 2}},
		{Request{Op: SpaceToDepth, Order: CRD, Elem: 1, Dims: []int{2, 3, 6, 9, 3}},
			Geometry{ToDepth: true, CRD: true, B: 3, N: 2, C: 27, H: 2, W: 3, Cp: 3, Elem: 1}},
	} {
		g, err := c.r.Check()
		if err != nil || g != c.want {
			t.Errorf("%+v: %+v, %v; want %+v", c.r, g, err, c.want)
			continue
		}
		back := g.Request()
		if back.Op != c.r.Op || back.Order != c.r.Order || back.Layout != c.r.Layout || back.Elem != c.r.Elem ||
			back.Workers != c.r.Workers || len(back.Dims) != 5 || [5]int(back.Dims) != [5]int(c.r.Dims) {
			t.Errorf("%+v: Request() = %+v", g, back)
		}
	}
}
