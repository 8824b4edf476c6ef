package engine_test

import (
	"fmt"
	"math"
	"testing"

	_ "github.com/blockshuffle/blockshuffle/dispatch" // chooses the tier
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// BenchmarkStreaming compares writing with and without non-temporal stores
// (where the tier has them), float32 NCHW DepthToSpace, b = 2, at sizes
// around the automatic threshold, on one goroutine and on two: the basis
// of streamMin.
func BenchmarkStreaming(b *testing.B) {
	tier := engine.Active()
	for _, mib := range []int{2, 4, 8, 12, 16, 24, 32, 64} {
		side := int(math.Sqrt(float64(mib<<20/4/64))) / 8 * 8
		n := 64 * side * side * 4
		src, dst := make([]byte, n), make([]byte, n)
		for i := range src { // written, so that reads are not of the kernel's one zero page
			src[i] = byte(i)
		}
		for _, c := range []struct {
			workers int
			stream  bool
		}{{1, false}, {1, true}, {2, false}, {2, true}} {
			r := shape.Request{Elem: 4, Workers: c.workers, Dims: []int{1, 64, side, side, 2}}
			stream := c.stream
			b.Run(fmt.Sprintf("%dMiB/workers=%d/stream=%v", mib, c.workers, stream), func(b *testing.B) {
				min := math.MaxInt
				if stream {
					min = 0
				}
				defer engine.SetStreamMin(min)()
				b.SetBytes(int64(n))
				for b.Loop() {
					if err := tier.Do(&r, engine.PlanOperator, 1, dst, src); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
