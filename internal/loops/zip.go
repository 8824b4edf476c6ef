package loops

import (
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/engine"
)

// NCHW rows: space row r holds W blocks of B elements, block x being element x
// of each of the B depth rows. The common block sizes get loops that move one
// whole [B]T block per step; the others move one depth row per pass.

// blocks views s, which holds exactly n*len(A) elements, as n blocks.
func blocks[A any, T any](s []T, n int) []A {
	return unsafe.Slice((*A)(unsafe.Pointer(unsafe.SliceData(s))), n)
}

// zipRows zips (D2S) or unzips (S2D) every row of an Interleave call.
func zipRows[T any](d2s bool, space, depth []T, a *engine.Args) {
	for r := 0; r < a.Rows; r++ {
		s, d := space[r*a.SpaceStride:][:a.W*a.B], depth[r*a.DepthStride:]
		switch {
		case a.B == 2 && d2s:
			zip2(s, d, a.W, a.JS)
		case a.B == 2:
			unzip2(s, d, a.W, a.JS)
		case a.B == 3 && d2s:
			zip3(s, d, a.W, a.JS)
		case a.B == 3:
			unzip3(s, d, a.W, a.JS)
		case a.B == 4 && d2s:
			zip4(s, d, a.W, a.JS)
		case a.B == 4:
			unzip4(s, d, a.W, a.JS)
		case a.B == 8 && d2s:
			zip8(s, d, a.W, a.JS)
		case a.B == 8:
			unzip8(s, d, a.W, a.JS)
		default: // one depth row per pass
			for j := 0; j < a.B; j++ {
				sj, dj := s[j:], d[j*a.JS:][:a.W]
				if d2s {
					strided(sj, dj, a.W, a.B, 1)
				} else {
					strided(dj, sj, a.W, 1, a.B)
				}
			}
		}
	}
}

func zip2[T any](s, d []T, w, lane int) {
	d0, d1 := d[:w], d[lane:][:w]
	out := blocks[[2]T](s, w)
	for x := range out {
		out[x] = [2]T{d0[x], d1[x]}
	}
}

func unzip2[T any](s, d []T, w, lane int) {
	d0, d1 := d[:w], d[lane:][:w]
	for x, blk := range blocks[[2]T](s, w) {
		d0[x], d1[x] = blk[0], blk[1]
	}
}

func zip3[T any](s, d []T, w, lane int) {
	d0, d1, d2 := d[:w], d[lane:][:w], d[2*lane:][:w]
	out := blocks[[3]T](s, w)
	for x := range out {
		out[x] = [3]T{d0[x], d1[x], d2[x]}
	}
}

func unzip3[T any](s, d []T, w, lane int) {
	d0, d1, d2 := d[:w], d[lane:][:w], d[2*lane:][:w]
	for x, blk := range blocks[[3]T](s, w) {
		d0[x], d1[x], d2[x] = blk[0], blk[1], blk[2]
	}
}

func zip4[T any](s, d []T, w, lane int) {
	d0, d1, d2, d3 := d[:w], d[lane:][:w], d[2*lane:][:w], d[3*lane:][:w]
	out := blocks[[4]T](s, w)
	for x := range out {
		out[x] = [4]T{d0[x], d1[x], d2[x], d3[x]}
	}
}

func unzip4[T any](s, d []T, w, lane int) {
	d0, d1, d2, d3 := d[:w], d[lane:][:w], d[2*lane:][:w], d[3*lane:][:w]
	for x, blk := range blocks[[4]T](s, w) {
		d0[x], d1[x], d2[x], d3[x] = blk[0], blk[1], blk[2], blk[3]
	}
}

// The 8-row kernels go in two passes of four rows, which keeps the number of
// live slices within the registers of every 64-bit target.
func zip8[T any](s, d []T, w, lane int) {
	out := blocks[[2][4]T](s, w)
	for half := 0; half < 2; half++ {
		e := d[4*half*lane:]
		d0, d1, d2, d3 := e[:w], e[lane:][:w], e[2*lane:][:w], e[3*lane:][:w]
		for x := range out {
			out[x][half] = [4]T{d0[x], d1[x], d2[x], d3[x]}
		}
	}
}

func unzip8[T any](s, d []T, w, lane int) {
	in := blocks[[2][4]T](s, w)
	for half := 0; half < 2; half++ {
		e := d[4*half*lane:]
		d0, d1, d2, d3 := e[:w], e[lane:][:w], e[2*lane:][:w], e[3*lane:][:w]
		for x := range in {
			blk := &in[x][half]
			d0[x], d1[x], d2[x], d3[x] = blk[0], blk[1], blk[2], blk[3]
		}
	}
}
