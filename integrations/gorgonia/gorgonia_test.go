package gorgonia_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"gorgonia.org/tensor"

	"github.com/blockshuffle/blockshuffle"
	bsg "github.com/blockshuffle/blockshuffle/integrations/gorgonia"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/verify"
)

// The case of the issue: after a lazy x.T(0, 1, 3, 2) gorgonia reports no
// view and row-major-looking strides, and Data still holds the old storage.
func TestPendingTranspose(t *testing.T) {
	x := tensor.New(tensor.WithShape(1, 4, 2, 2), tensor.WithBacking([]float32{
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}))
	if err := x.T(0, 1, 3, 2); err != nil {
		t.Fatal(err)
	}
	y, err := bsg.DepthToSpace(x, bsg.Options{BlockSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{1, 5, 3, 7, 9, 13, 11, 15, 2, 6, 4, 8, 10, 14, 12, 16}
	if got := y.Data().([]float32); !slices.Equal(got, want) || !slices.Equal(y.Shape(), tensor.Shape{1, 1, 4, 4}) {
		t.Errorf("got %v shape %v, want %v shape (1, 1, 4, 4)", got, y.Shape(), want)
	}
}

// dtypes is every dtype gorgonia defines, with a way to fill a slice of it.
var dtypes = []tensor.Dtype{
	tensor.Bool, tensor.Int, tensor.Int8, tensor.Int16, tensor.Int32, tensor.Int64,
	tensor.Uint, tensor.Uint8, tensor.Uint16, tensor.Uint32, tensor.Uint64, tensor.Uintptr,
	tensor.Float32, tensor.Float64, tensor.Complex64, tensor.Complex128,
	tensor.String, tensor.UnsafePointer,
}

// backing returns n distinct-looking values of dtype dt.
func backing(dt tensor.Dtype, n int, rng *rand.Rand) any {
	s := reflect.MakeSlice(reflect.SliceOf(dt.Type), n, n)
	for i := range n {
		v, r := s.Index(i), rng.Uint64()
		switch v.Kind() {
		case reflect.Bool:
			v.SetBool(r&1 == 1)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			v.SetInt(int64(r))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			v.SetUint(r)
		case reflect.Float32, reflect.Float64:
			v.SetFloat(float64(r%1000) - 499.5)
		case reflect.Complex64, reflect.Complex128:
			v.SetComplex(complex(float64(r%1000), float64(i)))
		case reflect.String:
			v.SetString(fmt.Sprint(r % 1000))
		case reflect.UnsafePointer:
			v.SetPointer(unsafe.Pointer(new(int)))
		}
	}
	return s.Interface()
}

// storage is how a test tensor holds its logical shape.
type storage int

const (
	plain   storage = iota
	view            // a slice of a larger tensor along dim 1
	pending         // a lazy transpose of other storage
	fortran         // column-major
	storages
)

func (s storage) String() string { return [...]string{"plain", "view", "pending", "fortran"}[s] }

// build makes a tensor of logical shape s held as st, masked or not: plain
// and fortran at any rank, view and pending at rank 4.
func build(t *testing.T, dt tensor.Dtype, s []int, st storage, masked bool, rng *rand.Rand) *tensor.Dense {
	t.Helper()
	n := 1
	for _, d := range s {
		n *= d
	}
	opts := func(shape []int, size int) []tensor.ConsOpt {
		o := []tensor.ConsOpt{tensor.WithShape(shape...), tensor.WithBacking(backing(dt, size, rng))}
		if masked {
			m := make([]bool, size)
			for i := range m {
				m[i] = rng.IntN(3) == 0
			}
			o = append(o, tensor.WithMask(m))
		}
		if st == fortran {
			o = append(o, tensor.AsFortran(nil))
		}
		return o
	}
	switch st {
	case view:
		big := slices.Clone(s)
		big[1] += 2
		x := tensor.New(opts(big, n/s[1]*big[1])...)
		v, err := x.Slice(nil, tensor.S(1, s[1]+1))
		if err != nil {
			t.Fatal(err)
		}
		return v.(*tensor.Dense)
	case pending:
		stored := []int{s[0], s[3], s[1], s[2]} // lazily transposed back to s

		x := tensor.New(opts(stored, n)...)
		if err := x.T(0, 2, 3, 1); err != nil {
			t.Fatal(err)
		}
		return x
	}
	return tensor.New(opts(s, n)...)
}

// logical reads x element by element through At and MaskAt, the slowest
// and most obviously right way gorgonia offers.
func logical(t *testing.T, x *tensor.Dense) (vals []any, mask []bool) {
	t.Helper()
	s := x.Shape()
	idx := make([]int, len(s))
	for range x.Size() {
		v, err := x.At(idx...)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := x.MaskAt(idx...)
		vals, mask = append(vals, v), append(mask, m)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < s[d] {
				break
			}
			idx[d] = 0
		}
	}
	return vals, mask
}

func TestEveryDtypeAndStorage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dt := range dtypes {
		for st := range storages {
			for _, masked := range []bool{false, true} {
				for _, o := range []bsg.Options{
					{BlockSize: 2}, {BlockSize: 2, Order: blockshuffle.CRD},
					{BlockSize: 3, Layout: blockshuffle.NHWC}, {BlockSize: 2, Order: blockshuffle.CRD, Layout: blockshuffle.NHWC},
				} {
					name := fmt.Sprintf("%v/%v/masked=%v/%+v", dt, st, masked, o)
					b := o.BlockSize
					d2sIn := []int{2, 3 * b * b, 5, 7}
					s2dIn := []int{2, 3, 5 * b, 7 * b}
					if o.Layout == blockshuffle.NHWC {
						d2sIn = []int{2, 5, 7, 3 * b * b}
						s2dIn = []int{2, 5 * b, 7 * b, 3}
					}
					check(t, name+"/DepthToSpace", blockshuffle.OpDepthToSpace, build(t, dt, d2sIn, st, masked, rng), o)
					check(t, name+"/SpaceToDepth", blockshuffle.OpSpaceToDepth, build(t, dt, s2dIn, st, masked, rng), o)
				}
			}
		}
	}
}

