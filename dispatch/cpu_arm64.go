//go:build !purego

package dispatch

import (
	"golang.org/x/sys/cpu"

	"github.com/blockshuffle/blockshuffle/generic"
	"github.com/blockshuffle/blockshuffle/kernels"
)

// cpuHas reports whether this CPU can run tier t.
func cpuHas(t Tier) bool {
	return t == NEON && cpu.ARM64.HasASIMD
}

var neonSets = sets(&kernels.NEON)

// builtin returns the kernel sets this build has for tier t.
func builtin(t Tier) *generic.Sets {
	if t == NEON {
		return neonSets
	}
	return nil
}
