package isa

import (
	"sync"

	"golang.org/x/sys/cpu"
)

// Per-CPU choice of kernels. An ISA says what a CPU can run, not what runs
// fastest on it. AMD's Zen 4 and Zen 5 (family 19h and later) execute
// AVX-512, but their two-table permutes (VPERMT2B/W/D/Q) cost more than on
// Intel; the AVX-512 zips that suffered most (by 8, and by 2 of 4- and
// 8-byte elements) are gone from the kernel table (asmgen/table's
// slowZip). Intel's cores run some AVX-512 shuffles below AVX2's speed
// instead. What remains of both is below, each rule by the vendor it was
// measured on. BLOCKSHUFFLE_TIER still picks the tier; this only chooses
// within it.

// BaseLanesBelow is the lane length, in bytes, below which an ISA with
// Base AVX2 should leave its zips (unzips, where unzip) of b lanes of
// w-byte elements to AVX2 on this CPU (0: never).
//   - On a Zen 5 the AVX-512 zips and unzips of 3 lanes of elements that
//     do not divide a register (3, 6, 9 and 12 bytes: NHWC CRD's regroups
//     of 3 channels), which move a lane shorter than a register in one
//     masked pass where AVX2's have chunks of their size, lost to AVX2's
//     on lanes under 48 bytes (avx512bw tier, one goroutine, of copy(),
//     before and after, alternated: b = 3 of 1x27x224x224, lanes of 36
//     bytes, DepthToSpace of 12-byte elements 0.28-0.29 -> 0.46-0.53,
//     SpaceToDepth 0.26-0.28 -> 0.36-0.49, of 6-byte elements 0.12-0.18
//     -> 0.24-0.26; b = 4 of 1x48x128x128, lanes of 24 bytes, 6-byte
//     elements 0.37 -> 0.50-0.53 and 0.35-0.39 -> 0.46-0.48). Lanes
//     AVX2's take none of go to the transposes' gathers and two passes
//     (avx512vbmi, SpaceToDepth b = 3 of 1x27x224x224 3-byte elements,
//     0.20-0.21 -> 0.45-0.48). In the L2 one case lost: SpaceToDepth
//     b = 3 of 1x27x56x56 6-byte elements, 0.18-0.20 -> 0.14-0.16.
//     Sending lanes of 48 bytes to AVX2 too lost (SpaceToDepth b = 4 of
//     12-byte elements, avx512bw 0.31 -> 0.28, avx512vbmi 0.42 -> 0.27).
//   - On a Zen 5 the AVX-512 unzips by 2 of 8-byte elements lost to
//     AVX2's on lanes of one to two registers (YOLO's 1x256x13x13
//     SpaceToDepth, lanes of 104 bytes: 0.41-0.42 of copy() against
//     0.50-0.53), and won on longer lanes.
//   - On an Intel Xeon (family 6 model 167, two alternated runs) the
//     AVX-512 unzip by 4 of 12-byte elements, NHWC DepthToSpace of b = 4
//     with 3 channels of a byte, ran at 0.67-0.75 of AVX2's speed on
//     lanes of 384 and 1,536 bytes, and 1.02-1.05 on lanes of 3,072
//     beyond the cache, where memory sets the pace.
func BaseLanesBelow(unzip bool, b, w int) int {
	switch {
	case amd19h() && b == 3:
		return 48
	case amd19h() && unzip && b == 2 && w == 8:
		return 128
	case intel() && unzip && b == 4 && w == 12:
		return 4096
	}
	return 0
}