// check runs op on x, allocating and into a reused tensor, against
// internal/ref on x's logical elements and mask.
func check(t *testing.T, name string, op blockshuffle.Op, x *tensor.Dense, o bsg.Options) {
	t.Helper()
	vals, mask := logical(t, x)
	s := x.Shape()
	r := shape.Request{Op: uint8(op), Order: uint8(o.Order), Layout: uint8(o.Layout), Dims: []int{s[0], s[1], s[2], s[3], o.BlockSize}}
	if o.Layout == blockshuffle.NHWC {
		r.Dims[1], r.Dims[2], r.Dims[3] = s[3], s[1], s[2] // Dims name N, C, H, W in any layout
	}
	wantVals, wantMask := make([]any, len(vals)), make([]bool, len(mask))
	if err := verify.Reference(r, wantVals, vals); err != nil {
		t.Fatal(err)
	}
	if err := verify.Reference(r, wantMask, mask); err != nil {
		t.Fatal(err)
	}
	f, into := bsg.DepthToSpace, bsg.DepthToSpaceInto
	if op == blockshuffle.OpSpaceToDepth {
		f, into = bsg.SpaceToDepth, bsg.SpaceToDepthInto
	}
	y, err := f(x, o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	same(t, name, y, wantVals, wantMask, x.IsMasked())
	out := tensor.New(tensor.WithShape(y.Shape()...), tensor.Of(x.Dtype()))
	if err := into(out, x, o); err != nil {
		t.Fatalf("%s into: %v", name, err)
	}
	if !slices.Equal(out.Shape(), y.Shape()) {
		t.Fatalf("%s into: shape %v, want %v", name, out.Shape(), y.Shape())
	}
	same(t, name+" into", out, wantVals, wantMask, x.IsMasked())
	pl, err := bsg.NewPlan(op, x.Shape(), x.Dtype(), o)
	if err != nil {
		t.Fatalf("%s: NewPlan: %v", name, err)
	}
	applyTwice(t, name, pl, x, out, wantVals, wantMask)
}

// applyTwice applies a plan to x twice, into a new tensor and into out,
// each time checking the result's values and mask: a plan is applied
// again and again.
func applyTwice(t *testing.T, name string, pl *bsg.Plan, x, out *tensor.Dense, wantVals []any, wantMask []bool) {
	t.Helper()
	for range 2 {
		y, err := pl.Apply(x)
		if err != nil {
			t.Fatalf("%s plan: %v", name, err)
		}
		same(t, name+" plan", y, wantVals, wantMask, x.IsMasked())
		if err := pl.ApplyInto(out, x); err != nil {
			t.Fatalf("%s plan into: %v", name, err)
		}
		same(t, name+" plan into", out, wantVals, wantMask, x.IsMasked())
	}
}

// TestPlanErrors: a plan refuses a tensor of another shape or dtype, and
// NewPlan the parameters the functions refuse, with their errors.
func TestPlanErrors(t *testing.T) {
	o := bsg.Options{BlockSize: 2}
	pl, err := bsg.NewPlan(blockshuffle.OpDepthToSpace, []int{1, 8, 2, 3}, tensor.Float32, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []*tensor.Dense{
		tensor.New(tensor.WithShape(1, 8, 3, 2), tensor.Of(tensor.Float32)),
		tensor.New(tensor.WithShape(1, 8, 2, 3), tensor.Of(tensor.Float64)),
		nil,
	} {
		if _, err := pl.Apply(x); err == nil {
			t.Errorf("a plan for (1, 8, 2, 3) float32 applied to %v", x)
		}
	}
	if err := pl.ApplyInto(nil, tensor.New(tensor.WithShape(1, 8, 2, 3), tensor.Of(tensor.Float32))); err == nil {
		t.Error("ApplyInto a nil tensor")
	}
	for _, c := range []struct {
		shape []int
		o     bsg.Options
	}{{[]int{1, 6, 2, 3}, o}, {[]int{1, 8, 2}, o}, {[]int{1, 8, 2, 3}, bsg.Options{}}} {
		x := tensor.New(tensor.WithShape(c.shape...), tensor.Of(tensor.Float32))
		_, want := bsg.DepthToSpace(x, c.o)
		if _, err := bsg.NewPlan(blockshuffle.OpDepthToSpace, c.shape, tensor.Float32, c.o); err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%v %+v: NewPlan says %v, DepthToSpace %v", c.shape, c.o, err, want)
		}
	}
	if _, err := bsg.NewPlan(blockshuffle.Op(5), []int{1, 8, 2, 3}, tensor.Float32, o); !errors.Is(err, blockshuffle.ErrOp) {
		t.Errorf("Op(5): %v", err)
	}
}

func same(t *testing.T, name string, y *tensor.Dense, vals []any, mask []bool, masked bool) {
	t.Helper()
	if y.RequiresIterator() && !masked || y.IsMaterializable() {
		t.Fatalf("%s: result is not plain", name)
	}
	got := reflect.ValueOf(y.Data())
	for i, v := range vals {
		if g := got.Index(i).Interface(); g != v {
			t.Fatalf("%s: element %d is %v, want %v", name, i, g, v)
		}
	}
	if y.IsMasked() != masked || masked && !slices.Equal(y.Mask(), mask) {
		t.Fatalf("%s: mask %v (masked %v), want %v", name, y.Mask(), y.IsMasked(), mask)
	}
}

func TestIntoErrors(t *testing.T) {
	x := tensor.New(tensor.WithShape(1, 4, 2, 2), tensor.WithBacking(backing(tensor.Float32, 16, rand.New(rand.NewPCG(5, 6)))))
	o := bsg.Options{BlockSize: 2}
	for _, c := range []struct {
		name string
		out  *tensor.Dense
		want string
		is   error
	}{
		{"other dtype", tensor.New(tensor.WithShape(1, 1, 4, 4), tensor.Of(tensor.Float64)), "dtype", blockshuffle.ErrElemType},
		{"too small", tensor.New(tensor.WithShape(1, 1, 3, 5), tensor.Of(tensor.Float32)), "shape (1, 1, 3, 5)", blockshuffle.ErrLength},
		{"the count, not the shape", tensor.New(tensor.WithShape(16), tensor.Of(tensor.Float32)), "shape (16), the result (1, 1, 4, 4)", blockshuffle.ErrLength},
		{"the dims in another order", tensor.New(tensor.WithShape(1, 4, 1, 4), tensor.Of(tensor.Float32)), "shape (1, 4, 1, 4)", blockshuffle.ErrLength},
		{"a view", func() *tensor.Dense {
			big := tensor.New(tensor.WithShape(4, 8), tensor.Of(tensor.Float32))
			v, _ := big.Slice(nil, tensor.S(0, 4))
			return v.(*tensor.Dense)
		}(), "plain tensor", bsg.ErrTensor},
	} {
		before := fmt.Sprint(c.out.Data(), c.out.Shape())
		err := bsg.DepthToSpaceInto(c.out, x, o)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.is) {
			t.Errorf("%s: err %v, want one saying %q and wrapping %v", c.name, err, c.want, c.is)
		}
		if before != fmt.Sprint(c.out.Data(), c.out.Shape()) {
			t.Errorf("%s: out changed on error", c.name)
		}
	}
	sq := tensor.New(tensor.WithShape(4, 4), tensor.WithBacking(backing(tensor.Float32, 16, rand.New(rand.NewPCG(7, 8)))))
	before := fmt.Sprint(sq.Data())
	if err := bsg.TransposeInto(sq, sq, 1, 0); !errors.Is(err, blockshuffle.ErrOverlap) || before != fmt.Sprint(sq.Data()) {
		t.Errorf("a square matrix into itself: %v, want ErrOverlap and the matrix untouched", err)
	}
	if err := bsg.DepthToSpaceInto(nil, x, o); !errors.Is(err, bsg.ErrTensor) {
		t.Errorf("nil out: %v, want ErrTensor", err)
	}
	if _, err := bsg.DepthToSpace(nil, o); !errors.Is(err, bsg.ErrTensor) {
		t.Errorf("nil x: %v, want ErrTensor", err)
	}
	if _, err := bsg.DepthToSpace(x, bsg.Options{BlockSize: 3}); !errors.Is(err, blockshuffle.ErrNotDivisible) {
		t.Errorf("b=3 on C=4: %v, want ErrNotDivisible", err)
	}
	if _, err := bsg.DepthToSpace(tensor.New(tensor.WithShape(4, 4), tensor.Of(tensor.Float32)), o); !errors.Is(err, blockshuffle.ErrRank) {
		t.Errorf("2-D x: %v, want ErrRank", err)
	}
}

