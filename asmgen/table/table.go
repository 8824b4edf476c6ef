// Package table is the one list of kernels every generator works from: one
// line per family, so that a width, a block size or an ISA is added in one
// place.
package table

import (
	"fmt"
	"slices"
)

// ISA is an instruction set a generator writes for.
type ISA string

const (
	AVX2       ISA = "AVX2"
	AVX512BW   ISA = "AVX512BW"   // AVX-512 F, BW, VL, DQ: permutes of 2 bytes and more
	AVX512VBMI ISA = "AVX512VBMI" // and VBMI: permutes of bytes
	NEON       ISA = "NEON"
)

// streams reports whether an ISA's kernels have streaming twins: x86 has
// non-temporal stores of whole vectors.
func (isa ISA) streams() bool { return isa == AVX2 }

// Kind is what a kernel does.
type Kind uint8

const (
	Zip   Kind = iota // interleave b rows of elements into one (NCHW DepthToSpace)
	Unzip             // split one row into b rows (NCHW SpaceToDepth)
	Runs              // copy runs of 16 bytes or more between strided places (NHWC)
)

// Kernel is one generated function: it zips or unzips B rows of Width-byte
// elements. B = 0 means any block size, passed at run time. Cp > 0 makes it
// a transposing zip (NHWC CRD): each pixel of the interleaved side holds
// Cp*B*B elements of Width bytes, channel c*B*B + i*B + j, and lane i takes
// them in the order (j, c).
//
// Streaming kernels write with non-temporal stores, for outputs too large
// to stay in cache; they take only rows of a multiple of 32 bytes whose
// output addresses are all 32-byte aligned.
type Kernel struct {
	ISA       ISA
	Kind      Kind
	B         int
	Width     int
	Cp        int
	Streaming bool
}

// Name is the function's name, e.g. zip3x2AVX2: zip 3 rows of 2-byte elements.
func (k Kernel) Name() string {
	if k.Kind == Runs && k.Streaming {
		return "copyRuns" + string(k.ISA) + "NT"
	}
	if k.Kind == Runs {
		return "copyRuns" + string(k.ISA)
	}
	kind := "zip"
	if k.Kind == Unzip {
		kind = "unzip"
	}
	if k.Cp > 0 { // e.g. tzip3x3x1: transposing zip, b = 3, C' = 3, 1-byte elements
		return fmt.Sprintf("t%s%dx%dx%d%s", kind, k.B, k.Cp, k.Width, k.ISA)
	}
	b := fmt.Sprint(k.B)
	if k.B == 0 {
		b = "N"
	}
	nt := ""
	if k.Streaming {
		nt = "NT"
	}
	return fmt.Sprintf("%s%sx%d%s%s", kind, b, k.Width, k.ISA, nt)
}

// Blocks are the block sizes with their own kernels: ESPCN x2/x3/x4
// super-resolution, YOLO reorg and 8x8 patchify (the Common ones), and the
// rare sizes between. Larger blocks move whole runs in NHWC and go element
// by element in NCHW.
var Blocks = []int{2, 3, 4, 5, 6, 7, 8}

// Common are the block sizes models use, whose kernels also handle rows
// shorter than 16 bytes and have streaming twins. Rare block sizes keep the
// generated code small.
var Common = []int{2, 3, 4, 8}

// Chunks are the bytes of each lane one pass of a b-lane kernel handles,
// for elements of a power-of-two size, largest first.
func Chunks(b int) []int {
	if slices.Contains(Common, b) {
		return []int{32, 16, 8, 4}
	}
	return []int{32, 16}
}

// Widths are the element sizes of every ONNX type; each gets a kernel per
// block size. 16-byte elements (complex128) also have a kernel per direction
// for any other block size, since moving them needs no byte shuffles.
var Widths = []int{1, 2, 4, 8, 16}