// BaseTiles reports whether an ISA with Base AVX2 should move w-byte
// words in AVX2's tiles on this CPU, but where its own tiles stream or
// dst's rows lie a whole number of pages apart. On an Intel Xeon (family
// 6 model 167, one goroutine, two runs), matrices beyond the 2 MiB L2 ran
// at these fractions of a non-streaming copy in AVX2's tiles against
// AVX-512's:
//   - 4-byte words: 1000x1000 0.69-0.70 against 0.46-0.48, 1500x2500
//     0.74 against 0.49-0.56, NCHW to NHWC of 1x256x56x56 0.67-0.72
//     against 0.56-0.58;
//   - 8-byte: 1000x1000 0.81-0.84 against 0.64-0.68, 4000x4000 0.52-0.53
//     against 0.44-0.45 (1500x2500: 0.53-0.59 against 0.62-0.64);
//   - 2-byte: 2000x2000 0.70 against 0.52, 3000x1200 0.63-0.66 against
//     0.48-0.51;
//   - but with dst rows 4 KiB apart AVX-512's won: 1024x1024 of 4-byte
//     words 0.51-0.54 against 0.39-0.42, 2048x2048 of 2-byte 0.60
//     against 0.38;
//   - 1-byte words went either way (640x480: 0.45 against 0.70) and keep
//     AVX-512's.
func BaseTiles(w int) bool {
	return intel() && (w == 2 || w == 4 || w == 8)
}

// EarlyTileStreams reports whether tiles should stream their stores on
// this CPU from the size rows do (engine.Streams) rather than twice it,
// and where their dst rows lie whole pages apart (and where
// CrowdedStreams says, 2 KiB) wherever both tensors outgrow a core's
// private cache. On a Zen 5 (family 1Ah model 2, 48 KiB 12-way L1, 32
// MiB of L3, rows streaming from 8 MiB),
// one goroutine, of a non-streaming copy, in place and streaming:
//   - from 8 to 16 MiB AVX-512's tiles gained or tied: NCHW to NHWC of
//     1x256x112x112 float32 0.53 and 0.88, 1x64x270x480 float16 0.37 and
//     0.79-0.82, 1x96x200x200 float32 0.45 and 0.76, 1200x1200 float64
//     0.59 and 0.90, 4000x2500 bytes 0.35 and 0.42; 2500x2500 float16
//     and NHWC to NCHW of 1x128x224x224 float16 tied;
//   - with dst rows pages apart each tile stores into one L1 set, and
//     such matrices moved at a quarter of the copy even in the L3:
//     1024x1024 of 4-byte words (4 MiB) 0.22-0.25 and 0.56-0.63, NHWC to
//     NCHW of 1x64x64x256 0.24-0.30 and 0.74-0.75, of 2-byte words 0.27
//     and 0.69-0.70, of bytes 0.18-0.19 and 0.43-0.44, 1024x1024 of
//     8-byte words 0.40-0.41 and 0.68-0.88; 1024x1024 of bytes lost
//     (0.43-0.53 and 0.44). Rows 6 KiB apart went either way, 2 KiB
//     apart gained less than 0.15, 1 KiB lost. Intel's Xeons moved
//     1024x1024 of 4-byte words at 0.50-0.73 in place (matrix.go's
//     stripsDown).
//
// Intel's cores stream early too, on every tier. On an Intel Xeon (family
// 6 model 167, one goroutine, of a non-streaming copy, in place and
// streaming), avx512vbmi tier: NCHW to NHWC of 1x96x200x200 float32 0.27
// and 0.67-0.68, 1x64x270x480 float16 0.32-0.60 and 0.71-0.72, 1200x1200
// float64 0.17 and 0.70, with dst rows pages apart 2048x2048 of 4-byte
// words 0.23-0.26 and 0.47-0.52, of 2-byte words 0.18-0.21 and 0.44,
// 1024x1024 of 8-byte words 0.23 and 0.61-0.72; avx2 tier, since its
// tiles store each line's pieces back to back (vec.TileStacked),
// 1x96x200x200 0.25-0.27 and 0.59-0.73, 1200x1200 0.17-0.18 and
// 0.56-0.60, 2048x2048 of 4-byte words 0.19 and 0.48-0.57. 1024x1024 of
// 4-byte words tied on both.
//
// Zen 3, unmeasured, keeps its stores: on the Zen 5 the buffer that
// streams AVX2's tiles of 8-byte words without a twin lost (2048x512:
// 0.53 in place, 0.38 so; 4-byte words 0.16 and 0.44).
//
// AVX512F stands for avx512's full check: every AMD core with it has the
// rest, and the call to avx512 would cost the hello world a text page.
func EarlyTileStreams() bool { return amd19h() && cpu.X86.HasAVX512F || intel() }

