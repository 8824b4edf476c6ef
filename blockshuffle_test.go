package blockshuffle_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/x448/float16"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/dispatch"
	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// TestTiersMatchReference runs every tier this machine can run over the
// edge cases and random shapes, at every width, against the naive reference.
func TestTiersMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	random := 300
	if testing.Short() {
		random = 30
	}
	all := append(cases.Edge(), cases.Random(rng, random, 1<<14)...)
	for _, tier := range tiersUnderTest() {
		sets := dispatch.Sets(tier)
		t.Run(tier.String(), func(t *testing.T) {
			for _, es := range cases.Widths {
				for _, c := range all {
					src := cases.Fill(rng, c.Len()*es)
					want, got := make([]byte, len(src)), make([]byte, len(src))
					if err := ref.RunBytes(c.Op, want, src, es, c.P); err != nil {
						t.Fatal(err)
					}
					if err := sets.Do(c.Op, got, src, es, c.P); err != nil {
						t.Fatalf("%v es=%d: %v", c, es, err)
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("%v es=%d: result differs from the reference", c, es)
					}
				}
			}
		})
	}
}

// tiersUnderTest are the tiers this machine runs; with -short, as under
// emulation, only the one in use.
func tiersUnderTest() []dispatch.Tier {
	if testing.Short() {
		return []dispatch.Tier{dispatch.Active()}
	}
	return dispatch.Available()
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

func checkKind[T bs.Element](t *testing.T, all []cases.Case, rng *rand.Rand) {
	t.Helper()
	size := int(unsafe.Sizeof(*new(T)))
	for _, c := range all {
		// Random bits, not random values: every pattern must survive.
		raw := cases.Fill(rng, c.Len()*size)
		if _, isBool := any(*new(T)).(bool); isBool {
			for i := range raw {
				raw[i] &= 1
			}
		}
		src := bitsAs[T](raw)
		want, got := make([]T, len(src)), make([]T, len(src))
		if err := ref.Run(c.Op, want, src, c.P); err != nil {
			t.Fatal(err)
		}
		f := bs.DepthToSpace[T]
		if c.Op == shape.SpaceToDepth {
			f = bs.SpaceToDepth[T]
		}
		if err := f(got, src, c.P); err != nil {
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
		if c.Op != shape.DepthToSpace {
			continue
		}
		x := make([]uint64, c.Len())
		for i := range x {
			x[i] = rng.Uint64()
		}
		space, back := make([]uint64, len(x)), make([]uint64, len(x))
		if err := bs.DepthToSpace(space, x, c.P); err != nil {
			t.Fatal(err)
		}
		out, err := c.P.DepthToSpaceDims()
		if err != nil {
			t.Fatal(err)
		}
		q := c.P
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

// TestWorkersRace runs large calls on several goroutines; run with -race.
func TestWorkersRace(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, c := range cases.All(2, 3, 24, 40, 2) {
		src := cases.Fill(rng, c.Len()*4)
		want := make([]byte, len(src))
		if err := ref.RunBytes(c.Op, want, src, 4, c.P); err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{2, 3, 7, 64} {
			c.P.Workers = w
			got := make([]byte, len(src))
			f := bs.DepthToSpaceBytes
			if c.Op == shape.SpaceToDepth {
				f = bs.SpaceToDepthBytes
			}
			if err := f(got, src, 4, c.P); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%v workers=%d: result differs from the reference", c, w)
			}
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
		if c.Op == shape.SpaceToDepth {
			typed, byteAPI = bs.SpaceToDepth[float32], bs.SpaceToDepthBytes
		}
		for _, workers := range []int{0, 1} {
			c.P.Workers = workers
			if n := testing.AllocsPerRun(50, func() { _ = typed(dst, src, c.P) }); n != 0 {
				t.Errorf("%v workers=%d: typed API allocates %v times per call", c, workers, n)
			}
			if n := testing.AllocsPerRun(50, func() { _ = byteAPI(rawDst, raw, 3, c.P) }); n != 0 {
				t.Errorf("%v workers=%d: byte API allocates %v times per call", c, workers, n)
			}
		}
	}
}

func TestTierName(t *testing.T) {
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
		src := cases.Fill(rng, c.Len()*4)
		want, got := make([]byte, len(src)), make([]byte, len(src))
		if err := ref.RunBytes(c.Op, want, src, 4, c.P); err != nil {
			t.Fatal(err)
		}
		for _, tier := range dispatch.Available() {
			clear(got)
			if err := dispatch.Sets(tier).Do(c.Op, got, src, 4, c.P); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%v %v: result differs from the reference", tier, c)
			}
		}
	}
}
