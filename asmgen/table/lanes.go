package table

import (
	"fmt"
	"slices"

	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

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

// regroups reports whether an ISA has regrouping kernels of C' channels
// in a direction: of C' = 16 (b = 2, bytes: pixels of 64 bytes) only
// DepthToSpace, where the lanes path unzips each pixel by 4 in lanes of
// 16 bytes: on a Zen 5, one goroutine, NHWC CRD DepthToSpace of
// 1x64x270x480, of a non-streaming copy, 0.63-0.71 that way, 1.02-1.17
// in VBMI's kernel (191 bytes); in AVX2's, which AVX-512 BW runs too,
// 0.83-0.96 (avx512bw 0.87-1.04) where the lanes path ran at 0.64-0.69
// (1x64x112x112, in the L2: 0.31-0.35 and 0.41-0.53). The SpaceToDepth
// kernels gained too little for their bytes (1.00-1.06 -> 1.06-1.16).
func (i ISA) regroups(unzip bool, cp int) bool { return cp < 16 || unzip }

// Regroups are the NHWC CRD shapes with their own kernels, of the
// element widths whose pixels fit (pixelFits): block sizes 2 to 4 with C'
// of 2 to 4 channels (RGB among them); b = 2 with C' = 8, which otherwise
// unzips every pixel by 4 as a kernel row of 8-byte lanes, and C' = 16
// (ISA.regroups); and b = 8 with
// C' of 2 to 4 (8x8 patches of a few channels), whose other path, zips by
// channel, makes every pixel a kernel row of a few bytes (1x256x64x64 b = 8
// of bytes on a Zen 4: 108 µs that way, 34 with AVX2's kernels).
func Regroups(b int) (cps, widths []int) {
	widths = []int{1, 2, 4, 8}
	switch {
	case b == 2:
		return []int{2, 3, 4, 8, 16}, widths
	case b <= 4:
		return []int{2, 3, 4}, widths
	case b == 8:
		return []int{2, 3, 4}, widths
	}
	return nil, nil
}

const maxPixel = 512

// pixelFits reports whether the pixels of a transposing kernel, b*b*C'*w
// bytes, are small enough for it to pay: at most maxPixel bytes (pixels
// of up to 512 bytes beat zips by channel on a Zen 4: 3.1 µs against 4.9
// for 1x36x20x20 b = 3 of 8-byte elements), and for C' = 8 at most 64,
// beyond which the lanes path was as fast.
func pixelFits(b, cp, w int) bool {
	pixel := b * b * cp * w
	return pixel <= maxPixel && (cp < 8 || pixel <= 64)
}

// beatsLanes reports whether an ISA has the regrouping kernel of a
// direction, b, C' and w, given that the runtime moves a regroup of b = 2
// whose runs (C' elements, C'*w bytes) are 16 bytes or more as an unzip
// by 4 of each pixel, the lanes path, where the table has no kernel for
// it, and that AVX-512 tiers run AVX2's where they have none. AVX-512's
// kernels and AVX2's run networks (runs of 16 or 32 bytes, vec.RunFits)
// beat the lanes path (on a Zen 5, 0.53-0.67 of copy() against 0.42);
// AVX2's window programs lose to it; NEON keeps the lanes path,
// unmeasured.
func (i ISA) beatsLanes(unzip bool, b, cp, w int) bool {
	run := cp * w
	switch {
	case i.TwoTable() && !unzip && w == 8 && b*b*cp*w > 256:
		// AVX-512's zips of the largest pixels lose to AVX2's: on a
		// Zen 4, SpaceToDepth to 1x36x20x20 b = 3 (C' = 4) 6.2 µs
		// against 2.7.
		return false
	case b == 8:
		// AVX-512's of bytes lose to AVX2's, their base: 1x128x16x16
		// DepthToSpace on a Zen 4, 1.5 µs against 0.82.
		return w > 1 || !i.TwoTable()
	case b != 2 || run < 16 || i.TwoTable():
		return true
	}
	// The run networks hold a pixel's runs in the two lanes of a 32-byte
	// register.
	return i.Vector() == 2*vec.LaneBytes && vec.RunFits(b, cp, w)
}

// measured is an entry of measuredOut: a kernel of the ISAs with two-table
// permutes (TwoTable) or of those without, and, for elements of 1 and 2
// bytes, whose permutes differ, of those with byte permutes or without.
type measured struct {
	TwoTable  bool
	Bytes     bytePermutes
	Unzip     bool
	B, Cp     int
	Width     int
	Streaming bool
}

// bytePermutes says which ISAs an entry of measuredOut is for: either, or
// those with byte permutes, or those without.
type bytePermutes uint8

const (
	either bytePermutes = iota
	with
	without
)

// measuredOut are the kernels a tier gains less than 10% by: on every case
// of the report and of report -shapes that runs them, the path their calls
// take without them (another kernel, the base ISA's, or their streaming or
// plain twin) ran at least 0.91 times as fast, in two alternated runs of
// each table against one without (AMD EPYC Zen 5, 2026-11-25; the shapes
// are in docs/benchmark-log.md). They cost bytes every user pays for and buy
// nothing measured. So do three streaming twins of regroups that lost to
// their plain kernels, on both the avx2 and the avx512vbmi tier, where
// every other twin won or tied: one goroutine, the NHWC CRD operator on 64
// MiB with streaming stores and without (the same Zen 5, 2026-11-30; of a
// non-streaming copy), DepthToSpace of b = 4, C' = 3 of bytes 0.54-0.56
// against 0.59-0.80, SpaceToDepth of b = 8, C' = 4 of bytes 0.53-0.56
// against 0.65-0.68 and of 2-byte words 0.43-0.44 against 0.42-0.67.
// And one twin never ran: that of AVX2's unzip of b = 2, C' = 4 of 8-byte
// elements, whose plain kernel no tier has (the runtime streams a call
// only where a plain kernel of its key runs it).
var measuredOut = []measured{
	{TwoTable: false, B: 2, Cp: 2, Width: 8},
	{TwoTable: false, B: 2, Cp: 3, Width: 8, Streaming: true},
	{TwoTable: false, B: 2, Cp: 4, Width: 4},
	{TwoTable: false, B: 2, Cp: 4, Width: 8},
	{TwoTable: false, B: 2, Cp: 4, Width: 8, Streaming: true},
	{TwoTable: false, B: 2, Cp: 8, Width: 2},
	{TwoTable: false, B: 3, Width: 16},
	{TwoTable: false, B: 3, Cp: 2, Width: 4, Streaming: true},
	{TwoTable: false, B: 3, Cp: 4, Width: 2, Streaming: true},
	{TwoTable: false, B: 3, Cp: 4, Width: 4, Streaming: true},
	{TwoTable: false, B: 4, Cp: 3, Width: 2, Streaming: true},
	{TwoTable: false, B: 8, Cp: 3, Width: 2},
	{TwoTable: false, B: 8, Cp: 4, Width: 1, Streaming: true},
	{TwoTable: false, B: 8, Cp: 4, Width: 2, Streaming: true},
	{TwoTable: false, Unzip: true, B: 2, Cp: 3, Width: 4},
	{TwoTable: false, Unzip: true, B: 2, Cp: 4, Width: 8},
	{TwoTable: false, Unzip: true, B: 2, Cp: 4, Width: 8, Streaming: true},
	{TwoTable: false, Unzip: true, B: 3, Cp: 2, Width: 2, Streaming: true},
	{TwoTable: false, Unzip: true, B: 3, Cp: 3, Width: 2, Streaming: true},
	{TwoTable: false, Unzip: true, B: 3, Cp: 4, Width: 2, Streaming: true},
	{TwoTable: false, Unzip: true, B: 4, Cp: 3, Width: 1, Streaming: true},
	{TwoTable: false, Unzip: true, B: 4, Cp: 3, Width: 2, Streaming: true},
	{TwoTable: false, Unzip: true, B: 8, Cp: 2, Width: 4},
	{TwoTable: false, Unzip: true, B: 8, Cp: 4, Width: 2},
	{TwoTable: true, B: 2, Cp: 3, Width: 8},
	{TwoTable: true, B: 2, Cp: 4, Width: 8},
	{TwoTable: true, B: 3, Cp: 2, Width: 8},
	{TwoTable: true, B: 4, Width: 4},
	{TwoTable: true, B: 4, Width: 8},
	{TwoTable: true, B: 4, Width: 12},
	{TwoTable: true, B: 4, Cp: 3, Width: 4},
	{TwoTable: true, Unzip: true, B: 2, Cp: 4, Width: 8},
	{TwoTable: true, Unzip: true, B: 3, Cp: 2, Width: 8},
	{TwoTable: true, Unzip: true, B: 3, Cp: 3, Width: 8},
	{TwoTable: true, Unzip: true, B: 3, Cp: 4, Width: 8},
	{TwoTable: true, Unzip: true, B: 6, Width: 8},
	{TwoTable: true, Unzip: true, B: 7, Width: 8},
	{TwoTable: true, Unzip: true, B: 8, Width: 8},
	{TwoTable: true, Bytes: without, B: 2, Width: 2},
	{TwoTable: true, Bytes: without, B: 2, Cp: 2, Width: 2},
	{TwoTable: true, Bytes: without, B: 4, Cp: 2, Width: 2},
	{TwoTable: true, Bytes: without, Unzip: true, B: 2, Width: 1},
	{TwoTable: true, Bytes: without, Unzip: true, B: 4, Cp: 2, Width: 2},
	{TwoTable: true, Bytes: without, Unzip: true, B: 8, Width: 1},
	{TwoTable: true, Bytes: with, B: 2, Width: 1},
	{TwoTable: true, Bytes: with, B: 2, Width: 2},
	{TwoTable: true, Bytes: with, B: 2, Cp: 2, Width: 1},
	{TwoTable: true, Bytes: with, B: 2, Cp: 2, Width: 2},
	{TwoTable: true, Bytes: with, B: 2, Cp: 4, Width: 1},
	{TwoTable: true, Bytes: with, B: 4, Cp: 2, Width: 1},
	{TwoTable: true, Bytes: with, B: 4, Cp: 2, Width: 2},
	{TwoTable: true, Bytes: with, B: 4, Cp: 4, Width: 1},
	{TwoTable: true, Bytes: with, Unzip: true, B: 2, Cp: 4, Width: 1},
	{TwoTable: true, Bytes: with, Unzip: true, B: 4, Cp: 2, Width: 1},
	{TwoTable: true, Bytes: with, Unzip: true, B: 4, Cp: 2, Width: 2},
	{TwoTable: true, Bytes: with, Unzip: true, B: 4, Cp: 4, Width: 1},
	{TwoTable: true, Bytes: with, Unzip: true, B: 8, Width: 1},
}

// out reports whether kernel k of ISA i is one of measuredOut.
func (i ISA) out(k Kernel) bool {
	bytes := either
	if k.Width <= 2 && i.TwoTable() {
		bytes = without
		if i.BytePermutes() {
			bytes = with
		}
	}
	return slices.Contains(measuredOut, measured{i.TwoTable(), bytes, k.Unzip, k.B, k.Cp, k.Width, k.Streaming}) ||
		bytes != either && slices.Contains(measuredOut, measured{i.TwoTable(), either, k.Unzip, k.B, k.Cp, k.Width, k.Streaming})
}

// slowZip reports whether an ISA leaves the zips of b lanes of w-byte
// elements to its base: the AVX-512 zips by 8, and by 2 of 4- and 8-byte
// elements, build each output register from more than one two-table
// permute, which AMD's Zen 4 and Zen 5, the AVX-512 CPUs this project
// measures on, run slower than AVX2's unpacks (0.80-0.96 of AVX2's speed
// on a Zen 5, BenchmarkLaneKernels); no measured case gains from them.
func (i ISA) slowZip(unzip bool, b, w int) bool {
	return i.TwoTable() && !unzip && (b == 8 || b == 2 && (w == 4 || w == 8))
}

// laneKernels lists an ISA's lane kernels of fixed b, but those of
// measuredOut and slowZip.
func laneKernels(i ISA) []Kernel {
	var out []Kernel
	for _, unzip := range []bool{false, true} {
		for _, b := range Blocks {
			var ks []Kernel
			for _, w := range append(slices.Clone(Widths), RunWidths(b)...) {
				if i.has(b, w) || i.pairsBytes(unzip, b, w) || i.RotatesBytes(unzip, b, w) {
					ks = append(ks, Kernel{B: b, Width: w})
				}
			}
			for _, w := range Widths {
				if slices.Contains(Common, b) && i.streams() {
					ks = append(ks, Kernel{B: b, Width: w, Streaming: true})
				}
			}
			cps, widths := Regroups(b)
			for _, cp := range cps {
				if !i.regroups(unzip, cp) {
					continue
				}
				for _, w := range widths {
					if pixelFits(b, cp, w) && i.has(b, w) && i.beatsLanes(unzip, b, cp, w) {
						ks = append(ks, Kernel{B: b, Width: w, Cp: cp})
					}
					if pixelFits(b, cp, w) && i.streams() {
						ks = append(ks, Kernel{B: b, Width: w, Cp: cp, Streaming: true})
					}
				}
			}
			for _, k := range ks {
				k.ISA, k.Unzip = i, unzip
				if !i.out(k) && !(k.Cp == 0 && !k.Streaming && i.slowZip(unzip, k.B, k.Width)) {
					out = append(out, k)
				}
			}
		}
	}
	return out
}

// laneName names a lane kernel: zip3x2AVX2 zips 3 lanes of 2-byte
// elements, tunzip3x3x1AVX2 is a regrouping unzip (NHWC CRD) of b = 3,
// C' = 3, 1-byte elements; NT ends a streaming twin's.
func laneName(k Kernel) string {
	kind := "zip"
	if k.Unzip {
		kind = "unzip"
	}
	if k.Cp > 0 {
		kind = "t" + kind
		return fmt.Sprintf("%s%dx%dx%d%s%s", kind, k.B, k.Cp, k.Width, k.ISA, nt(k))
	}
	return fmt.Sprintf("%s%dx%d%s%s", kind, k.B, k.Width, k.ISA, nt(k))
}

// nt ends the name of a streaming kernel.
func nt(k Kernel) string {
	if k.Streaming {
		return "NT"
	}
	return ""
}
