package blockshuffle_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"testing"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/random"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/verify"
)

// planRunner makes each call with a Plan made for it.
func planRunner(g *shape.Geometry, dst, src []byte) error {
	op, p := bs.ParamsOf(g)
	pl, err := bs.NewPlan(op, p, g.Elem)
	if err != nil {
		return err
	}
	return pl.Run(dst, src)
}

// TestPlanMatchesReference runs plans over the edge cases and random
// shapes, at every width, against the reference, and checks that String
// says what Describe says.
func TestPlanMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	all := append(cases.Edge(), cases.Random(rng, 200, 1<<14)...)
	verify.Compare(t, "plan", planRunner, all, cases.Widths, rng)
	for _, c := range all[:50] {
		op, p := bs.ParamsOf(&c)
		pl, err := bs.NewPlan(op, p, 4)
		if err != nil {
			t.Fatal(err)
		}
		if d, _ := bs.Describe(op, p, 4); pl.String() != d {
			t.Errorf("%v: String %q, Describe %q", c, pl, d)
		}
	}
}

// TestRunPlan runs the typed form on float32 and uint16 tensors.
func TestRunPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, c := range cases.Random(rng, 100, 4096) {
		src := bitsAs[float32](random.Bytes(rng, 4*c.Len()))
		want, got := make([]float32, len(src)), make([]float32, len(src))
		ref.Run(&c, want, src)
		op, p := bs.ParamsOf(&c)
		pl, err := bs.NewPlan(op, p, 4)
		if err != nil {
			t.Fatal(err)
		}
		if err := bs.RunPlan(pl, got, src); err != nil || !bytes.Equal(bitsOf(got), bitsOf(want)) {
			t.Fatalf("%v: RunPlan: %v, or a wrong output", c, err)
		}
		// A plan of 2-byte elements on uint16.
		pl2, _ := bs.NewPlan(op, p, 2)
		s16, w16, g16 := bitsAs[uint16](bitsOf(src))[:c.Len()], make([]uint16, c.Len()), make([]uint16, c.Len())
		ref.Run(&c, w16, s16)
		if err := bs.RunPlan(pl2, g16, s16); err != nil || !bytes.Equal(bitsOf(g16), bitsOf(w16)) {
			t.Fatalf("%v: RunPlan on uint16: %v, or a wrong output", c, err)
		}
	}
}

// TestPlanErrors: bad slices get the error the plain functions give,
// wrapping one sentinel, and leave dst untouched; so do a plan run on the
// wrong element type and one NewPlan did not make.
func TestPlanErrors(t *testing.T) {
	p := bs.Params{N: 1, C: 8, H: 3, W: 5, BlockSize: 2}
	pl, err := bs.NewPlan(bs.OpDepthToSpace, p, 4)
	if err != nil {
		t.Fatal(err)
	}
	n := 8 * 3 * 5
	buf := make([]byte, 8*n)
	for i := range buf {
		buf[i] = byte(i)
	}
	check := func(name string, err, want error, untouched []byte) {
		t.Helper()
		before := bytes.Clone(untouched)
		if !errors.Is(err, want) || verify.Wrapped(err) != 1 {
			t.Errorf("%s: error %v, want one sentinel: %v", name, err, want)
		}
		if !bytes.Equal(untouched, before) {
			t.Errorf("%s: dst was written", name)
		}
	}
	dst := make([]byte, 4*n)
	check("short src", pl.Run(dst, buf[:4*n-1]), bs.ErrLength, dst)
	check("long dst", pl.Run(make([]byte, 4*n+4), buf[:4*n]), bs.ErrLength, buf)
	check("overlap", pl.Run(buf[4:4+4*n], buf[:4*n]), bs.ErrOverlap, buf)
	check("uint16 on a 4-byte plan", bs.RunPlan(pl, make([]uint16, n), make([]uint16, n)), bs.ErrElemType, dst)
	check("float32 lengths", bs.RunPlan(pl, make([]float32, n), make([]float32, n-1)), bs.ErrLength, dst)
	check("a nil plan", (*bs.Plan)(nil).Run(dst, buf[:4*n]), bs.ErrOp, dst)
	check("a zero plan", bs.RunPlan(&bs.Plan{}, make([]float32, n), make([]float32, n)), bs.ErrOp, dst)
	for _, bad := range []bs.Params{{N: -1, C: 4, H: 1, W: 1, BlockSize: 2}, {N: 1, C: 6, H: 1, W: 1, BlockSize: 2}, {BlockSize: 0}} {
		_, errPlan := bs.NewPlan(bs.OpDepthToSpace, bad, 4)
		errCall := bs.DepthToSpaceBytes(nil, nil, 4, bad)
		if errPlan == nil || errCall == nil || errPlan.Error() != errCall.Error() {
			t.Errorf("%+v: NewPlan says %v, the call %v", bad, errPlan, errCall)
		}
	}
	if _, err := bs.NewPlan(bs.OpSpaceToDepth, p, 0); !errors.Is(err, bs.ErrElemSize) {
		t.Errorf("elemSize 0: %v", err)
	}
}

