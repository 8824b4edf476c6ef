package blockshuffle_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// A transpose as graphs write it: the name of the idiom, the shape the
// first Reshape gives, the perm, and what MatchTranspose must return.
type idiom struct {
	name        string
	shape, perm []int
	op          bs.Op
	p           bs.Params
}

// idioms are the eight (op, order, layout) Transposes with N, C', H, W, b =
// 2, 3, 5, 7, 4 (C, H', W' for SpaceToDepth), as their sources write them.
var idioms = []idiom{
	{"ONNX DepthToSpace DCR", []int{2, 4, 4, 3, 5, 7}, []int{0, 3, 4, 1, 5, 2},
		bs.OpDepthToSpace, bs.Params{N: 2, C: 48, H: 5, W: 7, BlockSize: 4}},
	{"ONNX DepthToSpace CRD, PyTorch pixel_shuffle", []int{2, 3, 4, 4, 5, 7}, []int{0, 1, 4, 2, 5, 3},
		bs.OpDepthToSpace, bs.Params{N: 2, C: 48, H: 5, W: 7, BlockSize: 4, Order: bs.CRD}},
	{"TensorFlow depth_to_space", []int{2, 5, 7, 4, 4, 3}, []int{0, 1, 3, 2, 4, 5},
		bs.OpDepthToSpace, bs.Params{N: 2, C: 48, H: 5, W: 7, BlockSize: 4, Layout: bs.NHWC}},
	{"pixel_shuffle channels-last", []int{2, 5, 7, 3, 4, 4}, []int{0, 1, 4, 2, 5, 3},
		bs.OpDepthToSpace, bs.Params{N: 2, C: 48, H: 5, W: 7, BlockSize: 4, Order: bs.CRD, Layout: bs.NHWC}},
	{"ONNX SpaceToDepth", []int{2, 3, 5, 4, 7, 4}, []int{0, 3, 5, 1, 2, 4},
		bs.OpSpaceToDepth, bs.Params{N: 2, C: 3, H: 20, W: 28, BlockSize: 4}},
	{"PyTorch pixel_unshuffle export", []int{2, 3, 5, 4, 7, 4}, []int{0, 1, 3, 5, 2, 4},
		bs.OpSpaceToDepth, bs.Params{N: 2, C: 3, H: 20, W: 28, BlockSize: 4, Order: bs.CRD}},
	{"TensorFlow space_to_depth", []int{2, 5, 4, 7, 4, 3}, []int{0, 1, 3, 2, 4, 5},
		bs.OpSpaceToDepth, bs.Params{N: 2, C: 3, H: 20, W: 28, BlockSize: 4, Layout: bs.NHWC}},
	{"pixel_unshuffle channels-last", []int{2, 5, 4, 7, 4, 3}, []int{0, 1, 3, 5, 2, 4},
		bs.OpSpaceToDepth, bs.Params{N: 2, C: 3, H: 20, W: 28, BlockSize: 4, Order: bs.CRD, Layout: bs.NHWC}},
}

// TestRequestNumbers holds the package's Op, Order and Layout to the
// values internal/shape reads them as, and checks that a geometry maps
// back to the parameters it was checked from.
func TestRequestNumbers(t *testing.T) {
	if uint8(bs.OpDepthToSpace) != shape.DepthToSpace || uint8(bs.OpSpaceToDepth) != shape.SpaceToDepth {
		t.Fatal("Op and internal/shape number the operators differently")
	}
	if uint8(bs.DCR) != shape.DCR || uint8(bs.CRD) != shape.CRD || uint8(bs.NCHW) != shape.NCHW || uint8(bs.NHWC) != shape.NHWC {
		t.Fatal("Order or Layout and internal/shape number their values differently")
	}
	for _, op := range []bs.Op{bs.OpDepthToSpace, bs.OpSpaceToDepth} {
		p := bs.Params{N: 1, C: 8, H: 4, W: 6, BlockSize: 2, Order: bs.CRD, Layout: bs.NHWC, Workers: 6}
		r := bs.RequestOf(op, p, 2)
		g, err := r.Check()
		if err != nil {
			t.Fatal(err)
		}
		if op2, p2 := bs.ParamsOf(&g); op2 != op || p2 != p {
			t.Errorf("%v %+v checks to %+v, which maps back to %v %+v", op, p, g, op2, p2)
		}
	}
	if bs.OpSpaceToDepth.String() != "SpaceToDepth" || bs.Op(7).String() != "Op(7)" {
		t.Errorf("Op.String: %v, %v", bs.OpSpaceToDepth, bs.Op(7))
	}
}

