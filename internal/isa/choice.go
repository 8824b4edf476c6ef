package isa

import "sync"

// Per-CPU choice of kernels. An ISA says what a CPU can run, not what runs
// fastest on it: AMD's Zen 4 and Zen 5 (family 19h and later) execute
// AVX-512, but their two-table permutes (VPERMT2B/W/D/Q) cost more than on
// Intel. The AVX-512 zips that suffered most (by 8, and by 2 of 4- and
// 8-byte elements) are gone from the kernel table (asmgen/table's
// slowZip); what remains of the rule is below. BLOCKSHUFFLE_TIER still
// picks the tier; this only chooses within it.

// BaseUnzipBelow is the lane length, in bytes, below which an ISA with
// Base AVX2 should leave its unzips of b lanes of w-byte elements to AVX2
// on this CPU (0: never). On a Zen 5 the AVX-512 unzips by 2 of 8-byte
// elements lost to AVX2's on lanes of one to two registers (YOLO's
// 1x256x13x13 SpaceToDepth, lanes of 104 bytes: 0.41-0.42 of copy()
// against 0.50-0.53), and won on longer lanes.
func BaseUnzipBelow(b, w int) int {
	if slowTwoTablePermutes() && b == 2 && w == 8 {
		return 128
	}
	return 0
}

// slowTwoTablePermutes reports whether this CPU is one the rule is for.
var slowTwoTablePermutes = sync.OnceValue(func() bool { return slowPermutes(x86Model()) })

// slowPermutes reports whether a CPU of this vendor and display family
// is an AMD one of family 19h or later.
func slowPermutes(vendor string, family int) bool {
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