// Split is how the lanes of a b-row kernel are addressed: lane j sits at
// (j/Split(b))*laneI + (j%Split(b))*lane. NCHW rows are evenly spaced
// (laneI = Split(b)*lane); in NHWC CRD with b = 2 a 4-lane kernel's lanes
// (i, j) lie in two space rows.
//
// x86 addressing scales an index by 1, 2 or 4 at most within a run (3 with
// a register holding 3*lane), so runs are at most 4 lanes long.
func Split(b int) int {
	switch b {
	case 4:
		return 2
	case 5, 7, 8:
		return 4
	case 6:
		return 3
	}
	return b
}

// RunWidths are the NHWC DepthToSpace run lengths b*C'*w (bytes) below 16
// that are not powers of two, for the common block sizes, C' = 1 and C' = 3
// (RGB) and elements of 1, 2 and 4 bytes: they get zips of elements that
// size.
func RunWidths(b int) []int {
	if !slices.Contains(Common, b) {
		return nil
	}
	var out []int
	for _, cp := range []int{1, 3} {
		for _, w := range []int{1, 2, 4} {
			if e := b * cp * w; e < 16 && e&(e-1) != 0 && !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Transposes are the NHWC CRD shapes with their own kernels: block sizes
// 2 to 4, C' of 2 to 4 channels (RGB among them), and pixels of at most
// maxPixel bytes, beyond which the shuffle programs grow too long to pay.
func Transposes(b int) (cps, widths []int) {
	if b > 4 {
		return nil, nil
	}
	return []int{2, 3, 4}, []int{1, 2, 4, 8}
}

const maxPixel = 256

// avx512 reports whether an ISA is one of the AVX-512 ones.
func (isa ISA) avx512() bool { return isa == AVX512BW || isa == AVX512VBMI }

// Base is the ISA that runs what an ISA has no kernel for, and rows too
// short for its kernels: AVX2 under AVX-512. AVX2's kernels for 16-byte
// elements of any block size and its streaming twins gain nothing from
// wider registers (each element goes somewhere else; streaming is bound by
// memory); its byte shuffles serve AVX-512BW, which cannot permute bytes
// across a register; and its narrow chunks serve rows shorter than one
// 64-byte register, where masked AVX-512 passes measured slower.
func (isa ISA) Base() ISA {
	if isa.avx512() {
		return AVX2
	}
	return ""
}

// has reports whether an ISA has a kernel for b lanes of w-byte elements
// (runs of w bytes, or NHWC CRD elements of w bytes): AVX-512BW permutes
// units of 2 bytes and more only, and 16-byte elements are moves, not
// permutes, beyond 4 lanes, where AVX2's are as fast by llvm-mca.
func (isa ISA) has(b, w int) bool {
	switch {
	case !isa.avx512():
		return true
	case w == 16 && b != 2 && b != 4:
		return false
	}
	return isa != AVX512BW || w%2 == 0
}

// Kernels lists the kernels of one ISA.
func Kernels(isa ISA) []Kernel {
	var out []Kernel
	for _, kind := range []Kind{Zip, Unzip} {
		for _, b := range Blocks {
			for _, w := range append(slices.Clone(Widths), RunWidths(b)...) {
				if isa.has(b, w) {
					out = append(out, Kernel{ISA: isa, Kind: kind, B: b, Width: w})
				}
			}
			for _, w := range Widths {
				if slices.Contains(Common, b) && isa.streams() {
					out = append(out, Kernel{ISA: isa, Kind: kind, B: b, Width: w, Streaming: true})
				}
			}
			cps, widths := Transposes(b)
			for _, cp := range cps {
				for _, w := range widths {
					if b*b*cp*w <= maxPixel && isa.has(b, w) {
						out = append(out, Kernel{ISA: isa, Kind: kind, B: b, Width: w, Cp: cp})
					}
				}
			}
		}
		if !isa.avx512() {
			out = append(out, Kernel{ISA: isa, Kind: kind, Width: 16})
		}
	}
	out = append(out, Kernel{ISA: isa, Kind: Runs})
	if isa.streams() {
		out = append(out, Kernel{ISA: isa, Kind: Runs, Streaming: true})
	}
	return out
}