// Transpose agrees with tensor.Transpose on the eight block-shuffle forms
// and on random perms, fast path or not, for plain, lazy and masked input.
func TestTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	forms := [][]int{
		{0, 3, 4, 1, 5, 2}, {0, 1, 4, 2, 5, 3}, {0, 1, 3, 2, 4, 5}, {0, 3, 5, 1, 2, 4}, {0, 1, 3, 5, 2, 4},
	}
	for i := range 300 {
		shape := []int{1 + rng.IntN(2), 2, 2, 1 + rng.IntN(3), 1 + rng.IntN(3), 2}
		perm := forms[i%len(forms)]
		if i%4 == 3 {
			perm = rng.Perm(6)
		}
		dt := dtypes[i%len(dtypes)]
		x := build(t, dt, shape, plain, i%2 == 1, rng)
		want, err := tensor.Transpose(x.Clone().(*tensor.Dense), perm...)
		if err != nil {
			t.Fatal(err)
		}
		vals, _ := logical(t, want.(*tensor.Dense))
		_, mask := logical(t, x) // gorgonia's own Transpose leaves the mask in place: transpose it here
		wantMask := make([]bool, len(mask))
		ref.Transpose(wantMask, mask, shape, perm)
		name := fmt.Sprintf("%v %v perm %v", dt, shape, perm)
		y, err := bsg.Transpose(x, perm...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		same(t, name, y, vals, wantMask, x.IsMasked())
		out := tensor.New(tensor.WithShape(y.Shape()...), tensor.Of(dt))
		if err := bsg.TransposeInto(out, x, perm...); err != nil {
			t.Fatalf("%s into: %v", name, err)
		}
		same(t, name+" into", out, vals, wantMask, x.IsMasked())
	}
}

