package bench

import (
	"fmt"
	"runtime"
	"testing"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/dispatch"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// BenchmarkShuffle runs every case with every tier this machine has, named
// op/order/layout/width/shape/tier, e.g.
//
//	go test ./bench -bench='Shuffle/d2s/DCR/NCHW/w4/.*/avx2'
func BenchmarkShuffle(b *testing.B) {
	for _, c := range Cases(Shapes, Widths) {
		for _, tier := range dispatch.Available() {
			b.Run(c.String()+"/"+tier.String(), func(b *testing.B) {
				f := Runner(c, tier)
				b.SetBytes(int64(c.Bytes()))
				for b.Loop() {
					f()
				}
			})
		}
	}
}

// BenchmarkCopy is copy() of the bytes of each shape and width: the speed a
// shuffle is measured against.
func BenchmarkCopy(b *testing.B) {
	for _, s := range Shapes {
		for _, w := range Widths {
			n := s.N * s.C * s.H * s.W * w
			b.Run(fmt.Sprintf("w%d/%v", w, s), func(b *testing.B) {
				f := CopyRunner(n)
				b.SetBytes(int64(n))
				for b.Loop() {
					f()
				}
			})
		}
	}
}

// BenchmarkWorkers shows where splitting a call over goroutines starts to
// pay: float32 NCHW DepthToSpace, b = 2, at sizes around the automatic
// threshold, with Workers = 1, 2, GOMAXPROCS and automatic (0).
func BenchmarkWorkers(b *testing.B) {
	for _, kib := range []int{64, 256, 512, 1024, 2048, 8192, 32768} {
		plane := kib << 10 / 4 / 64 // 64 channels of float32
		w := 16
		s := Shape{1, 64, plane / w, w, 2}
		for _, workers := range []int{1, 2, runtime.GOMAXPROCS(0), 0} {
			b.Run(fmt.Sprintf("%dKiB/workers=%d", kib, workers), func(b *testing.B) {
				c := Case{s, shape.DepthToSpace, bs.DCR, bs.NCHW, 4}
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
