package kernels

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// zipRef is the Zip contract written out plainly: it returns what space and
// depth must hold after a zip (or unzip) call.
func zipRef(unzip bool, space, depth []byte, c zipCase) {
	for g := range c.groups {
		for r := range c.rows {
			for j := range c.b {
				for u := range c.n {
					s := &space[g*c.gs+r*c.ss+c.interleaved(j, u)]
					d := &depth[g*c.gd+r*c.ds+c.laneOff(j)+u]
					if unzip {
						*d = *s
					} else {
						*s = *d
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

// randomZipCase draws a call for a kernel with the given shortest row; unit
// is the byte size rows are made of (w, or a transposing kernel's pixel run).
func randomZipCase(rng *rand.Rand, b, w, cp, minN int) zipCase {
	unit := w
	if cp > 0 {
		unit = b * cp * w
	}
	var units int
	switch rng.IntN(3) {
	case 0: // short rows, around the small chunks
		units = (minN+unit-1)/unit + rng.IntN(8)
	case 1: // around vector multiples
		units = (32*(1+rng.IntN(4)) + rng.IntN(17) - 8) / unit
	default:
		units = 1 + rng.IntN(300/unit+1)
	}
	n := max(units, (minN+unit-1)/unit) * unit
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
	rng := rand.New(rand.NewPCG(uint64(c.n), uint64(c.rows)))
	for _, buf := range [][]byte{space, depth} {
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
	}
	wantS, wantD := bytes.Clone(space), bytes.Clone(depth)
	zipRef(unzip, wantS, wantD, c)
	call(space, depth)
	if !bytes.Equal(space, wantS) || !bytes.Equal(depth, wantD) {
		op := map[bool]string{false: "zip", true: "unzip"}[unzip]
		t.Fatalf("%s %s %v: result differs from the reference at space byte %d, depth byte %d", name, op, c, firstDiff(space, wantS), firstDiff(depth, wantD))
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
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// forEachZip calls f for every zip, unzip and transposing kernel of a set.
func forEachZip(set *Set, f func(unzip bool, b, cp, w int, k ZipKernel)) {
	for _, unzip := range []bool{false, true} {
		for b := range MaxBlock + 1 {
			for cp := range MaxCp + 1 {
				for w := range MaxWidth + 1 {
					if k := set.Lookup(unzip, b, cp, w); k.F != nil {
						f(unzip, b, cp, w, k)
					}
				}
			}
		}
	}
}

// forEachStreaming calls f for every streaming twin of a set.
func forEachStreaming(set *Set, f func(unzip bool, b, w int, k ZipKernel)) {
	for _, unzip := range []bool{false, true} {
		table := &set.ZipNT
		if unzip {
			table = &set.UnzipNT
		}
		for b, row := range table {
			for w, k := range row {
				if k.F != nil {
					f(unzip, b, w, k)
				}
			}
		}
	}
}

// TestZipKernels runs every zip and unzip kernel of every set this CPU runs
// on randomized shapes.
func TestZipKernels(t *testing.T) {
	for name, set := range setsUnderTest() {
		rng := rand.New(rand.NewPCG(1, 2))
		forEachZip(set, func(unzip bool, b, cp, w int, k ZipKernel) {
			for range many(200) {
				c := randomZipCase(rng, b, w, cp, k.MinN)
				if c.split == 0 { // evenly spaced lanes
					c.split, c.laneI = set.Split[b], set.Split[b]*c.lane
				}
				c.run(t, name, unzip, func(space, depth []byte) {
					k.F(&space[0], &depth[0], c.n, c.rows, c.ss, c.ds, c.lane, c.laneI, c.groups, c.gs, c.gd)
				})
			}
		})
		for _, unzip := range []bool{false, true} {
			f := set.ZipN
			if unzip {
				f = set.UnzipN
			}
			if f == nil { // the base set's
				continue
			}
			for range many(300) {
				c := randomZipCase(rng, 1+rng.IntN(9), 16, 0, 16)
				c.split, c.ds = 0, c.b*c.lane // ZipN lanes are evenly spaced
				c.run(t, name, unzip, func(space, depth []byte) {
					f(&space[0], &depth[0], c.n, c.rows, c.ss, c.ds, c.lane, c.groups, c.gs, c.gd, c.b)
				})
			}
		}
	}
}

// TestCopyRuns runs every set's run copiers on randomized layouts, runs of
// 16 bytes and more, strided on either side; the streaming copier on runs
// of multiples of 32 bytes written to 32-byte aligned places.
func TestCopyRuns(t *testing.T) {
	for name, set := range setsUnderTest() {
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
			copy(dst, randBytes(rng, len(dst)))
			src := randBytes(rng, span(srcX, srcRow, srcGroup))
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
			f(&dst[0], &src[0], e, w, dstX, srcX, rows, dstRow, srcRow, groups, dstGroup, srcGroup)
			if !bytes.Equal(dst, want) {
				t.Fatalf("%s: nt=%v e=%d w=%d dstX=%d srcX=%d rows=%d groups=%d: result differs", name, nt, e, w, dstX, srcX, rows, groups)
			}
		}
	}
}

// TestStreamingKernels runs the non-temporal twins on their layouts: rows of
// a multiple of 32 bytes, 32-byte aligned output.
func TestStreamingKernels(t *testing.T) {
	for name, set := range setsUnderTest() {
		rng := rand.New(rand.NewPCG(5, 6))
		forEachStreaming(set, func(unzip bool, b, w int, k ZipKernel) {
			for range 50 {
				c := tightCase(b, w, 0, 32*(1+rng.IntN(6)), set.Split[b], rng.IntN(2) == 0)
				sl, dl := c.lens()
				c.check(t, name+" NT", unzip, aligned(sl), aligned(dl), func(space, depth []byte) {
					k.F(&space[0], &depth[0], c.n, c.rows, c.ss, c.ds, c.lane, c.laneI, c.groups, c.gs, c.gd)
				})
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

// TestBaseTakesTheRest checks that a set with a base hands the base what
// it has no kernel for: rows shorter than its kernels take, and 16-byte
// elements of block sizes it leaves out.
func TestBaseTakesTheRest(t *testing.T) {
	for name, set := range setsUnderTest() {
		if set.Base == nil {
			continue
		}
		for _, c := range []struct{ b, w, n int }{{2, 1, 13}, {4, 4, 52}, {3, 2, 6}, {5, 16, 48}} {
			if own := set.Lookup(false, c.b, 0, c.w); own.F != nil && c.n >= own.MinN {
				t.Errorf("%s: b=%d w=%d n=%d is not a case for the base", name, c.b, c.w, c.n)
			}
			zc := tightCase(c.b, c.w, 0, c.n, set.Split[min(c.b, MaxBlock)], true)
			zc.split, zc.laneI = c.b, c.b*zc.lane // evenly spaced lanes, as Interleave takes them
			for _, unzip := range []bool{false, true} {
				zc.run(t, name, unzip, func(space, depth []byte) {
					if !set.Interleave(unzip, false, c.w, c.b, &space[0], &depth[0], zc.n, zc.rows, zc.ss, zc.ds, zc.lane, zc.groups, zc.gs, zc.gd) {
						t.Errorf("%s: no kernel ran for b=%d w=%d n=%d", name, c.b, c.w, c.n)
					}
				})
			}
		}
	}
}