// TestTransposeEveryPerm checks Transpose against tensor.Transpose on
// random perms of rank 1 to 6, for every dtype and storage (views and
// pending transposes at rank 4), masked or not, with dims large enough
// for the kernels' tiles (up to 40) now and then.
func TestTransposeEveryPerm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 400 {
		st := storage(i % int(storages))
		rank := 1 + rng.IntN(6)
		if st == view || st == pending {
			rank = 4
		}
		shape := make([]int, rank)
		n := 1
		for k := range shape {
			shape[k] = 1 + rng.IntN(5)
			if rng.IntN(4) == 0 && n*40 <= 1<<13 {
				shape[k] = 16 + rng.IntN(25)
			}
			n *= shape[k]
		}
		if st == view { // a slice of one along dim 1 would drop the dim
			shape[1] = max(shape[1], 2)
		}
		perm := rng.Perm(rank)
		dt := dtypes[rng.IntN(len(dtypes))]
		x := build(t, dt, shape, st, i%3 == 1, rng)
		// tensor.Transpose of a plain copy holding x's logical elements:
		// gorgonia's own on views and pending transposes is what the
		// adapter replaces, not a reference.
		vals, mask := logical(t, x)
		plainX := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(backingOf(dt, vals)))
		want := plainX
		if rank > 1 {
			w, err := tensor.Transpose(plainX, perm...)
			if err != nil {
				t.Fatal(err)
			}
			want = w.(*tensor.Dense)
		}
		wantVals, _ := logical(t, want)
		wantMask := make([]bool, len(mask))
		ref.Transpose(wantMask, mask, shape, perm)
		name := fmt.Sprintf("%v %v %v perm %v", dt, st, shape, perm)
		y, err := bsg.Transpose(x, perm...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		same(t, name, y, wantVals, wantMask, x.IsMasked())
		// The same transpose planned, on up to i%3 goroutines.
		pl, err := bsg.NewTransposePlan(shape, perm, dt, i%3)
		if err != nil {
			t.Fatalf("%s: NewTransposePlan: %v", name, err)
		}
		applyTwice(t, name, pl, x, tensor.New(tensor.WithShape(y.Shape()...), tensor.Of(dt)), wantVals, wantMask)
	}
}

