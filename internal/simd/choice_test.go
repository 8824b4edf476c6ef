package simd_test

import (
	"fmt"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/simd"
	_ "github.com/blockshuffle/blockshuffle/kernels"
)

// BenchmarkLaneKernels times every lane kernel of each ISA this CPU runs
// beside its base ISA's twin, on rows of 256 and 4096 bytes per lane and,
// for elements of every width, on the short lanes of NHWC CRD's regroups
// (2 to 4 elements, under a 64-byte register), 32 KiB per call, and 4 MiB
// for the short lanes, named ISA/zip|unzip/b/w/n/KiB/own|base: what the
// per-CPU choice of kernels (see choice.go) is measured by.
func BenchmarkLaneKernels(b *testing.B) {
	for i := range isa.All {
		d := &isa.All[i]
		t := simd.TableOf(d.Name)
		if t == nil || t.Base == nil || !d.Supported() {
			continue
		}
		for _, k := range t.Lanes {
			if k.Cp > 0 || k.NT {
				continue
			}
			blk, w := int(k.B), int(k.W)
			kind := map[bool]string{false: "zip", true: "unzip"}[k.Unzip]
			lanes := []int{256, 4096}
			for e := 2; e <= 4 && e*w < 64; e++ {
				lanes = append(lanes, e*w)
			}
			for _, n := range lanes {
				totals := []int{32 << 10}
				if n < 64 {
					totals = append(totals, 4<<20)
				}
				for _, total := range totals {
					for _, s := range []*simd.Table{t, t.Base} {
						l := find(s, k.Unzip, blk, w)
						if l.F == nil || n < int(l.MinN) {
							continue
						}
						role := "own"
						if s != t {
							role = "base"
						}
						benchLanes(b, fmt.Sprintf("%s/%s/b%d/w%d/n%d/%dKiB/%s", d.Name, kind, blk, w, n, total>>10, role), l, blk, n, total)
					}
				}
			}
		}
	}
}

// benchLanes times lane kernel l of blk lanes on rows of n bytes per lane,
// about total bytes per call.
func benchLanes(b *testing.B, name string, l simd.LaneKernel, blk, n, total int) {
	rows := max(1, total/(n*blk))
	space, depth := make([]byte, rows*n*blk), make([]byte, rows*n*blk)
	c := l.F.Call(simd.LaneArgs{Space: engine.SpaceSpan(len(space)), Depth: engine.DepthSpan(len(depth)),
		N: n, Rows: rows, SpaceStride: n * blk, DepthStride: n,
		Lane: rows * n, LaneI: simd.Split[blk] * rows * n, Groups: 1}, blk, simd.Split[blk])
	b.Run(name, func(b *testing.B) {
		b.SetBytes(int64(len(space)))
		for b.Loop() {
			c.Run(space, depth)
		}
	})
}

// find returns the table's zip or unzip of b lanes of w-byte elements.
func find(t *simd.Table, unzip bool, b, w int) simd.LaneKernel {
	for _, k := range t.Lanes {
		if k.Unzip == unzip && int(k.B) == b && int(k.W) == w && k.Cp == 0 && !k.NT {
			return k
		}
	}
	return simd.LaneKernel{}
}