// TestPlanConcurrent runs one plan from several goroutines at once, on
// tensors small enough for one goroutine each and large enough to split:
// each output must be right (and the race detector quiet).
func TestPlanConcurrent(t *testing.T) {
	for _, p := range []bs.Params{
		{N: 1, C: 64, H: 13, W: 13, BlockSize: 2},                  // one pass, or bundles
		{N: 1, C: 12, H: 16, W: 24, BlockSize: 2, Layout: bs.NHWC}, // one kernel call
		{N: 1, C: 16, H: 128, W: 128, BlockSize: 2, Workers: 4},    // pieces for goroutines
		{N: 2, C: 27, H: 20, W: 20, BlockSize: 3, Order: bs.CRD},   // several kernel calls
		{N: 1, C: 48, H: 60, W: 60, BlockSize: 4, Layout: bs.NHWC, Order: bs.CRD, Workers: 3},
	} {
		pl, err := bs.NewPlan(bs.OpDepthToSpace, p, 4)
		if err != nil {
			t.Fatal(err)
		}
		n := p.N * p.C * p.H * p.W
		src := make([]float32, n)
		for i := range src {
			src[i] = float32(i)
		}
		want := make([]float32, n)
		if err := bs.DepthToSpace(want, src, p); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				dst := make([]float32, n)
				for range 20 {
					clear(dst)
					if err := bs.RunPlan(pl, dst, src); err != nil {
						t.Error(err)
						return
					}
					if !bytes.Equal(bitsOf(dst), bitsOf(want)) {
						t.Errorf("%+v: a concurrent run differs", p)
						return
					}
				}
			})
		}
		wg.Wait()
	}
}

// TestPlanNoAllocations: a run allocates nothing, whatever Workers says of
// a tensor that one goroutine moves.
func TestPlanNoAllocations(t *testing.T) {
	for _, c := range cases.All(1, 3, 13, 13, 2) {
		for _, workers := range []int{0, 1, 4} {
			op, p := bs.ParamsOf(&c)
			p.Workers = workers
			pl, err := bs.NewPlan(op, p, 4)
			if err != nil {
				t.Fatal(err)
			}
			dst, src := make([]float32, c.Len()), make([]float32, c.Len())
			if n := testing.AllocsPerRun(50, func() { _ = bs.RunPlan(pl, dst, src) }); n != 0 {
				t.Errorf("%v workers=%d: %v allocations per run", c, workers, n)
			}
			raw, rawDst := make([]byte, 4*c.Len()), make([]byte, 4*c.Len())
			if n := testing.AllocsPerRun(50, func() { _ = pl.Run(rawDst, raw) }); n != 0 {
				t.Errorf("%v workers=%d: Run allocates %v times", c, workers, n)
			}
		}
	}
}

