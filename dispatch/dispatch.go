// Package dispatch chooses, once at init, the fastest kernel tier that both
// this build and this CPU support, and hands its kernel sets to the root
// package.
//
// The choice can be lowered with the environment variable BLOCKSHUFFLE_TIER
// (for example BLOCKSHUFFLE_TIER=generic). A tier that is unknown, missing
// from this build or unsupported by this CPU is reported on stderr and the
// best available tier is used instead. The purego build tag leaves out all
// assembly, so only the generic tier remains.
package dispatch

import (
	"fmt"
	"os"
	"strings"

	"github.com/blockshuffle/blockshuffle/generic"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Tier is a family of kernels, ordered from the most portable to the most
// specialized.
type Tier uint8

const (
	Generic    Tier = iota // pure Go, every platform
	AVX2                   // amd64 with AVX2 (Haswell, Zen 1 and later)
	AVX512BW               // amd64 with AVX-512 F, BW, VL, DQ (Skylake-SP, Cascade Lake)
	AVX512VBMI             // AVX512BW plus VBMI (Ice Lake, Sapphire Rapids, Zen 4 and later)
	NEON                   // arm64 Advanced SIMD
	numTiers
)

var names = [numTiers]string{"generic", "avx2", "avx512bw", "avx512vbmi", "neon"}

// String returns the tier's name as BLOCKSHUFFLE_TIER spells it.
func (t Tier) String() string {
	if t < numTiers {
		return names[t]
	}
	return fmt.Sprintf("Tier(%d)", uint8(t))
}

// ParseTier reads a tier name, ignoring ASCII case and surrounding ASCII
// spaces.
func ParseTier(s string) (Tier, bool) {
	for t, name := range names {
		if shape.Fold(s) == shape.Fold(name) {
			return Tier(t), true
		}
	}
	return 0, false
}

// Sets returns the kernel sets of tier t, or nil when this build has no
// kernels for t or this CPU cannot run them.
func Sets(t Tier) *generic.Sets {
	if t == Generic {
		return generic.PureSets
	}
	if t >= numTiers || !cpuHas(t) {
		return nil
	}
	return builtin(t)
}

// Available lists the tiers this build and CPU can run, generic first and the
// best last.
func Available() []Tier {
	var out []Tier
	for t := range numTiers {
		if Sets(t) != nil {
			out = append(out, t)
		}
	}
	return out
}

var (
	active     Tier
	activeSets *generic.Sets
)

// Active returns the tier chosen at init.
func Active() Tier { return active }

// ActiveSets returns the kernel sets of the active tier.
func ActiveSets() *generic.Sets { return activeSets }

// EnvVar is the environment variable that lowers the tier.
const EnvVar = "BLOCKSHUFFLE_TIER"

func init() {
	var msg string
	active, msg = choose(os.Getenv(EnvVar), Available())
	if msg != "" {
		fmt.Fprintln(os.Stderr, msg)
	}
	activeSets = Sets(active)
}

// choose picks the tier to use given the environment variable's value and
// the available tiers, with a message for stderr when the request cannot be
// honoured.
func choose(request string, avail []Tier) (Tier, string) {
	best := avail[len(avail)-1]
	if strings.TrimSpace(request) == "" {
		return best, ""
	}
	t, ok := ParseTier(request)
	if !ok {
		return best, fmt.Sprintf("blockshuffle: %s=%q is not a tier (want one of %s); using %v",
			EnvVar, request, strings.Join(names[:], ", "), best)
	}
	for _, a := range avail {
		if a == t {
			return t, ""
		}
	}
	return best, fmt.Sprintf("blockshuffle: %s=%v is not available on this CPU or in this build (available: %s); using %v",
		EnvVar, t, list(avail), best)
}

func list(ts []Tier) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}
