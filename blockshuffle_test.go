package blockshuffle_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/x448/float16"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/dispatch"
	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/random"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/verify"
)

// api is the package's byte-level functions as verify's Runner.
var api = verify.API(bs.DepthToSpaceBytes, bs.SpaceToDepthBytes, bs.RequestParams)

// TestTiersMatchReference runs every tier this machine can run over the
// edge cases and random shapes, at every width, against the naive
// reference: as calls run, and with every call taking the streaming paths
// that only tensors past a quarter of the cache take (the planner's
// choice of non-temporal kernels and the layouts it hands them).
func TestTiersMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	random := 300
	if testing.Short() {
		random = 30
	}
	all := append(cases.Edge(), cases.Random(rng, random, 1<<14)...)
	for _, stream := range []bool{false, true} {
		if stream {
			defer engine.SetStreamMin(0)() // from here on every call streams
		}
		for _, tier := range verify.Tiers() {
			name := tier.Name + map[bool]string{true: " streaming"}[stream]
			t.Run(name, func(t *testing.T) {
				verify.Compare(t, name, tier.Run, all, cases.Widths, rng)
			})
		}
	}
}

// TestEveryElementKind goes through the typed API for each kind Element allows.
func TestEveryElementKind(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	all := append(cases.Edge()[:200], cases.Random(rng, 60, 4096)...)
	checkKind[bool](t, all, rng)
	checkKind[int8](t, all, rng)
	checkKind[int16](t, all, rng)
	checkKind[int32](t, all, rng)
	checkKind[int64](t, all, rng)
	checkKind[int](t, all, rng)
	checkKind[uint8](t, all, rng)
	checkKind[uint16](t, all, rng)
	checkKind[uint32](t, all, rng)
	checkKind[uint64](t, all, rng)
	checkKind[uint](t, all, rng)
	checkKind[uintptr](t, all, rng)
	checkKind[float32](t, all, rng)
	checkKind[float64](t, all, rng)
	checkKind[complex64](t, all, rng)
	checkKind[complex128](t, all, rng)
	checkKind[float16.Float16](t, all, rng)
	checkKind[bfloat16](t, all, rng)
}

// bfloat16 is how a library without a bfloat16 package holds the type: raw
// bits, which blockshuffle moves unchanged.
type bfloat16 uint16

func checkKind[T bs.Element](t *testing.T, all []shape.Geometry, rng *rand.Rand) {
	t.Helper()
	size := int(unsafe.Sizeof(*new(T)))
	for _, c := range all {
		// Random bits, not random values: every pattern must survive.
		raw := random.Bytes(rng, c.Len()*size)
		if _, isBool := any(*new(T)).(bool); isBool {
			for i := range raw {
				raw[i] &= 1
			}
		}
		src := bitsAs[T](raw)
		want, got := make([]T, len(src)), make([]T, len(src))
		ref.Run(&c, want, src)
		f := bs.DepthToSpace[T]
		if c.ToDepth {
			f = bs.SpaceToDepth[T]
		}
		_, p := bs.ParamsOf(&c)
		if err := f(got, src, p); err != nil {
			t.Fatalf("%T %v: %v", *new(T), c, err)
		}
		if !bytes.Equal(bitsOf(got), bitsOf(want)) {
			t.Fatalf("%T %v: result differs from the reference", *new(T), c)
		}
	}
}

func bitsOf[T any](s []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(*new(T)))
}

// bitsAs views raw bytes as elements of T.
func bitsAs[T any](b []byte) []T {
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b))/unsafe.Sizeof(*new(T)))
}

// TestInverse checks SpaceToDepth(DepthToSpace(x)) == x, same order and layout.
func TestInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, c := range cases.Random(rng, 500, 1<<13) {
		if c.ToDepth {
			continue
		}
		x := make([]uint64, c.Len())
		for i := range x {
			x[i] = rng.Uint64()
		}
		space, back := make([]uint64, len(x)), make([]uint64, len(x))
		_, p := bs.ParamsOf(&c)
		if err := bs.DepthToSpace(space, x, p); err != nil {
			t.Fatal(err)
		}
		out, err := p.DepthToSpaceDims()
		if err != nil {
			t.Fatal(err)
		}
		q := p
		q.N, q.C, q.H, q.W = out.N, out.C, out.H, out.W
		if err := bs.SpaceToDepth(back, space, q); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back, x) {
			t.Fatalf("%v: SpaceToDepth does not undo DepthToSpace", c)
		}
	}
}

