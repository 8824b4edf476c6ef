//go:build !purego

package kernels

import "golang.org/x/sys/cpu"

// setsUnderTest returns the kernel sets this CPU can run.
func setsUnderTest() map[string]*Set {
	sets := map[string]*Set{}
	if cpu.ARM64.HasASIMD {
		sets["NEON"] = &NEON
	}
	return sets
}
