package kernels

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/random"
	"github.com/blockshuffle/blockshuffle/internal/simd"
)

// tablesUnderTest returns the tables of the ISAs this CPU runs; with
// -short, as under emulation, only the most specialized of them.
func tablesUnderTest() map[string]*simd.Table {
	out := map[string]*simd.Table{}
	best := ""
	for _, i := range isa.All {
		if t := simd.TableOf(i.Name); t != nil && i.Supported() {
			out[i.Name], best = t, i.Name
		}
	}
	if testing.Short() && best != "" {
		return map[string]*simd.Table{best: out[best]}
	}
	return out
}

// zipRef is the Zip contract written out plainly: it returns what space and
// depth must hold after a zip (or unzip) call.
func zipRef(unzip bool, space, depth []byte, c zipCase) {
	for g := range c.groups {
		for r := range c.rows {
			for j := range c.b {
				for u := 0; u < c.n; u += c.w { // an element's bytes stay together
					s := space[g*c.gs+r*c.ss+c.interleaved(j, u):][:c.w]
					d := depth[g*c.gd+r*c.ds+c.laneOff(j)+u:][:c.w]
					if unzip {
						copy(d, s)
					} else {
						copy(s, d)
					}
				}
			}
		}
	}
}

// interleaved is where byte u of lane j sits on the interleaved side: for
// a plain zip at element u/w of the lanes' interleaving; for a transposing
// (NHWC CRD) kernel, in pixel x, where lane j is space row i = j and its
// byte u is element (jj, c) of the pixel's block, at depth channel
// c*b*b + i*b + jj.
func (c zipCase) interleaved(j, u int) int {
	if c.cp == 0 {
		return (u/c.w*c.b+j)*c.w + u%c.w
	}
	e := c.b * c.cp * c.w // bytes of a lane per pixel
	x, t := u/e, u%e
	jj, ch := t/c.w/c.cp, t/c.w%c.cp
	return x*c.b*e + ((ch*c.b+j)*c.b+jj)*c.w + t%c.w
}

// zipCase is one randomized call, laid out as NCHW planes are: groups step
// through a plane, lanes and rows step from plane to plane, with random
// padding everywhere, which the kernels must leave alone.
type zipCase struct {
	b, w, cp, n        int // cp > 0: a transposing kernel with cp channels
	rows, ss, ds, lane int
	split, laneI       int // lane j at (j/split)*laneI + (j%split)*lane
	groups, gs, gd     int
}

func (c zipCase) laneOff(j int) int {
	if c.split == 0 {
		return j * c.lane
	}
	return j/c.split*c.laneI + j%c.split*c.lane
}

func (c zipCase) String() string {
	return fmt.Sprintf("b=%d w=%d cp=%d n=%d rows=%d ss=%d ds=%d lane=%d split=%d laneI=%d groups=%d gs=%d gd=%d",
		c.b, c.w, c.cp, c.n, c.rows, c.ss, c.ds, c.lane, c.split, c.laneI, c.groups, c.gs, c.gd)
}

// randomZipCase draws a call for a kernel with the given shortest row; step
// is the byte size rows are made of (w, or a transposing kernel's pixel run).
func randomZipCase(rng *rand.Rand, b, w, cp, minN int) zipCase {
	step := w
	if cp > 0 {
		step = b * cp * w
	}
	var steps int
	switch rng.IntN(3) {
	case 0: // short rows, around the small chunks
		steps = (minN+step-1)/step + rng.IntN(8)
	case 1: // around vector multiples
		steps = (32*(1+rng.IntN(4)) + rng.IntN(17) - 8) / step
	default:
		steps = 1 + rng.IntN(300/step+1)
	}
	n := max(steps, (minN+step-1)/step) * step
	pad := func() int { return w * rng.IntN(3) }
	c := zipCase{b: b, w: w, cp: cp, n: n, rows: 1 + rng.IntN(4), groups: 1 + rng.IntN(4)}
	c.gd = n + pad()
	c.lane = c.groups*c.gd + pad()
	c.ds = b*c.lane + pad()
	if b == 4 && rng.IntN(2) == 0 { // lanes (i, j) in two places, as NHWC CRD has them
		c.split, c.laneI = 2, 2*c.lane+pad()
		c.ds = 2*c.laneI + pad()
	}
	c.ss = n*b + pad()
	c.gs = c.rows*c.ss + pad()
	return c
}

// lens are the sizes of the space and depth buffers a call touches, from
// their first byte to their last.
func (c zipCase) lens() (space, depth int) {
	return (c.groups-1)*c.gs + (c.rows-1)*c.ss + c.n*c.b,
		(c.groups-1)*c.gd + (c.rows-1)*c.ds + c.laneOff(c.b-1) + c.n
}