// TestFloat16Bits moves every float16 bit pattern (signalling NaNs, -0,
// subnormals) there and back.
func TestFloat16Bits(t *testing.T) {
	src := make([]float16.Float16, 1<<16)
	for i := range src {
		src[i] = float16.Frombits(uint16(i))
	}
	for _, order := range []bs.Order{bs.DCR, bs.CRD} {
		for _, layout := range []bs.Layout{bs.NCHW, bs.NHWC} {
			p := bs.Params{N: 1, C: 16, H: 64, W: 64, BlockSize: 2, Order: order, Layout: layout}
			space, back := make([]float16.Float16, len(src)), make([]float16.Float16, len(src))
			if err := bs.DepthToSpace(space, src, p); err != nil {
				t.Fatal(err)
			}
			q := bs.Params{N: 1, C: 4, H: 128, W: 128, BlockSize: 2, Order: order, Layout: layout}
			if err := bs.SpaceToDepth(back, space, q); err != nil {
				t.Fatal(err)
			}
			for i, v := range back {
				if v.Bits() != uint16(i) {
					t.Fatalf("%v %v: bits %#04x came back as %#04x", order, layout, i, v.Bits())
				}
			}
			if !slices.Contains(space, float16.Frombits(0x7c01)) || !slices.Contains(space, float16.Frombits(0x8000)) {
				t.Fatalf("%v %v: signalling NaN or -0 lost in DepthToSpace", order, layout)
			}
		}
	}
}

// TestWorkersRace runs calls on several goroutines, with the kernels of the
// tier in use; run with -race. The floor of work per goroutine and
// GOMAXPROCS are lowered and raised so that these small tensors split.
func TestWorkersRace(t *testing.T) {
	defer engine.SetShares(1, 0)()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(64))
	rng := rand.New(rand.NewPCG(17, 18))
	for _, c := range cases.All(2, 3, 24, 40, 2) {
		src := random.Bytes(rng, c.Len()*4)
		for _, w := range []int{2, 3, 7, 64} {
			c.Workers, c.Elem = w, 4
			op, p := bs.ParamsOf(&c)
			route, err := bs.Describe(op, p, 4)
			if err != nil || !strings.Contains(route, "goroutines;") {
				t.Fatalf("%v workers=%d: %s, %v: not split", c, w, route, err)
			}
			verify.Check(t, fmt.Sprintf("workers=%d", w), api, &c, make([]byte, len(src)), src)
		}
	}
}

// TestNoAllocations checks the single-goroutine path allocates nothing.
func TestNoAllocations(t *testing.T) {
	for _, c := range cases.All(1, 3, 13, 13, 2) {
		src := make([]float32, c.Len())
		dst := make([]float32, c.Len())
		raw, rawDst := make([]byte, c.Len()*3), make([]byte, c.Len()*3)
		typed, byteAPI := bs.DepthToSpace[float32], bs.DepthToSpaceBytes
		if c.ToDepth {
			typed, byteAPI = bs.SpaceToDepth[float32], bs.SpaceToDepthBytes
		}
		for _, workers := range []int{0, 1} {
			_, p := bs.ParamsOf(&c)
			p.Workers = workers
			if n := testing.AllocsPerRun(50, func() { _ = typed(dst, src, p) }); n != 0 {
				t.Errorf("%v workers=%d: typed API allocates %v times per call", c, workers, n)
			}
			if n := testing.AllocsPerRun(50, func() { _ = byteAPI(rawDst, raw, 3, p) }); n != 0 {
				t.Errorf("%v workers=%d: byte API allocates %v times per call", c, workers, n)
			}
		}
	}
}

func TestTierName(t *testing.T) {
	os.Getenv(dispatch.EnvVar) // so that go test's cache depends on it (dispatch reads it at init)
	if bs.Tier() != dispatch.Active().String() || bs.Tier() == "" {
		t.Fatalf("Tier() = %q, dispatch chose %v", bs.Tier(), dispatch.Active())
	}
}

// TestLargeTensors goes past the size from which kernels may stream their
// output with non-temporal stores, on a shape whose rows allow it.
func TestLargeTensors(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB of buffers")
	}
	rng := rand.New(rand.NewPCG(19, 20))
	for _, c := range cases.All(1, 16, 256, 1024, 2) { // 16 MiB of float32
		src := random.Bytes(rng, c.Len()*4)
		c.Elem = 4
		for _, tier := range verify.Tiers() {
			verify.Check(t, tier.Name, tier.Run, &c, make([]byte, len(src)), src)
		}
	}
}

