package bench

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/bench/internal/harness"
	"github.com/blockshuffle/blockshuffle/dispatch"
)

// BenchmarkShuffle runs every case with every tier this machine has and with
// the hand-written and the typical Go loops (tier=loop, tier=typical),
// named in key=value parts, e.g.
// op=d2s/order=DCR/layout=NCHW/width=4/shape=1x256x13x13_b2/tier=avx2, so
// that benchstat compares tiers side by side:
//
//	go test ./bench -run '^$' -bench 'Shuffle/op=d2s/order=DCR/layout=NCHW/width=4/' -count 6 > new.txt
//	benchstat -col /tier new.txt
func BenchmarkShuffle(b *testing.B) {
	for _, c := range harness.Cases(harness.Shapes, harness.Widths) {
		buf := harness.NewBuffers(c)
		eachTier(b, c.Key(), c.Bytes(), []baseline{{"loop", buf.Loop()}, {"typical", buf.Typical()}}, buf.Tier)
	}
}

// A baseline is a function the tiers are compared with, and its name.
type baseline struct {
	name string
	f    func()
}

// eachTier runs, as sub-benchmarks key/tier=<name> moving n bytes, first
// the baselines, then each tier this machine has.
func eachTier(b *testing.B, key string, n int, first []baseline, tier func(dispatch.Tier) func()) {
	run := func(name string, f func()) {
		b.Run(key+"/tier="+name, func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				f()
			}
		})
	}
	for _, f := range first {
		run(f.name, f.f)
	}
	for _, t := range dispatch.Available() {
		run(t.String(), tier(t))
	}
}

// BenchmarkCopy is copy() of the bytes of each shape and width, named
// width=4/shape=1x256x13x13_b2: the speed a shuffle is measured against.
func BenchmarkCopy(b *testing.B) {
	for _, s := range harness.Shapes {
		for _, w := range harness.Widths {
			c := harness.Case{Shape: s, Width: w}
			b.Run(fmt.Sprintf("width=%d/shape=%s", w, s.Key()), func(b *testing.B) {
				f := harness.NewBuffers(c).Copy()
				b.SetBytes(int64(c.Bytes()))
				for b.Loop() {
					f()
				}
			})
		}
	}
}