// run calls the kernel on fresh random buffers and compares both buffers,
// padding included, with zipRef's.
func (c zipCase) run(t *testing.T, name string, unzip bool, call func(space, depth []byte)) {
	t.Helper()
	spaceLen, depthLen := c.lens()
	c.check(t, name, unzip, make([]byte, spaceLen), make([]byte, depthLen), call)
}

// check fills space and depth with random bytes, calls the kernel on them
// and compares both with zipRef's result.
func (c zipCase) check(t *testing.T, name string, unzip bool, space, depth []byte, call func(space, depth []byte)) {
	t.Helper()
	c.expect(unzip).check(t, name, space, depth, call)
}

// expectation is a call's random input and what zipRef makes of it.
type expectation struct {
	c                          zipCase
	unzip                      bool
	space, depth, wantS, wantD []byte
}

// expect draws the contents of the call's buffers, the same for every
// placement of them, and runs zipRef on them once.
func (c zipCase) expect(unzip bool) expectation {
	sl, dl := c.lens()
	rng := rand.New(rand.NewPCG(uint64(c.n), uint64(c.rows)))
	e := expectation{c: c, unzip: unzip, space: random.Bytes(rng, sl), depth: random.Bytes(rng, dl)}
	e.wantS, e.wantD = bytes.Clone(e.space), bytes.Clone(e.depth)
	zipRef(unzip, e.wantS, e.wantD, c)
	return e
}

// check fills space and depth with the input, calls the kernel on them and
// compares both with the expected result.
func (e expectation) check(t *testing.T, name string, space, depth []byte, call func(space, depth []byte)) {
	t.Helper()
	copy(space, e.space)
	copy(depth, e.depth)
	call(space, depth)
	if !bytes.Equal(space, e.wantS) || !bytes.Equal(depth, e.wantD) {
		op := map[bool]string{false: "zip", true: "unzip"}[e.unzip]
		t.Fatalf("%s %s %v: result differs from the reference at space byte %d, depth byte %d", name, op, e.c, firstDiff(space, e.wantS), firstDiff(depth, e.wantD))
	}
}

// many is n randomized cases, or a twentieth of them with -short, which
// the runs under emulation use.
func many(n int) int {
	if testing.Short() {
		return max(1, n/20)
	}
	return n
}

// poison fills dst with the complement of want, so that every byte a kernel
// fails to write differs from the expected output.
func poison(dst, want []byte) {
	for i, v := range want {
		dst[i] = ^v
	}
}

// firstDiff is the first index where a and b differ, or -1.
func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := random.Bytes(rng, n)
	return b
}

// forEachLane calls f for every lane kernel of a table: zips, unzips and
// transposing ones (cp > 0); with nt set, for their streaming twins.
func forEachLane(t *simd.Table, nt bool, f func(unzip bool, b, cp, w int, k simd.LaneKernel)) {
	for _, k := range t.Lanes {
		if k.NT == nt {
			f(k.Unzip, int(k.B), int(k.Cp), int(k.W), k)
		}
	}
}

// anyB returns the table's kernel of 16-byte elements for any b, or nil
// where its base's serves.
func anyB(t *simd.Table, unzip bool) *simd.AnyBFunc {
	if unzip {
		return t.UnzipN
	}
	return t.ZipN
}

// lanes runs a lane kernel on the case's buffers.
func (c zipCase) lanes(k simd.LaneKernel) func(space, depth []byte) {
	return func(space, depth []byte) {
		k.F.Once(space, depth, simd.LaneArgs{
			N: c.n, Rows: c.rows, SpaceStride: c.ss, DepthStride: c.ds,
			Lane: c.lane, LaneI: c.laneI, Groups: c.groups, GroupSpace: c.gs, GroupDepth: c.gd,
		}, c.b, c.split)
	}
}

// anyB runs a kernel of any block size on the case's buffers.
func (c zipCase) anyB(f *simd.AnyBFunc) func(space, depth []byte) {
	return func(space, depth []byte) {
		f.Once(space, depth, simd.AnyBArgs{
			N: c.n, Rows: c.rows, SpaceStride: c.ss, DepthStride: c.ds,
			Lane: c.lane, Groups: c.groups, GroupSpace: c.gs, GroupDepth: c.gd, B: c.b,
		})
	}
}

