package kernels

import (
	"fmt"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/guard"
	"github.com/blockshuffle/blockshuffle/internal/simd"
)

// guardLengths are the row lengths, in bytes, tried against guard pages: all
// multiples of step from the kernel's shortest row to past 128 bytes, then
// a window around larger vector multiples.
func guardLengths(minN, step int) []int {
	var out []int
	for n := (minN + step - 1) / step * step; n <= 136; n += step {
		out = append(out, n)
	}
	for _, c := range []int{256, 512} {
		for n := (c - 2*step) / step * step; n <= c+2*step; n += step {
			if n > 136 {
				out = append(out, n)
			}
		}
	}
	return out
}

// spaceMem and depthMem hold the buffers of every guard-page test of the
// package, mapped once.
var spaceMem, depthMem guard.Region

// inGuards runs check on buffers of the given lengths placed first against
// the inaccessible page before them, then against the one after them.
func inGuards(t *testing.T, spaceLen, depthLen int, check func(space, depth []byte)) {
	t.Helper()
	s0, s1, ok := spaceMem.Slices(spaceLen)
	if !ok {
		t.Skip("no guarded memory on this platform")
	}
	d0, d1, _ := depthMem.Slices(depthLen)
	check(s0, d0)
	check(s1, d1)
}

// TestGuardPages runs every kernel of every set this CPU runs with the bytes
// it may touch placed right against inaccessible pages, at every row length
// in a window around each vector size, one and several rows and groups, and
// checks the result. Reading or writing a single byte outside faults.
func TestGuardPages(t *testing.T) {
	for name, set := range tablesUnderTest() {
		forEachLane(set, false, func(unzip bool, b, cp, w int, k simd.LaneKernel) {
			step := w
			if cp > 0 {
				step = b * cp * w
			}
			for _, n := range guardLengths(int(k.MinN), step) {
				for _, many := range []bool{false, true} {
					c := tightCase(b, w, cp, n, simd.Split[b], many)
					c.guarded(t, name, unzip, k)
				}
			}
		})
		forEachLane(set, true, func(unzip bool, b, cp, w int, k simd.LaneKernel) { // rows of whole chunks
			for n, m := int(k.MinN), int(k.MinN); n <= max(256, 3*m); n += m {
				tightCase(b, w, cp, n, simd.Split[b], n%(2*m) == 0).guarded(t, name+" NT", unzip, k)
			}
		})
		for _, unzip := range []bool{false, true} {
			f := anyB(set, unzip)
			if f == nil { // the base table's
				continue
			}
			for _, b := range []int{1, 2, 5, 7} {
				for _, n := range guardLengths(16, 16) {
					c := tightCase(b, 16, 0, n, b, true)
					sl, dl := c.lens()
					e := c.expect(unzip)
					inGuards(t, sl, dl, func(space, depth []byte) {
						e.check(t, name, space, depth, c.anyB(f))
					})
				}
			}
		}
		for e := 16; e <= 96; e++ {
			for _, rows := range []int{1, 3} {
				f := set.CopyRuns
				if e%32 == 0 && rows == 3 && set.CopyRunsNT != nil {
					f = set.CopyRunsNT
				}
				dst, src := e*rows, (e+5)*rows
				inGuards(t, dst, src, func(d, s []byte) {
					for i := range s {
						s[i] = byte(i*7 + e)
					}
					f.Once(d, s, simd.CopyArgs{E: e, W: rows, DstX: e, SrcX: e + 5, Rows: 1, Groups: 1})
					for x := range rows {
						if string(d[x*e:][:e]) != string(s[x*(e+5):][:e]) {
							t.Fatalf("%s CopyRuns e=%d run %d differs", name, e, x)
						}
					}
				})
			}
		}
	}
}

// guarded runs the kernel on the case with both buffers against guard pages.
func (c zipCase) guarded(t *testing.T, name string, unzip bool, k simd.LaneKernel) {
	t.Helper()
	sl, dl := c.lens()
	e := c.expect(unzip)
	inGuards(t, sl, dl, func(space, depth []byte) {
		e.check(t, name, space, depth, c.lanes(k))
	})
}

// tightCase lays out a call with nothing between its rows, so that the
// first byte it may touch is at offset 0 of each buffer and the last at
// the end: as NCHW planes, several rows and groups if many is set.
func tightCase(b, w, cp, n, split int, many bool) zipCase {
	c := zipCase{b: b, w: w, cp: cp, n: n, rows: 1, groups: 1, split: split}
	if many {
		c.rows, c.groups = 2, 3
	}
	c.gd = n
	c.lane = c.groups * n
	c.laneI = split * c.lane
	c.ds = b * c.lane
	c.ss = b * n
	c.gs = c.rows * c.ss
	return c
}

func (c zipCase) GoString() string { return fmt.Sprint(c) }
