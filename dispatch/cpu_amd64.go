//go:build !purego

package dispatch

import (
	"golang.org/x/sys/cpu"

	"github.com/blockshuffle/blockshuffle/generic"
	"github.com/blockshuffle/blockshuffle/kernels"
)

// cpuHas reports whether this CPU and OS can run tier t. x/sys/cpu already
// checks that the OS saves the wide registers (XCR0), and it honours
// GODEBUG=cpu.avx2=off and the like.
func cpuHas(t Tier) bool {
	x := cpu.X86
	// The AVX-512 kernels also count their masks with BMI2, which every
	// AVX-512 CPU has.
	avx512 := x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX512DQ && x.HasBMI2
	switch t {
	case AVX2:
		return x.HasAVX2
	case AVX512BW:
		return x.HasAVX2 && avx512
	case AVX512VBMI:
		return x.HasAVX2 && avx512 && x.HasAVX512VBMI
	}
	return false
}

var builtins = map[Tier]*generic.Sets{
	AVX2:       sets(&kernels.AVX2),
	AVX512BW:   sets(&kernels.AVX512BW),
	AVX512VBMI: sets(&kernels.AVX512VBMI),
}

// builtin returns the kernel sets this build has for tier t.
func builtin(t Tier) *generic.Sets { return builtins[t] }
