package dispatch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
)

func TestChoose(t *testing.T) {
	avail := []Tier{Generic, AVX2}
	for _, c := range []struct {
		request string
		want    Tier
		err     error
		msg     string
	}{
		{"", AVX2, nil, ""},
		{" \t", AVX2, nil, ""},
		{"generic", Generic, nil, ""},
		{" GENERIC ", Generic, nil, ""},
		{"avx2", AVX2, nil, ""},
		{"avx512vbmi", AVX2, ErrUnavailableTier, `blockshuffle: BLOCKSHUFFLE_TIER="avx512vbmi": tier not available (on this CPU or in this build; available: generic, avx2); using avx2`},
		{" Neon", AVX2, ErrUnavailableTier, `blockshuffle: BLOCKSHUFFLE_TIER=" Neon": tier not available (`},
		{"sse9", AVX2, ErrUnknownTier, `blockshuffle: BLOCKSHUFFLE_TIER="sse9": unknown tier (tiers: generic, avx2, avx512bw, avx512vbmi, neon); using avx2`},
		{"gener\u0131c", AVX2, ErrUnknownTier, `BLOCKSHUFFLE_TIER="generıc": unknown tier`}, // a dotless i folds to I in Unicode, not in ASCII
	} {
		got, err := choose(c.request, avail)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("choose(%q) = %v, %v; want %v and an error wrapping %v", c.request, got, err, c.want, c.err)
		} else if err != nil && !strings.Contains(err.Error(), c.msg) {
			t.Errorf("choose(%q): error %q does not say %q", c.request, err, c.msg)
		}
	}
}

func TestTierNames(t *testing.T) {
	if int(numTiers) != len(isa.All) {
		t.Fatalf("%d tier constants for %d entries of internal/isa: go generate ./...", numTiers, len(isa.All))
	}
	for tier := range numTiers {
		if got, err := ParseTier(tier.String()); err != nil || got != tier {
			t.Errorf("ParseTier(%q) = %v, %v", tier, got, err)
		}
	}
	if numTiers.String() != fmt.Sprintf("Tier(%d)", numTiers) {
		t.Errorf("String of an unknown tier: %s", numTiers)
	}
	if _, err := ParseTier("avx3"); !errors.Is(err, ErrUnknownTier) || !strings.Contains(err.Error(), "avx3") {
		t.Errorf("ParseTier(avx3): %v", err)
	}
}

// TestAvailable checks the tiers offered: generic first, every tier this
// CPU supports in a build with assembly, and the best of them chosen. It
// logs the choice, which the emulated CI runs look for.
func TestAvailable(t *testing.T) {
	avail := Available()
	if len(avail) == 0 || avail[0] != Generic {
		t.Fatalf("Available() = %v: generic must always be there", avail)
	}
	for tier := range numTiers {
		i := isa.All[tier]
		if assembly && i.Supported() && !slices.Contains(avail, tier) {
			t.Errorf("this CPU supports %v, but it is not available (its kernels did not register)", tier)
		}
		if slices.Contains(avail, tier) && (!i.Supported() || engine.Lookup(tier.String()) == nil) {
			t.Errorf("%v is available, but this CPU or build cannot run it", tier)
		}
	}
	if os.Getenv(EnvVar) == "" && (Active() != avail[len(avail)-1] || EnvVarError() != nil) {
		t.Errorf("Active() = %v, %v; want the best of %v", Active(), EnvVarError(), avail)
	}
	if engine.Active() != engine.Lookup(Active().String()) {
		t.Error("the engine does not run the active tier")
	}
	t.Logf("selected tier: %v", Active())
}

// TestEnvVar starts this test binary again with BLOCKSHUFFLE_TIER set and
// checks which tier it chose, what EnvVarError said, and that nothing was
// written to stderr.
func TestEnvVar(t *testing.T) {
	if os.Getenv("BLOCKSHUFFLE_PRINT_TIER") != "" {
		fmt.Printf("tier: %v\nerror: %v\n", Active(), EnvVarError())
		os.Exit(0)
	}
	avail := Available()
	best := avail[len(avail)-1]
	vbmi, vbmiErr := best.String(), "tier not available" // what asking for avx512vbmi gives
	if slices.Contains(avail, AVX512VBMI) {
		vbmi, vbmiErr = AVX512VBMI.String(), "<nil>"
	}
	for _, c := range []struct {
		value, tier, err string
	}{
		{"generic", "generic", "<nil>"},
		{"", best.String(), "<nil>"},
		{"bogus", best.String(), `blockshuffle: BLOCKSHUFFLE_TIER="bogus": unknown tier`},
		{"avx512vbmi", vbmi, vbmiErr},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnvVar$")
		cmd.Env = append(os.Environ(), "BLOCKSHUFFLE_PRINT_TIER=1", EnvVar+"="+c.value)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil && strings.Contains(err.Error(), "exec format error") {
			t.Skipf("cannot start the test binary again (an emulator without binfmt_misc?): %v", err)
		} else if err != nil {
			t.Fatalf("%s=%s: %v\n%s", EnvVar, c.value, err, stderr.String())
		}
		out := stdout.String()
		_, errLine, _ := strings.Cut(out, "\nerror: ")
		if !strings.HasPrefix(out, "tier: "+c.tier+"\n") || !strings.Contains(errLine, c.err) {
			t.Errorf("%s=%s printed %q, want tier %s and an error with %q", EnvVar, c.value, out, c.tier, c.err)
		}
		if stderr.Len() != 0 {
			t.Errorf("%s=%s: the library wrote to stderr: %q", EnvVar, c.value, stderr.String())
		}
	}
}
