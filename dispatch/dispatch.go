// Package dispatch chooses, once at init, the kernel tier every call of
// package blockshuffle uses: the most specialized one that both this build
// and this CPU support, unless the environment variable BLOCKSHUFFLE_TIER
// asks for another available one. Active names the choice, Available lists
// the alternatives.
//
// The tiers are generic (pure Go, every platform), avx2, avx512bw and
// avx512vbmi on amd64, and neon on arm64. Each SIMD tier falls back to
// generic for what it has no kernel for. The purego build tag, and
// compilers other than gc, leave out all assembly, so only generic remains.
//
// A BLOCKSHUFFLE_TIER value that names no tier, or a tier this build or CPU
// cannot run, is not an error of any call: the best available tier is used
// instead, and EnvVarError says what was wrong. Nothing is printed.
package dispatch

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	_ "github.com/blockshuffle/blockshuffle/internal/loops" // registers the generic tier
	"github.com/blockshuffle/blockshuffle/internal/shape"
	_ "github.com/blockshuffle/blockshuffle/kernels" // registers the SIMD tiers this build has
)

// Tier is a family of kernels. The constants, in tiers.go, are generated
// from the module's table of ISAs, from the most portable to the most
// specialized.
type Tier uint8

// String returns the tier's name as BLOCKSHUFFLE_TIER spells it: "generic",
// "avx2", "avx512bw", "avx512vbmi" or "neon".
func (t Tier) String() string {
	if t < numTiers {
		return isa.All[t].TierName
	}
	return fmt.Sprintf("Tier(%d)", uint8(t))
}

// Errors of ParseTier and EnvVarError.
var (
	// ErrUnknownTier: a name that is no tier's.
	ErrUnknownTier = errors.New("unknown tier")
	// ErrUnavailableTier: a tier this build or this CPU cannot run.
	ErrUnavailableTier = errors.New("tier not available")
)

// ParseTier reads a tier name, ignoring ASCII case and surrounding ASCII
// spaces. Anything else wraps ErrUnknownTier.
func ParseTier(s string) (Tier, error) {
	for t := range numTiers {
		if shape.Fold(s) == shape.Fold(t.String()) {
			return t, nil
		}
	}
	return 0, fmt.Errorf("blockshuffle: tier %q (want one of %s): %w", s, list(all()), ErrUnknownTier)
}

// Available lists the tiers this build and CPU can run, generic first and
// the most specialized last.
func Available() []Tier {
	var out []Tier
	for t := range numTiers {
		if isa.All[t].Supported() && engine.Lookup(t.String()) != nil {
			out = append(out, t)
		}
	}
	return out
}

// EnvVar is the environment variable that chooses another tier than the
// best available one, read once at init: BLOCKSHUFFLE_TIER.
const EnvVar = isa.EnvVar

var (
	active Tier
	envErr error
)

// Active returns the tier chosen at init.
func Active() Tier { return active }

// EnvVarError reports why the tier BLOCKSHUFFLE_TIER asked for at init is
// not in use: an error wrapping ErrUnknownTier or ErrUnavailableTier that
// names the value and the tier used instead. It is nil when the variable
// was unset or empty, or honoured.
func EnvVarError() error { return envErr }

func init() {
	active, envErr = choose(os.Getenv(EnvVar), Available())
	engine.Activate(engine.Lookup(active.String()))
}

// choose picks the tier to use given the environment variable's value and
// the available tiers, with the error that explains why the request was not
// honoured.
func choose(request string, avail []Tier) (Tier, error) {
	best := avail[len(avail)-1]
	if shape.Fold(request) == "" {
		return best, nil
	}
	// Both errors read "blockshuffle: BLOCKSHUFFLE_TIER=<value>: <what is
	// wrong> (<the choices>); using <tier>".
	fail := func(err error, choices string) (Tier, error) {
		return best, fmt.Errorf("blockshuffle: %s=%q: %w (%s); using %v", EnvVar, request, err, choices, best)
	}
	t, err := ParseTier(request)
	switch {
	case err != nil:
		return fail(ErrUnknownTier, "tiers: "+list(all()))
	case !slices.Contains(avail, t):
		return fail(ErrUnavailableTier, "on this CPU or in this build; available: "+list(avail))
	}
	return t, nil
}

func all() []Tier {
	var ts []Tier
	for t := range numTiers {
		ts = append(ts, t)
	}
	return ts
}

func list(ts []Tier) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}