// CrowdedStreams reports whether tiles whose dst rows lie a multiple of 2
// KiB apart, their lines in two of the L1's sets, stream where those a
// whole number of pages apart do (engine.CrowdedTiles), in place rather
// than through padded blocks that would not stream. On an Intel Xeon (family 6
// model 167), avx512vbmi tier, one goroutine, of a non-streaming copy,
// before and after, alternated: 512x1024 of 4-byte words 0.51-0.54 ->
// 0.74-0.75, 1536x512 0.51 -> 0.68, 256x4096 of 8-byte words 0.54 ->
// 0.61, 1x256x56x56 float64 NCHW to NHWC 0.54 -> 0.71, 1024x1024 of
// 2-byte words (padded blocks before) 0.45 -> 0.69; 3072x1024 of 2-byte
// words lost (0.56 -> 0.51). On a Zen 5 padded blocks won there
// (1024x1024 of 2-byte words 0.68-0.77, 0.50 in place, streaming or not),
// so AMD's cores keep them.
func CrowdedStreams() bool { return intel() }

// ZipStackRow is the longest depth row, in bytes, that a DepthToSpace of
// b = 2 moves in AVX-512's stacked rows on this CPU, where AVX2's bundles
// move longer ones, and whether rows that fill a 32- or 64-byte register
// exactly stay on the stacks too. Each figure is one goroutine, two
// alternated runs, the stacks' speed over the bundles'.
//   - On a Zen 4, stacks of three rows a 64-byte register or more (rows of
//     at most 21 bytes) won: 1x48x20x20, 20-byte rows, 1.05-1.13, and of
//     four or more up to 1.3; rows of 32 and 64 bytes 1.02-1.04. Stacks
//     of two rows (1x12x26x26, 26 bytes) ran at 0.74-0.82, of one
//     (1x48x48x48) 0.81-0.88.
//   - On an Intel Xeon (family 6 model 167) the stacks won only on rows of
//     3 to 5 bytes (1x48x4x4 of a byte: 1.36-1.48; 1x48x5x5: 1.04-1.17;
//     6-byte rows 0.84-1.08) and lost on every longer row: 1x256x13x13 of
//     a byte 0.73-0.93, 1x48x16x16 0.44-0.54, 64-byte rows 0.71-0.89.
//     Issue 49's Cascade Lake ran YOLO's DepthToSpace of 1 and 2 bytes
//     slower on the avx512bw tier than on avx2 too.
//
// Other vendors, which ship no AVX-512 today, get Intel's rule.
func ZipStackRow() (row int, wholeRegister bool) {
	if amd19h() {
		return 21, true
	}
	return 5, false
}

// amd19h reports whether this CPU is AMD's, of family 19h or later (Zen 3
// on: those with AVX-512 are Zen 4 and Zen 5).
func amd19h() bool { return maker() == amdZen3On }

// intel reports whether this CPU is Intel's.
func intel() bool { return maker() == intelCPU }

// maker is the kind of CPU the choices tell apart, asked once: one
// sync.OnceValue, whose closures cost a few hundred bytes of every
// importer's binary each.
var maker = sync.OnceValue(func() int {
	vendor, family := x86Model()
	switch {
	case isAMD19h(vendor, family):
		return amdZen3On
	case vendor == "GenuineIntel":
		return intelCPU
	}
	return otherCPU
})

const (
	otherCPU = iota
	amdZen3On
	intelCPU
)

// isAMD19h reports whether a CPU of this vendor and display family is an
// AMD one of family 19h or later.
func isAMD19h(vendor string, family int) bool {
	return vendor == "AuthenticAMD" && family >= 0x19
}

// displayFamily decodes the family from CPUID leaf 1's EAX: the base
// family, plus the extended family where the base is 0Fh.
func displayFamily(eax uint32) int {
	family := int(eax>>8) & 0xF
	if family == 0xF {
		family += int(eax>>20) & 0xFF
	}
	return family
}