func TestMatchTransposeIdioms(t *testing.T) {
	for _, c := range idioms {
		op, p, ok := bs.MatchTranspose(c.shape, c.perm)
		if !ok || op != c.op || p != c.p {
			t.Errorf("%s: got %v %+v %v, want %v %+v", c.name, op, p, ok, c.op, c.p)
		}
		// Rank 5: N left out.
		perm5 := make([]int, 5)
		for k := range perm5 {
			perm5[k] = c.perm[k+1] - 1
		}
		want := c.p
		want.N = 1
		if op, p, ok := bs.MatchTranspose(c.shape[1:], perm5); !ok || op != c.op || p != want {
			t.Errorf("%s, rank 5: got %v %+v %v, want %v %+v", c.name, op, p, ok, c.op, want)
		}
		checkTranspose(t, c.name, c.shape, c.perm)
	}
}

// checkTranspose runs Transpose and TransposeBytes against the naive
// transpose, on float32 data and as 3-byte elements.
func checkTranspose(t *testing.T, name string, shape, perm []int) {
	t.Helper()
	n := 1
	for _, s := range shape {
		n *= s
	}
	src := make([]float32, n)
	for i := range src {
		src[i] = float32(i) + 0.5
	}
	want := make([]float32, n)
	ref.Transpose(want, src, shape, perm)
	dst := make([]float32, n)
	handled, err := bs.Transpose(dst, src, shape, perm)
	if !handled || err != nil {
		t.Fatalf("%s: Transpose handled %v, err %v", name, handled, err)
	}
	if !slices.Equal(dst, want) {
		t.Fatalf("%s: Transpose differs from the naive transpose", name)
	}
	const es = 3
	srcB := make([]byte, n*es)
	for i := range srcB {
		srcB[i] = byte(i * 7)
	}
	wantB := make([][es]byte, n)
	ref.Transpose(wantB, bytesAs(srcB), shape, perm)
	dstB := make([]byte, n*es)
	if handled, err = bs.TransposeBytes(dstB, srcB, es, shape, perm); !handled || err != nil {
		t.Fatalf("%s: TransposeBytes handled %v, err %v", name, handled, err)
	}
	if !slices.Equal(bytesAs(dstB), wantB) {
		t.Fatalf("%s: TransposeBytes differs from the naive transpose", name)
	}
}

func bytesAs(b []byte) [][3]byte {
	out := make([][3]byte, len(b)/3)
	for i := range out {
		copy(out[i][:], b[3*i:])
	}
	return out
}

// Random transposes through the public API, matched or not: every one is
// handled and equals the naive transpose.
func TestTransposeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	dims := []int{1, 2, 2, 3, 4}
	count := 3000
	if testing.Short() {
		count = 300
	}
	for range count {
		c := idioms[rng.IntN(len(idioms))]
		shape := slices.Clone(c.shape)
		perm := slices.Clone(c.perm)
		for k := range shape {
			shape[k] = dims[rng.IntN(len(dims))]
		}
		if rng.IntN(3) == 0 {
			perm = rng.Perm(len(perm))
		}
		checkTranspose(t, "random", shape, perm)
	}
}

