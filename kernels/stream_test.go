package kernels

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/random"
	"github.com/blockshuffle/blockshuffle/internal/simd"
)

// TestStreamRuns runs the streaming run copiers on randomized layouts: runs
// of 32 to 188 bytes (whole dwords) tiling each group's block of dst,
// which starts on any dword of a 32-byte line, so that stores cross runs
// at every dword and blocks begin and end anywhere in a line; groups
// apart by a gap that must stay untouched.
func TestStreamRuns(t *testing.T) {
	for name, set := range tablesUnderTest() {
		if set.StreamRuns == nil {
			continue
		}
		rng := rand.New(rand.NewPCG(7, 8))
		for range many(4000) {
			e := 32 + 4*rng.IntN(40)
			w, rows, groups := 1+rng.IntN(9), 1+rng.IntN(4), 1+rng.IntN(3)
			srcX := e + rng.IntN(40)
			srcRow, dstGroup := w*srcX+rng.IntN(8), rows*w*e+4*rng.IntN(20)
			srcGroup := rows*srcRow + rng.IntN(8)
			if rng.IntN(2) == 0 { // DepthToSpace's source: a pixel holds its rows' runs back to back
				srcX, srcRow = rows*e+rng.IntN(8), e
				srcGroup = rows*e + (w-1)*srcX + rng.IntN(8)
			}
			head := 4 * rng.IntN(8)
			dst := aligned(head + (groups-1)*dstGroup + rows*w*e)[head:]
			copy(dst, random.Bytes(rng, len(dst)))
			src := random.Bytes(rng, (groups-1)*srcGroup+(rows-1)*srcRow+(w-1)*srcX+e)
			want := bytes.Clone(dst)
			for g := range groups {
				for r := range rows {
					for x := range w {
						copy(want[g*dstGroup+(r*w+x)*e:][:e], src[g*srcGroup+r*srcRow+x*srcX:])
					}
				}
			}
			runStream(set.StreamRuns, dst, src, simd.StreamArgs{
				E: e, W: w, DstX: e, SrcX: srcX, Rows: rows,
				DstRow: w * e, SrcRow: srcRow, Groups: groups, DstGroup: dstGroup, SrcGroup: srcGroup,
			})
			if i := firstDiff(dst, want); i >= 0 {
				t.Fatalf("%s: e=%d w=%d rows=%d groups=%d srcX=%d srcRow=%d dstGroup=%d head=%d: byte %d differs",
					name, e, w, rows, groups, srcX, srcRow, dstGroup, head, i)
			}
		}
	}
}

// TestStreamRunsGuardPages runs the streaming run copiers with both
// tensors right against inaccessible pages: runs of 32 to 100 bytes, two
// a row, 4 bytes apart in the source.
func TestStreamRunsGuardPages(t *testing.T) {
	for name, set := range tablesUnderTest() {
		if set.StreamRuns == nil {
			continue
		}
		for e := 32; e <= 100; e += 4 {
			for _, rows := range []int{1, 3} {
				dst, src := 2*e*rows, (2*e+4)*rows
				inGuards(t, dst, src, func(d, s []byte) {
					for i := range s {
						s[i] = byte(i*7 + e)
					}
					runStream(set.StreamRuns, d, s, simd.StreamArgs{E: e, W: 2, DstX: e, SrcX: e + 2, Rows: rows, DstRow: 2 * e, SrcRow: 2*e + 4, Groups: 1})
					for r := range rows {
						for x := range 2 {
							if string(d[(2*r+x)*e:][:e]) != string(s[r*(2*e+4)+x*(e+2):][:e]) {
								t.Fatalf("%s StreamRuns e=%d row %d run %d differs", name, e, r, x)
							}
						}
					}
				})
			}
		}
	}
}

// runStream makes one checked call of streaming run copier f on the
// whole of dst and src.
func runStream(f *simd.StreamFunc, dst, src []byte, a simd.StreamArgs) {
	a.Dst, a.Src = engine.SpaceSpan(len(dst)), engine.DepthSpan(len(src))
	f.Call(a).Run(dst, src)
}