// Planning a tensor of any size the checks accept takes bounded memory: a
// 4e17-byte SpaceToDepth (a fuzzer's find) once asked for a piece per 256
// KiB of it. The largest is planned, and one byte more refused.
func TestPlanHugeTensor(t *testing.T) {
	if strconv.IntSize == 32 {
		t.Skip("the tensor does not fit in a 32-bit int")
	}
	row := 31 * 57 * 224 // bytes of one H at N=31 C=57 W=224 of bytes
	p := bs.Params{N: 31, C: 57, H: shape.MaxBytes / row &^ 1, W: 224, BlockSize: 2}
	if _, err := bs.Describe(bs.OpSpaceToDepth, p, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := bs.NewPlan(bs.OpSpaceToDepth, p, 1); err != nil {
		t.Fatal(err)
	}
	p.H += 2
	if _, err := bs.NewPlan(bs.OpSpaceToDepth, p, 1); !errors.Is(err, bs.ErrOverflow) {
		t.Errorf("%+v, over the limit: %v, want ErrOverflow", p, err)
	}
}

// manyTinyImages are the calls whose plans once grew with N: 2^24 images
// of one pixel on the depth side, of bytes, in every layout and order
// (NCHW's images continue each other on one side only), with Workers at 0
// (pieces for goroutines) and 1.
func manyTinyImages() (out []struct {
	op bs.Op
	p  bs.Params
}) {
	for _, op := range []bs.Op{bs.OpDepthToSpace, bs.OpSpaceToDepth} {
		for _, l := range []bs.Layout{bs.NCHW, bs.NHWC} {
			for _, o := range []bs.Order{bs.DCR, bs.CRD} {
				for _, workers := range []int{0, 1} {
					p := bs.Params{N: 1 << 24, C: 4, H: 1, W: 1, BlockSize: 2, Order: o, Layout: l, Workers: workers}
					if op == bs.OpSpaceToDepth {
						p.C, p.H, p.W = 1, 2, 2
					}
					out = append(out, struct {
						op bs.Op
						p  bs.Params
					}{op, p})
				}
			}
		}
	}
	return out
}

// TestPlanBoundedByRank: a plan's size is bounded by its loops and pieces,
// not by N, H or W. On every tier this build has, which planning alone
// runs on any CPU, Describe of N = 2^24 images of one pixel (64 MiB)
// allocates less than 64 KiB; NewPlan too, on the tier in use. (At
// e218ff1 N = 2^20 took 308 MiB and 1.1 s; BenchmarkPlanManyImages
// times it.)
func TestPlanBoundedByRank(t *testing.T) {
	const limit = 64 << 10
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for _, c := range manyTinyImages() {
		r := bs.RequestOf(c.op, c.p, 1)
		g, err := r.Check()
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range isa.All {
			tier := engine.Lookup(i.TierName)
			if tier == nil {
				continue
			}
			if n := allocated(func() { tier.Operator(&g).Describe() }); n >= limit {
				t.Errorf("%s: %v %+v: Describe allocated %d bytes", i.TierName, c.op, c.p, n)
			}
		}
		if n := allocated(func() { _, _ = bs.NewPlan(c.op, c.p, 1) }); n >= limit {
			t.Errorf("%v %+v: NewPlan allocated %d bytes", c.op, c.p, n)
		}
	}
}

// BenchmarkPlanManyImages times NewPlan of manyTinyImages.
func BenchmarkPlanManyImages(b *testing.B) {
	b.ReportAllocs()
	cs := manyTinyImages()
	for i := 0; b.Loop(); i++ {
		c := cs[i%len(cs)]
		if _, err := bs.NewPlan(c.op, c.p, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPlanElemType pins the error of a plan run on the wrong element type,
// for every kind of plan: it names the plan's own op (and a transpose's
// shape and perm), both sizes, and wraps ErrElemType alone.
func TestPlanElemType(t *testing.T) {
	p := bs.Params{N: 1, C: 8, H: 2, W: 2, BlockSize: 2}
	d2s, err1 := bs.NewPlan(bs.OpDepthToSpace, p, 4)
	s2d, err2 := bs.NewPlan(bs.OpSpaceToDepth, bs.Params{N: 1, C: 2, H: 4, W: 4, BlockSize: 2}, 4)
	tr, err3 := bs.NewTransposePlan([]int{4, 8}, []int{1, 0}, 4, 0)
	op, err4 := bs.NewTransposePlan([]int{1, 2, 2, 2, 2, 2}, []int{0, 3, 4, 1, 5, 2}, 4, 0) // DepthToSpace as a transpose
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pl   *bs.Plan
		want string
	}{
		{d2s, "blockshuffle: DepthToSpace: a plan for 4-byte elements, run on float64 (8 bytes): element type does not match the plan"},
		{s2d, "blockshuffle: SpaceToDepth: a plan for 4-byte elements, run on float64 (8 bytes): element type does not match the plan"},
		{tr, "blockshuffle: Transpose: shape [4 8] by perm [1 0]: a plan for 4-byte elements, run on float64 (8 bytes): element type does not match the plan"},
		{op, "blockshuffle: Transpose: shape [1 2 2 2 2 2] by perm [0 3 4 1 5 2]: a plan for 4-byte elements, run on float64 (8 bytes): element type does not match the plan"},
	} {
		dst := make([]float64, 16)
		err := bs.RunPlan(c.pl, dst, make([]float64, 16))
		if err == nil || err.Error() != c.want || !errors.Is(err, bs.ErrElemType) || verify.Wrapped(err) != 1 {
			t.Errorf("%v:\n got %v\nwant %s", c.pl, err, c.want)
		}
	}
}