// BenchmarkWorkers shows where splitting a call over goroutines starts to
// pay, which is where the automatic choice (Workers = 0) should switch:
// float32 NCHW DepthToSpace of 64 square channels, b = 2, at sizes around
// the threshold, with Workers = 1, 2, GOMAXPROCS and 0.
func BenchmarkWorkers(b *testing.B) {
	counts := []int{1, 2}
	if n := runtime.GOMAXPROCS(0); n > 2 {
		counts = append(counts, n)
	}
	counts = append(counts, 0)
	for _, kib := range []int{256, 1024, 4096, 8192, 16384, 32768, 65536} {
		side := int(math.Sqrt(float64(kib << 10 / 4 / 64)))
		c := harness.Case{Shape: harness.Shape{N: 1, C: 64, H: side, W: side, B: 2}, Op: bs.OpDepthToSpace, Order: bs.DCR, Layout: bs.NCHW, Width: 4}
		for _, workers := range counts {
			b.Run(fmt.Sprintf("size=%dKiB/workers=%d", c.Bytes()>>10, workers), func(b *testing.B) {
				p := c.Params()
				p.Workers = workers
				src, dst := make([]float32, c.Bytes()/4), make([]float32, c.Bytes()/4)
				b.SetBytes(int64(c.Bytes()))
				for b.Loop() {
					if err := bs.DepthToSpace(dst, src, p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCall measures what a call costs besides moving its bytes, on
// tensors small enough that the cost shows: a repeated call of one shape
// (kind=repeated), a Plan's run (kind=plan), calls cycling over 300
// shapes (kind=cycle300), and calls of a shape never seen before
// (kind=first). The shapes: a 16-byte NHWC tensor (one kernel call),
// 1x64x6x6 b = 4 of bytes (NCHW, several kernel calls), YOLO's
// 1x256x13x13 of bytes (a one-pass plan on the SIMD tiers).
func BenchmarkCall(b *testing.B) {
	for _, c := range []struct {
		name string
		p    bs.Params
	}{
		{"nhwc16B", bs.Params{N: 1, C: 4, H: 1, W: 4, BlockSize: 2, Layout: bs.NHWC, Workers: 1}},
		{"1x64x6x6_b4", bs.Params{N: 1, C: 64, H: 6, W: 6, BlockSize: 4, Workers: 1}},
		{"1x256x13x13_b2", bs.Params{N: 1, C: 256, H: 13, W: 13, BlockSize: 2, Workers: 1}},
	} {
		n := c.p.N * c.p.C * c.p.H * c.p.W
		src, dst := make([]byte, n), make([]byte, n)
		callKinds(b, c.name, dst, src,
			func() error { return bs.DepthToSpaceBytes(dst, src, 1, c.p) },
			func() (*bs.Plan, error) { return bs.NewPlan(bs.OpDepthToSpace, c.p, 1) })
		b.Run("kind=cycle300/shape="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				p := c.p
				p.Workers = 2 + i%300 // 300 keys, the same work: Workers only bounds the goroutines
				if err := bs.DepthToSpaceBytes(dst, src, 1, p); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run("kind=first/shape="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				p := c.p
				p.Workers = 2 + i // a new key each time, the same work
				if err := bs.DepthToSpaceBytes(dst, src, 1, p); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkTransposeCall measures what a transpose call costs besides
// moving its bytes, on small tensors of bytes: TransposeBytes called again
// on one shape (kind=repeated), and a plan's run (kind=plan). The shapes:
// a 16x16 matrix, heads split of 1x4x2x64, a rank-6 transpose of 2s, and
// a DepthToSpace written as a transpose (1x2x2x4x8x8, DCR).
func BenchmarkTransposeCall(b *testing.B) {
	for _, c := range []struct {
		name        string
		shape, perm []int
	}{
		{"16x16", []int{16, 16}, []int{1, 0}},
		{"heads1x4x2x64", []int{1, 4, 2, 64}, []int{0, 2, 1, 3}},
		{"rank6", []int{2, 2, 2, 2, 2, 2}, []int{5, 3, 1, 0, 4, 2}},
		{"d2s1x2x2x4x8x8", []int{1, 2, 2, 4, 8, 8}, []int{0, 3, 4, 1, 5, 2}},
	} {
		n := 1
		for _, d := range c.shape {
			n *= d
		}
		src, dst := make([]byte, n), make([]byte, n)
		callKinds(b, c.name, dst, src,
			func() error { _, err := bs.TransposeBytes(dst, src, 1, c.shape, c.perm); return err },
			func() (*bs.Plan, error) { return bs.NewTransposePlan(c.shape, c.perm, 1, 0) })
	}
}

// callKinds runs a shape's call again and again (kind=repeated), and the
// plan newPlan makes (kind=plan), on dst and src.
func callKinds(b *testing.B, shape string, dst, src []byte, call func() error, newPlan func() (*bs.Plan, error)) {
	b.Run("kind=repeated/shape="+shape, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := call(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kind=plan/shape="+shape, func(b *testing.B) {
		pl, err := newPlan()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := pl.Run(dst, src); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTranspose runs the report's transposes with every tier this
// machine has and copy() of the same bytes, named
// op=transpose/width=4/shape=1x3x224x224/perm=0.2.3.1/tier=avx2.
func BenchmarkTranspose(b *testing.B) {
	for _, c := range harness.TransposeCases(harness.Transposes, harness.Widths) {
		buf := harness.NewTransposeBuffers(c)
		eachTier(b, c.Key(), c.Bytes(), []baseline{{"copy", buf.Copy()}}, buf.Tier)
	}
}
