package simd_test

import (
	"fmt"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/simd"
	_ "github.com/blockshuffle/blockshuffle/kernels"
)

// BenchmarkLaneKernels times every lane kernel of each ISA this CPU runs
// beside its base ISA's twin, on rows of 256 and 4096 bytes per lane and
// 32 KiB per call, named ISA/zip|unzip/b/w/n/own|base: what the per-CPU
// choice of kernels (see choice.go) is measured by.
func BenchmarkLaneKernels(b *testing.B) {
	for i := range isa.All {
		d := &isa.All[i]
		t := simd.Lookup(d.Name)
		if t == nil || t.Base == nil || !d.Supported() {
			continue
		}
		for _, kind := range []string{"zip", "unzip"} {
			for blk := 2; blk <= simd.MaxBlock; blk++ {
				for _, w := range []int{1, 2, 4, 8} {
					for _, n := range []int{256, 4096} {
						for _, s := range []*simd.Table{t, t.Base} {
							k := s.Zip[blk][w]
							if kind == "unzip" {
								k = s.Unzip[blk][w]
							}
							if k.F == nil || n < k.MinN {
								continue
							}
							role := "own"
							if s != t {
								role = "base"
							}
							name := fmt.Sprintf("%s/%s/b%d/w%d/n%d/%s", d.Name, kind, blk, w, n, role)
							rows := max(1, 32<<10/(n*blk))
							space, depth := make([]byte, rows*n*blk), make([]byte, rows*n*blk)
							a := simd.LaneArgs{Space: space, Depth: depth, N: n, Rows: rows, SpaceStride: n * blk, DepthStride: n,
								Lane: rows * n, LaneI: s.Split[blk] * rows * n, Groups: 1}
							b.Run(name, func(b *testing.B) {
								b.SetBytes(int64(len(space)))
								for b.Loop() {
									k.F.Run(&a, blk, s.Split[blk])
								}
							})
						}
					}
				}
			}
		}
	}
}
