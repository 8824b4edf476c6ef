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
	avx512 := x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX512DQ
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

var avx2Sets = sets(&kernels.AVX2)

// builtin returns the kernel sets this build has for tier t.
func builtin(t Tier) *generic.Sets {
	if t == AVX2 {
		return avx2Sets
	}
	return nil
}