// backingOf is vals, elements of dtype dt, as a slice of that type.
func backingOf(dt tensor.Dtype, vals []any) any {
	s := reflect.MakeSlice(reflect.SliceOf(dt.Type), len(vals), len(vals))
	for i, v := range vals {
		s.Index(i).Set(reflect.ValueOf(v))
	}
	return s.Interface()
}

// TestEmpty runs every entry point on tensors with a zero dim, of every
// dtype: gorgonia's own Data, Transpose and Clone panic on them. Each
// returns an empty tensor of the right shape and dtype, into out where
// given, and still rejects what is invalid.
func TestEmpty(t *testing.T) {
	o := bsg.Options{BlockSize: 2}
	for _, dt := range dtypes {
		for _, c := range []struct {
			name  string
			in    []int
			want  []int
			err   bool
			apply func(out, x *tensor.Dense) (*tensor.Dense, error)
		}{
			{"DepthToSpace", []int{0, 8, 2, 3}, []int{0, 2, 4, 6}, false, shuffleFunc(bsg.DepthToSpace, bsg.DepthToSpaceInto, o)},
			{"DepthToSpace", []int{2, 8, 0, 3}, []int{2, 2, 0, 6}, false, shuffleFunc(bsg.DepthToSpace, bsg.DepthToSpaceInto, o)},
			{"DepthToSpace of C = 6", []int{0, 6, 2, 3}, nil, true, shuffleFunc(bsg.DepthToSpace, bsg.DepthToSpaceInto, o)},
			{"SpaceToDepth", []int{0, 3, 4, 2}, []int{0, 12, 2, 1}, false, shuffleFunc(bsg.SpaceToDepth, bsg.SpaceToDepthInto, o)},
			{"SpaceToDepth NHWC", []int{1, 0, 4, 3}, []int{1, 0, 2, 12}, false,
				shuffleFunc(bsg.SpaceToDepth, bsg.SpaceToDepthInto, bsg.Options{BlockSize: 2, Layout: blockshuffle.NHWC})},
			{"SpaceToDepth of H = 3", []int{0, 3, 3, 2}, nil, true, shuffleFunc(bsg.SpaceToDepth, bsg.SpaceToDepthInto, o)},
			{"DepthToSpace plan", []int{0, 8, 2, 3}, []int{0, 2, 4, 6}, false, planFunc(blockshuffle.OpDepthToSpace, []int{0, 8, 2, 3}, dt, o)},
			{"SpaceToDepth plan", []int{2, 3, 0, 2}, []int{2, 12, 0, 1}, false, planFunc(blockshuffle.OpSpaceToDepth, []int{2, 3, 0, 2}, dt, o)},
			{"Transpose", []int{3, 0, 2}, []int{2, 3, 0}, false, transposeFunc(2, 0, 1)},
			{"Transpose reversed", []int{3, 0, 2}, []int{2, 0, 3}, false, transposeFunc()},
			{"Transpose of rank 1", []int{0}, []int{0}, false, transposeFunc(0)},
			{"Transpose by a bad perm", []int{3, 0, 2}, nil, true, transposeFunc(0, 0, 1)},
		} {
			name := fmt.Sprintf("%v %s %v", dt, c.name, c.in)
			for _, into := range []bool{false, true} {
				x := tensor.New(tensor.Of(dt), tensor.WithShape(c.in...))
				var out *tensor.Dense
				if into {
					out = tensor.New(tensor.Of(dt), tensor.WithShape(append([]int{0}, c.want...)[min(len(c.want), 1):]...))
				}
				y, err := c.apply(out, x)
				switch {
				case c.err && err == nil:
					t.Errorf("%s into=%v: no error", name, into)
				case c.err:
				case err != nil:
					t.Errorf("%s into=%v: %v", name, into, err)
				case !slices.Equal(y.Shape(), tensor.Shape(c.want)) || y.Size() != 0 || y.Dtype() != dt:
					t.Errorf("%s into=%v: got %v %v of %d elements, want %v (0 elements)", name, into, y.Dtype(), y.Shape(), y.Size(), c.want)
				case into && y != out:
					t.Errorf("%s: the result is not out", name)
				}
			}
		}
	}
}