func TestTransposeErrors(t *testing.T) {
	shape, perm := []int{1, 2, 2, 3, 1, 1}, []int{0, 3, 4, 1, 5, 2}
	dst, src := make([]float32, 11), make([]float32, 12)
	if handled, err := bs.Transpose(dst, src, shape, perm); !handled || !errors.Is(err, bs.ErrLength) {
		t.Errorf("short dst: handled %v, err %v; want ErrLength", handled, err)
	}
	if handled, err := bs.TransposeBytes(make([]byte, 12), make([]byte, 12), 0, shape, perm); !handled || !errors.Is(err, bs.ErrElemSize) {
		t.Errorf("elemSize 0: handled %v, err %v; want ErrElemSize", handled, err)
	}
	for _, p := range [][]int{{0, 1}, {0, 3, 4, 1, 5, 5}, {0, 3, 4, 1, 6, 2}, {0, 3, 4, -1, 5, 2}} {
		if handled, err := bs.Transpose(dst, src, shape, p); !handled || !errors.Is(err, bs.ErrPerm) {
			t.Errorf("perm %v: handled %v, err %v; want ErrPerm", p, handled, err)
		}
	}
	if handled, err := bs.Transpose(dst, src, []int{2, -3}, []int{1, 0}); !handled || !errors.Is(err, bs.ErrNegativeDim) {
		t.Errorf("negative dim: handled %v, err %v; want ErrNegativeDim", handled, err)
	}
	// The cache keeps a perm's entries as bytes: a perm whose entries
	// are another's plus 256 is still no permutation, after a call of
	// that other one too.
	good := make([]float32, 12)
	if _, err := bs.Transpose(good, src, []int{3, 4}, []int{1, 0}); err != nil {
		t.Fatal(err)
	}
	for _, p := range [][]int{{257, 0}, {1, 256}, {-255, 0}} {
		if handled, err := bs.Transpose(good, src, []int{3, 4}, p); !handled || !errors.Is(err, bs.ErrPerm) {
			t.Errorf("perm %v after [1 0]: handled %v, err %v; want ErrPerm", p, handled, err)
		}
	}
	overlapping := make([]float32, 12)
	if handled, err := bs.Transpose(overlapping, overlapping, []int{3, 4}, []int{1, 0}); !handled || !errors.Is(err, bs.ErrOverlap) {
		t.Errorf("dst = src: handled %v, err %v; want ErrOverlap", handled, err)
	}
	if handled, err := bs.Transpose(dst, src, make([]int, bs.MaxTransposeRank+1), make([]int, bs.MaxTransposeRank+1)); handled || err != nil {
		t.Errorf("rank %d: handled %v, err %v; want not handled", bs.MaxTransposeRank+1, handled, err)
	}
	if _, err := bs.NewTransposePlan(make([]int, bs.MaxTransposeRank+1), make([]int, bs.MaxTransposeRank+1), 4, 0); !errors.Is(err, bs.ErrRank) {
		t.Errorf("NewTransposePlan of rank %d: %v, want ErrRank", bs.MaxTransposeRank+1, err)
	}
}

// overflowOr is ErrOverflow where int has 32 bits (an int64 that does not
// fit), else err.
func overflowOr(err error) error {
	if strconv.IntSize == 32 {
		return bs.ErrOverflow
	}
	return err
}

func TestONNXParams(t *testing.T) {
	p, err := bs.ONNXParams(bs.OpDepthToSpace, []int64{1, 12, 270, 480}, 2, "CRD")
	if want := (bs.Params{N: 1, C: 12, H: 270, W: 480, BlockSize: 2, Order: bs.CRD}); err != nil || p != want {
		t.Errorf("got %+v, %v; want %+v", p, err, want)
	}
	p, err = bs.ONNXParams(bs.OpSpaceToDepth, []int64{1, 3, 224, 224}, 4, "")
	if want := (bs.Params{N: 1, C: 3, H: 224, W: 224, BlockSize: 4}); err != nil || p != want {
		t.Errorf("got %+v, %v; want %+v", p, err, want)
	}
	// Opset 28's SpaceToDepth mode.
	for mode, order := range map[string]bs.Order{"": bs.DCR, "DCR": bs.DCR, "CRD": bs.CRD} {
		p, err = bs.ONNXParams(bs.OpSpaceToDepth, []int64{1, 2, 4, 6}, 2, mode)
		if want := (bs.Params{N: 1, C: 2, H: 4, W: 6, BlockSize: 2, Order: order}); err != nil || p != want {
			t.Errorf("SpaceToDepth mode %q: got %+v, %v; want %+v", mode, p, err, want)
		}
	}
	// ONNX's modes are exact: what ParseOrder reads for people is not one.
	for _, op := range []bs.Op{bs.OpDepthToSpace, bs.OpSpaceToDepth} {
		for _, mode := range []string{"crd", "Dcr", "CRD ", " DCR", "pixel_shuffle", "pixel_unshuffle",
			"DEPTH_COLUMN_ROW", "depth_to_space", "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH", "RCD", "\x00"} {
			_, err := bs.ONNXParams(op, []int64{1, 4, 2, 2}, 2, mode)
			if !errors.Is(err, bs.ErrOrder) || !strings.Contains(err.Error(), strconv.Quote(mode)) {
				t.Errorf("%v mode %q: err %v, want ErrOrder naming the mode", op, mode, err)
			}
		}
	}
	for _, c := range []struct {
		op    bs.Op
		dims  []int64
		b     int64
		mode  string
		want  error
		names string
	}{
		{bs.OpDepthToSpace, []int64{1, 12, 2}, 2, "", bs.ErrRank, "[1 12 2]"},
		{bs.OpDepthToSpace, []int64{1, -12, 2, 2}, 2, "", bs.ErrNegativeDim, "-12"},
		{bs.OpDepthToSpace, []int64{1, 12, 2, 2}, 0, "", bs.ErrBlockSize, "BlockSize = 0"},
		{bs.OpDepthToSpace, []int64{1, 12, 2, 2}, 1 << 20, "", bs.ErrNotDivisible, "C = 12"}, // b*b overflows a 32-bit int
		{bs.OpDepthToSpace, []int64{1, 12, 2, 2}, 2, "RCD", bs.ErrOrder, `"RCD"`},
		{bs.OpDepthToSpace, []int64{1, 10, 2, 2}, 2, "DCR", bs.ErrNotDivisible, "C = 10"},
		{bs.OpSpaceToDepth, []int64{1, 3, 5, 4}, 2, "", bs.ErrNotDivisible, "H = 5"},
		{bs.Op(2), []int64{1, 3, 4, 4}, 2, "", bs.ErrOp, "Op(2)"},
		{bs.OpDepthToSpace, []int64{1, 12, 2, 2}, math.MaxInt64, "", overflowOr(bs.ErrNotDivisible), "9223372036854775807"},
		{bs.OpDepthToSpace, []int64{1, math.MaxInt64 - 3, 2, 2}, 2, "", bs.ErrOverflow, ""}, // a multiple of 4, but N*C*H*W overflows
	} {
		_, err := bs.ONNXParams(c.op, c.dims, c.b, c.mode)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.names) {
			t.Errorf("%v %v b=%d mode %q: err %v, want %v naming %s", c.op, c.dims, c.b, c.mode, err, c.want, c.names)
		}
	}
}

