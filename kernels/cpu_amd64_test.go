//go:build !purego

package kernels

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// setsUnderTest returns the kernel sets this CPU can run; with -short, as
// under emulation, only the best of them.
func setsUnderTest() map[string]*Set {
	sets := map[string]*Set{}
	x := cpu.X86
	best := ""
	if x.HasAVX2 {
		sets["AVX2"], best = &AVX2, "AVX2"
	}
	if x.HasAVX2 && x.HasBMI2 && x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX512DQ {
		sets["AVX512BW"], best = &AVX512BW, "AVX512BW"
		if x.HasAVX512VBMI {
			sets["AVX512VBMI"], best = &AVX512VBMI, "AVX512VBMI"
		}
	}
	if testing.Short() && best != "" {
		return map[string]*Set{best: sets[best]}
	}
	return sets
}