// shuffleFunc is an op's two entry points as one: into out when out is not
// nil, else into a new tensor.
func shuffleFunc(f func(*tensor.Dense, bsg.Options) (*tensor.Dense, error), into func(out, x *tensor.Dense, o bsg.Options) error,
	o bsg.Options) func(out, x *tensor.Dense) (*tensor.Dense, error) {
	return func(out, x *tensor.Dense) (*tensor.Dense, error) {
		if out == nil {
			return f(x, o)
		}
		return out, into(out, x, o)
	}
}

// transposeFunc is Transpose and TransposeInto by perm as one, as shuffleFunc.
func transposeFunc(perm ...int) func(out, x *tensor.Dense) (*tensor.Dense, error) {
	return func(out, x *tensor.Dense) (*tensor.Dense, error) {
		if out == nil {
			return bsg.Transpose(x, perm...)
		}
		return out, bsg.TransposeInto(out, x, perm...)
	}
}

// planFunc is a plan's Apply and ApplyInto as one, as shuffleFunc.
func planFunc(op blockshuffle.Op, shape []int, dt tensor.Dtype, o bsg.Options) func(out, x *tensor.Dense) (*tensor.Dense, error) {
	return func(out, x *tensor.Dense) (*tensor.Dense, error) {
		pl, err := bsg.NewPlan(op, shape, dt, o)
		if err != nil {
			return nil, err
		}
		if out == nil {
			return pl.Apply(x)
		}
		return out, pl.ApplyInto(out, x)
	}
}