// A planned transpose that is no block shuffle runs without allocating,
// from several goroutines at once, and so does a plain call of a shape
// seen before, a block shuffle or not.
func TestTransposeGeneralAllocs(t *testing.T) {
	shape, perm := []int{3, 5, 7, 2}, []int{2, 0, 3, 1}
	src := make([]float32, 3*5*7*2)
	for i := range src {
		src[i] = float32(i)
	}
	want := make([]float32, len(src))
	ref.Transpose(want, src, shape, perm)
	dst := make([]float32, len(src))
	pl, err := bs.NewTransposePlan(shape, perm, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(50, func() { _ = bs.RunPlan(pl, dst, src) }); n != 0 {
		t.Errorf("RunPlan: %v allocations a run", n)
	}
	// Plain calls, the same shape again: a general transpose, and a
	// DepthToSpace (DCR, b = 2) written as one.
	d2s, d2sPerm := []int{1, 2, 2, 4, 3, 5}, []int{0, 3, 4, 1, 5, 2}
	if _, _, ok := bs.MatchTranspose(d2s, d2sPerm); !ok {
		t.Fatalf("%v by %v is no DepthToSpace", d2s, d2sPerm)
	}
	d2sSrc, d2sDst := make([]float32, 2*2*4*3*5), make([]float32, 2*2*4*3*5)
	rawSrc, rawDst := make([]byte, 4*len(src)), make([]byte, 4*len(src))
	for name, call := range map[string]func() (bool, error){
		"Transpose":                func() (bool, error) { return bs.Transpose(dst, src, shape, perm) },
		"TransposeBytes":           func() (bool, error) { return bs.TransposeBytes(rawDst, rawSrc, 4, shape, perm) },
		"Transpose (DepthToSpace)": func() (bool, error) { return bs.Transpose(d2sDst, d2sSrc, d2s, d2sPerm) },
	} {
		if ok, err := call(); !ok || err != nil {
			t.Fatalf("%s: %v, %v", name, ok, err)
		}
		if n := testing.AllocsPerRun(50, func() { _, _ = call() }); n != 0 {
			t.Errorf("%s of a shape seen before: %v allocations a call", name, n)
		}
	}
	var wg sync.WaitGroup
	outs := make([][]float32, 4)
	for g := range outs {
		outs[g] = make([]float32, len(src))
		wg.Go(func() {
			for range 100 {
				if err := bs.RunPlan(pl, outs[g], src); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for _, out := range append(outs, dst) {
		if !slices.Equal(out, want) {
			t.Fatal("a run differs from the naive transpose")
		}
	}
	if err := bs.RunPlan(pl, dst[1:], src); !errors.Is(err, bs.ErrLength) {
		t.Errorf("short dst: %v, want ErrLength", err)
	}
	if err := bs.RunPlan(pl, make([]int16, len(src)), make([]int16, len(src))); !errors.Is(err, bs.ErrElemType) {
		t.Errorf("int16 on a plan of 4-byte elements: %v, want ErrElemType", err)
	}
}

// TestPlansAfterGC: plans run with no allocation after a garbage
// collection too, those that move in two passes through a buffer
// included (their buffers came from a sync.Pool, which a GC empties: two
// allocations a run), both as a Plan and as plain calls of a shape seen
// before; operators' plans too.
func TestPlansAfterGC(t *testing.T) {
	for _, p := range []bs.Params{
		{N: 1, C: 64, H: 56, W: 56, BlockSize: 2},
		{N: 2, C: 256, H: 13, W: 13, BlockSize: 2, Order: bs.CRD},  // short rows: stacks, bundles or gathers
		{N: 1, C: 48, H: 30, W: 40, BlockSize: 4, Layout: bs.NHWC}, // runs
	} {
		pl, err := bs.NewPlan(bs.OpDepthToSpace, p, 4)
		if err != nil {
			t.Fatal(err)
		}
		dst, src := make([]float32, p.N*p.C*p.H*p.W), make([]float32, p.N*p.C*p.H*p.W)
		for name, run := range map[string]func(){
			"RunPlan":      func() { _ = bs.RunPlan(pl, dst, src) },
			"DepthToSpace": func() { _ = bs.DepthToSpace(dst, src, p) },
		} {
			run()
			if allocs := testing.AllocsPerRun(20, func() { runtime.GC(); run() }); allocs != 0 {
				t.Errorf("%+v (%v): %s after a GC: %v allocations", p, pl, name, allocs)
			}
		}
	}
	for _, c := range []struct {
		shape, perm []int
		elem        int
	}{
		{[]int{4, 6, 8, 5, 7, 3}, []int{5, 3, 1, 0, 4, 2}, 4},
		{[]int{2, 3, 2}, []int{2, 1, 0}, 2},
		{[]int{2, 3, 6, 2, 9}, []int{3, 1, 4, 0, 2}, 4},
		{[]int{64, 6, 8, 5, 7, 3}, []int{5, 3, 1, 0, 4, 2}, 4}, // 1.3 MB: in chunks
		{[]int{1, 64, 56, 56}, []int{0, 2, 3, 1}, 4},
	} {
		n := c.elem
		for _, d := range c.shape {
			n *= d
		}
		dst, src := make([]byte, n), make([]byte, n)
		pl, err := bs.NewTransposePlan(c.shape, c.perm, c.elem, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bs.TransposeBytes(dst, src, c.elem, c.shape, c.perm); err != nil {
			t.Fatal(err)
		}
		for name, run := range map[string]func(){
			"Plan.Run":       func() { _ = pl.Run(dst, src) },
			"TransposeBytes": func() { _, _ = bs.TransposeBytes(dst, src, c.elem, c.shape, c.perm) },
		} {
			run()
			if allocs := testing.AllocsPerRun(20, func() { runtime.GC(); run() }); allocs != 0 {
				t.Errorf("%v by %v (%v): %s after a GC: %v allocations", c.shape, c.perm, pl, name, allocs)
			}
		}
	}
}

// TestTransposeWorkers: a transpose plan's workers bounds its runs'
// goroutines as Params.Workers does, and a negative one is ErrWorkers.
func TestTransposeWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer engine.SetShares(256<<10, 16)()         // a server's: 16 cores, helpers that start at once
	shape, perm := []int{1024, 1024}, []int{1, 0} // 4 MiB of 4-byte words: one goroutine per 256 KiB up to GOMAXPROCS when automatic
	src := make([]float32, 1024*1024)
	for i := range src {
		src[i] = float32(i)
	}
	want := make([]float32, len(src))
	ref.Transpose(want, src, shape, perm)
	for workers, goroutines := range map[int]string{0: "4 goroutines", 1: "1 goroutine", 3: "3 goroutines"} {
		pl, err := bs.NewTransposePlan(shape, perm, 4, workers)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(pl.String(), "; "+goroutines+"; ") {
			t.Errorf("workers %d: %v, want %s", workers, pl, goroutines)
		}
		got := make([]float32, len(src))
		if err := bs.RunPlan(pl, got, src); err != nil || !slices.Equal(got, want) {
			t.Errorf("workers %d: %v or a wrong output", workers, err)
		}
	}
	if _, err := bs.NewTransposePlan(shape, perm, 4, -1); !errors.Is(err, bs.ErrWorkers) {
		t.Errorf("workers -1: %v, want ErrWorkers", err)
	}
}