// TestBaseTakesTheRest checks that a tier whose ISA has a base (AVX-512's is
// AVX2) hands the base what it has no kernel for: rows shorter than its
// kernels take, and 16-byte elements at block sizes it leaves out. The
// route names the base's kernel, and the result is right. (Short rows go
// to the tier's own gather kernels where it has them, in SpaceToDepth at
// block sizes over 2 only, and short rows of block size 2 to its
// stacked-row kernels.)
func TestBaseTakesTheRest(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, tier := range dispatch.Available() {
		i := isa.All[tier]
		if i.Base == "" {
			continue
		}
		m := engine.Lookup(tier.String())
		for _, c := range []struct{ b, es, w int }{{2, 1, 13}, {4, 4, 13}, {3, 2, 3}, {5, 16, 3}} {
			for _, g := range cases.All(1, 2, 2, c.w, c.b)[:2] { // NCHW DCR, both ops
				g.Elem = c.es
				gathers := i.Windows.Vector > 0 && (!g.ToDepth || c.b > 2)
				if route := m.Operator(&g).Describe(); !strings.HasSuffix(route.Kernel, i.Base) && !(gathers && strings.HasPrefix(route.Kernel, "gather")) && !(c.b == 2 && strings.HasPrefix(route.Kernel, "stack")) {
					t.Errorf("%v %v es=%d: %v; want a kernel of the base, %s", tier, g, c.es, route, i.Base)
				}
				src := random.Bytes(rng, g.Len()*c.es)
				verify.Check(t, tier.String(), tierRunner(m), &g, make([]byte, len(src)), src)
			}
		}
	}
}

// TestDescribe: every tier describes every edge case, with the error the
// call would give where there is one, and names a kernel of the call's
// direction (zip for DepthToSpace, unzip for SpaceToDepth, in either
// order) or a generic loop, unless it goes as its transpose (the rows
// have no kernel), whose matrices and gathers zip either way.
func TestDescribe(t *testing.T) {
	for _, tier := range dispatch.Available() {
		m := engine.Lookup(tier.String())
		for _, c := range cases.Edge() {
			c.Elem = 2
			r := m.Operator(&c).Describe()
			if r.Tier != tier.String() || r.Workers != 1 || !strings.Contains(r.Plan, " of ") {
				t.Fatalf("%v %v: %+v", tier, c, r)
			}
			want := map[bool][]string{false: {"zip", "tunzip", "stackZip", "bundleZip"}, true: {"unzip", "tzip", "stackUnzip", "bundleUnzip"}}[c.ToDepth]
			if !c.NHWC && (!c.ToDepth || c.B > 2) { // short rows: a gather plan
				want = append(want, "gather")
			}
			if c.NHWC { // runs as zips: the interleaved side is depth
				want = append(want, map[bool]string{false: "unzip", true: "zip"}[c.ToDepth], "copyRuns")
			}
			ok := strings.HasPrefix(r.Kernel, "generic: ") || strings.HasPrefix(r.Plan, "transpose") || strings.HasPrefix(r.Plan, "gather")
			for _, w := range want {
				ok = ok || strings.HasPrefix(r.Kernel, w)
			}
			if !ok {
				t.Errorf("%v %v: kernel %q, want one starting with one of %q", tier, c, r.Kernel, want)
			}
		}
	}
	bad := bs.Params{N: 1, C: 6, H: 2, W: 2, BlockSize: 2}
	callErr := bs.DepthToSpace(make([]int16, 24), make([]int16, 24), bad)
	if _, err := bs.Describe(bs.OpDepthToSpace, bad, 2); err == nil || callErr == nil || err.Error() != callErr.Error() {
		t.Errorf("Describe of a bad call: %v, want the call's error %v", err, callErr)
	}
	if _, err := bs.Describe(bs.OpSpaceToDepth, bs.Params{N: 1, C: 1, H: 2, W: 2, BlockSize: 2}, 0); !errors.Is(err, bs.ErrElemSize) {
		t.Errorf("Describe with elemSize 0: %v", err)
	}
}

// tierRunner is a tier's operators as verify's Runner.
func tierRunner(m *engine.Kit) verify.Runner {
	return func(g *shape.Geometry, dst, src []byte) error {
		r := g.Request()
		return m.Do(&r, engine.PlanOperator, 1, dst, src)
	}
}
