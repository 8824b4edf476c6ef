// Package isa describes, once, each tier of kernels: the pure-Go one and
// one per instruction set blockshuffle has kernels for. Everything that
// differs per ISA is read from All:
//
//   - the generator (asmgen, a module of its own that imports this
//     package) writes each ISA's kernels, streaming twins where Streaming
//     is set, with the back end of its GOARCH, and registers them under
//     Tier;
//   - dispatch's Tier constants are generated from All, in its order, and
//     a tier is available where its kernels registered and Supported holds;
//   - the kernel tests run the tables of the ISAs Supported says this CPU
//     runs.
//
// Adding an ISA is one entry here plus a back end in asmgen.
package isa

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// ISA is one tier of kernels.
type ISA struct {
	// Name is the instruction set's name as kernel names end, e.g.
	// zip2x1AVX2; empty for the generic tier.
	Name string
	// TierName is the tier's name, as dispatch and BLOCKSHUFFLE_TIER spell it.
	TierName string
	// GOARCH is the architecture the kernels are written for; empty for
	// the generic tier, which runs everywhere.
	GOARCH string
	// Base is the Name of the ISA whose kernels serve what this one has no
	// kernel for, and rows too short for its own; empty for none.
	Base string
	// Streaming says that the ISA's kernels have twins writing with
	// non-temporal stores, for outputs too large to stay in cache.
	Streaming bool
	// CPUs says where the tier runs, for the documentation.
	CPUs string
	// Windows is how the ISA's gather kernels build an output vector;
	// the zero value means it has none (its base's serve).
	Windows Windows
	// Vector is the bytes of the ISA's widest vector register: 16 (NEON),
	// 32 (AVX2) or 64 (AVX-512).
	Vector int
	// TwoTable says that the ISA permutes elements across a whole register,
	// picking from two registers (AVX-512's VPERMT2W, VPERMT2D, ...), with
	// opmasks for partial loads and stores: its kernels are permute
	// programs. Without it they shuffle bytes within 16-byte lanes (AVX2's
	// VPSHUFB, NEON's TBL) and move lanes whole.
	TwoTable bool
	// BytePermutes says that the ISA's two-table permutes move single
	// bytes (VBMI's VPERMI2B); without it the permutes move grains of 2
	// bytes and more, and the stacked-row kernels move 1-byte elements as
	// pairs (internal/stack).
	BytePermutes bool
	// has reports whether this CPU and OS can run the kernels. x/sys/cpu
	// checks that the OS saves the wide registers (XCR0) and honours
	// GODEBUG=cpu.avx2=off and the like.
	has func() bool
}

// Supported reports whether this build's architecture and this CPU run
// the tier's kernels. It is the one CPU-feature test of the module.
func (i ISA) Supported() bool {
	return (i.GOARCH == "" || i.GOARCH == runtime.GOARCH) && i.has()
}

// Generic is the pure-Go tier (internal/loops), which every build has.
const Generic = "generic"

// EnvVar is the environment variable that asks for another tier than the
// best one (dispatch.EnvVar).
const EnvVar = "BLOCKSHUFFLE_TIER"

// All lists the tiers from the most portable to the most specialized:
// dispatch picks the last one this machine supports.
var All = []ISA{
	{TierName: Generic, CPUs: "every platform; the only tier with -tags purego", has: always},
	{
		Name: "AVX2", TierName: "avx2", GOARCH: "amd64", Streaming: true, Vector: 32,
		CPUs: "amd64 with AVX2 (Haswell, Zen 1 and later)",
		// VPSHUFB picks within 16-byte lanes: each window is broadcast to
		// both lanes and shuffled alone (a group of one), index bit 7
		// zeroing the bytes other windows supply; VPOR merges.
		// Seven windows a vector move SpaceToDepth CRD in NHWC of 5-byte
		// elements, b = 3 and 4 (Go's loop else), but lose to two passes
		// of tiles (Zen 5, one goroutine, of copy(): DepthToSpace CRD in
		// NHWC, b = 2, 1x64x270x480, 0.21 against 0.34).
		Windows: Windows{Vector: 32, Window: 16, PerGroup: 1, MaxGroups: 7, Rivals: 6, None: 0x80},
		has:     func() bool { return cpu.X86.HasAVX2 },
	},
	{
		Name: "AVX512BW", TierName: "avx512bw", GOARCH: "amd64", Base: "AVX2", Vector: 64, TwoTable: true,
		CPUs: "amd64 with AVX-512 F, BW, VL and DQ (Skylake-SP, Cascade Lake)",
		has:  avx512,
	},
	{
		Name: "AVX512VBMI", TierName: "avx512vbmi", GOARCH: "amd64", Base: "AVX2", Vector: 64, TwoTable: true,
		CPUs: "amd64 with AVX-512 F, BW, VL, DQ and VBMI (Ice Lake, Sapphire Rapids, Zen 4 and later)",
		// VPERMI2B picks from four 32-byte windows, two per table (bits
		// 0-6 of the index); with several groups, index bit 7 marks the
		// group's bytes (VPMOVB2M) and the others are zeroed, then VPORQ
		// merges.
		Windows:      Windows{Vector: 64, Window: 32, PerGroup: 4, MaxGroups: 3, Rivals: 3, Ahead: 1, Used: 0x80, ShortRows: true},
		BytePermutes: true,
		has:          func() bool { return avx512() && cpu.X86.HasAVX512VBMI },
	},
	{
		Name: "NEON", TierName: "neon", GOARCH: "arm64", Vector: 16,
		CPUs: "arm64 (Advanced SIMD, which every arm64 CPU Go runs on has)",
		has:  func() bool { return cpu.ARM64.HasASIMD },
	},
}

func always() bool { return true }

// Windows describes an ISA's gather kernels, which write each output
// vector of a call by shuffling bytes from a few source windows (see
// internal/gather). A kernel of g groups loads g*PerGroup windows of
// Window bytes per Vector output bytes, and shuffles each group of
// PerGroup windows with one index vector, whose byte is Used | (k*Window
// + offset) for byte offset of the group's window k and None for a byte
// another group supplies.
//
// Rivals is the most groups of a plan taken ahead of any route of other
// kernels (engine.OtherKernels), plans of more only where Go's loops
// would move the call; Ahead is the most groups of a plan that a
// transpose takes ahead of two passes through a buffer where they are
// not costly (internal/transpose's route); ShortRows says that the plans
// beat the row kernels on NCHW rows shorter than a vector (gather.Pays).
type Windows struct {
	Vector, Window, PerGroup, MaxGroups, Rivals, Ahead int
	Used, None                                         byte
	ShortRows                                          bool
}

// avx512 is what both AVX-512 tiers need: F, BW, VL and DQ, with AVX2 for
// their base and BMI2, with which the kernels count their masks (every
// AVX-512 CPU has it).
func avx512() bool {
	x := cpu.X86
	return x.HasAVX2 && x.HasBMI2 && x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX512DQ
}

// Named returns the ISA of the given Name, or nil.
func Named(name string) *ISA {
	for i := range All {
		if All[i].Name == name && name != "" {
			return &All[i]
		}
	}
	return nil
}