// TestScalar transposes scalars of every dtype, made as scalars and as a
// view of one element, into a new tensor and into out: Data of either is
// the element itself, not a slice, and TransposeInto once panicked on it.
func TestScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, dt := range dtypes {
		row := build(t, dt, []int{1, 1, 2}, plain, false, rng)
		vals, _ := logical(t, row)
		view, err := row.Slice(nil, nil, tensor.S(1, 2)) // [:, :, 1:]
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []struct {
			name string
			x    *tensor.Dense
			want any
		}{
			{"scalar", tensor.New(tensor.FromScalar(vals[0])), vals[0]},
			{"view", view.(*tensor.Dense), vals[1]},
		} {
			name := fmt.Sprintf("%v %s", dt, x.name)
			y, err := bsg.Transpose(x.x)
			if err != nil || !y.IsScalar() || y.Data() != x.want {
				t.Fatalf("%s: Transpose gave %v %v, want the scalar %v", name, y, err, x.want)
			}
			for _, shape := range [][]int{{1, 1}, {1}} {
				out := tensor.New(tensor.WithShape(shape...), tensor.Of(dt))
				if err := bsg.TransposeInto(out, x.x); err != nil || !out.IsScalar() || out.Data() != x.want {
					t.Fatalf("%s into %v: %v %v, want the scalar %v", name, shape, out, err, x.want)
				}
			}
			// A transpose plan of a scalar (no dims, no perm) too.
			pl, err := bsg.NewTransposePlan(nil, nil, dt, 0)
			if err != nil {
				t.Fatalf("%s: NewTransposePlan: %v", name, err)
			}
			if y, err := pl.Apply(x.x); err != nil || !y.IsScalar() || y.Data() != x.want {
				t.Fatalf("%s plan: %v %v, want the scalar %v", name, y, err, x.want)
			}
		}
	}
}

// TestTransposePlanErrors: a transpose plan refuses a bad perm when it is
// made, and a tensor of another shape or dtype, or an out of another
// shape, when it is applied, each with its sentinel and out untouched.
func TestTransposePlanErrors(t *testing.T) {
	if _, err := bsg.NewTransposePlan([]int{2, 3}, []int{0, 0}, tensor.Float32, 0); !errors.Is(err, blockshuffle.ErrPerm) {
		t.Errorf("perm [0 0]: %v, want ErrPerm", err)
	}
	if _, err := bsg.NewTransposePlan([]int{2, 3}, []int{1, 0}, tensor.Float32, -1); !errors.Is(err, blockshuffle.ErrWorkers) {
		t.Errorf("workers -1: %v, want ErrWorkers", err)
	}
	pl, err := bsg.NewTransposePlan([]int{2, 3, 4}, nil, tensor.Int32, 0) // reversed: (4, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.WithShape(2, 3, 4), tensor.Of(tensor.Int32))
	for _, c := range []struct {
		name   string
		out, x *tensor.Dense
		is     error
	}{
		{"x of another shape", tensor.New(tensor.WithShape(4, 3, 2), tensor.Of(tensor.Int32)), tensor.New(tensor.WithShape(3, 2, 4), tensor.Of(tensor.Int32)), blockshuffle.ErrLength},
		{"x of another dtype", tensor.New(tensor.WithShape(4, 3, 2), tensor.Of(tensor.Int32)), tensor.New(tensor.WithShape(2, 3, 4), tensor.Of(tensor.Float32)), blockshuffle.ErrElemType},
		{"out of x's shape", tensor.New(tensor.WithShape(2, 3, 4), tensor.Of(tensor.Int32)), x, blockshuffle.ErrLength},
		{"out of the count only", tensor.New(tensor.WithShape(24), tensor.Of(tensor.Int32)), x, blockshuffle.ErrLength},
		{"nil x", tensor.New(tensor.WithShape(4, 3, 2), tensor.Of(tensor.Int32)), nil, bsg.ErrTensor},
	} {
		before := fmt.Sprint(c.out.Shape(), c.out.Data())
		if err := pl.ApplyInto(c.out, c.x); !errors.Is(err, c.is) {
			t.Errorf("%s: %v, want %v", c.name, err, c.is)
		}
		if before != fmt.Sprint(c.out.Shape(), c.out.Data()) {
			t.Errorf("%s: out changed", c.name)
		}
	}
}
