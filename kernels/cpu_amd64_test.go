//go:build !purego

package kernels

import "golang.org/x/sys/cpu"

// setsUnderTest returns the kernel sets this CPU can run.
func setsUnderTest() map[string]*Set {
	sets := map[string]*Set{}
	if cpu.X86.HasAVX2 {
		sets["AVX2"] = &AVX2
	}
	return sets
}