// TestZipKernels runs every lane kernel of every table this CPU runs on
// randomized shapes.
func TestZipKernels(t *testing.T) {
	for name, table := range tablesUnderTest() {
		rng := rand.New(rand.NewPCG(1, 2))
		forEachLane(table, false, func(unzip bool, b, cp, w int, k simd.LaneKernel) {
			for range many(200) {
				c := randomZipCase(rng, b, w, cp, int(k.MinN))
				if c.split == 0 { // evenly spaced lanes
					c.split, c.laneI = simd.Split[b], simd.Split[b]*c.lane
				}
				c.run(t, name, unzip, c.lanes(k))
			}
		})
		for _, unzip := range []bool{false, true} {
			f := anyB(table, unzip)
			if f == nil { // the base table's
				continue
			}
			for range many(300) {
				c := randomZipCase(rng, 1+rng.IntN(9), 16, 0, 16)
				c.split, c.ds = 0, c.b*c.lane // the lanes are evenly spaced
				c.run(t, name, unzip, c.anyB(f))
			}
		}
	}
}

// TestCopyRuns runs every table's run copiers on randomized layouts, runs
// of 16 bytes and more, strided on either side; the streaming copier on
// runs of multiples of 32 bytes written to 32-byte aligned places.
func TestCopyRuns(t *testing.T) {
	for name, set := range tablesUnderTest() {
		rng := rand.New(rand.NewPCG(3, 4))
		for i := range many(4000) {
			nt := i%2 == 1 && set.CopyRunsNT != nil
			e := 16 + rng.IntN(120)
			pad := func(n int) int { return rng.IntN(n) }
			if nt {
				e = 32 * (1 + rng.IntN(4))
				pad = func(n int) int { return 32 * rng.IntN(2) }
			}
			w, rows, groups := 1+rng.IntN(9), 1+rng.IntN(3), 1+rng.IntN(3)
			dstX, srcX := e+pad(8), e+rng.IntN(40)
			if rng.IntN(2) == 0 && !nt {
				dstX, srcX = srcX, dstX
			}
			dstRow, srcRow := w*dstX+pad(8), w*srcX+rng.IntN(8)
			dstGroup, srcGroup := rows*dstRow+pad(8), rows*srcRow+rng.IntN(8)
			span := func(x, row, group int) int { return (groups-1)*group + (rows-1)*row + (w-1)*x + e }
			dst := aligned(span(dstX, dstRow, dstGroup))
			copy(dst, random.Bytes(rng, len(dst)))
			src := random.Bytes(rng, span(srcX, srcRow, srcGroup))
			want := bytes.Clone(dst)
			for g := range groups {
				for r := range rows {
					for x := range w {
						copy(want[g*dstGroup+r*dstRow+x*dstX:][:e], src[g*srcGroup+r*srcRow+x*srcX:])
					}
				}
			}
			f := set.CopyRuns
			if nt {
				f = set.CopyRunsNT
			}
			f.Once(dst, src, simd.CopyArgs{
				E: e, W: w, DstX: dstX, SrcX: srcX, Rows: rows,
				DstRow: dstRow, SrcRow: srcRow, Groups: groups, DstGroup: dstGroup, SrcGroup: srcGroup,
			})
			if !bytes.Equal(dst, want) {
				t.Fatalf("%s: nt=%v e=%d w=%d dstX=%d srcX=%d rows=%d groups=%d: result differs", name, nt, e, w, dstX, srcX, rows, groups)
			}
		}
	}
}

// TestStreamingKernels runs the non-temporal twins on their layouts: rows of
// whole chunks (MinN, a multiple of 32 bytes), 32-byte aligned output.
func TestStreamingKernels(t *testing.T) {
	for name, table := range tablesUnderTest() {
		rng := rand.New(rand.NewPCG(5, 6))
		forEachLane(table, true, func(unzip bool, b, cp, w int, k simd.LaneKernel) {
			if k.MinN%32 != 0 {
				t.Fatalf("%s: a streaming kernel of b=%d cp=%d w=%d takes chunks of %d bytes", name, b, cp, w, k.MinN)
			}
			for range 50 {
				c := tightCase(b, w, cp, int(k.MinN)*(1+rng.IntN(6)), simd.Split[b], rng.IntN(2) == 0)
				sl, dl := c.lens()
				c.check(t, name+" NT", unzip, aligned(sl), aligned(dl), c.lanes(k))
			}
		})
	}
}

// aligned returns n bytes starting at a 32-byte boundary.
func aligned(n int) []byte {
	b := make([]byte, n+32)
	off := int(-uintptr(unsafe.Pointer(&b[0])) & 31)
	return b[off : off+n : off+n]
}
