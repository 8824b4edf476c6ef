//go:build !purego

package kernels

import "golang.org/x/sys/cpu"

// setsUnderTest returns the kernel sets this CPU can run.
func setsUnderTest() map[string]*Set {
	sets := map[string]*Set{}
	x := cpu.X86
	if x.HasAVX2 {
		sets["AVX2"] = &AVX2
	}
	if x.HasAVX2 && x.HasBMI2 && x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX512DQ {
		sets["AVX512BW"] = &AVX512BW
		if x.HasAVX512VBMI {
			sets["AVX512VBMI"] = &AVX512VBMI
		}
	}
	return sets
}
