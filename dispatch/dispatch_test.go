package dispatch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

func TestChoose(t *testing.T) {
	avail := []Tier{Generic, AVX2}
	for _, c := range []struct {
		request string
		want    Tier
		msg     string
	}{
		{"", AVX2, ""},
		{"generic", Generic, ""},
		{" GENERIC ", Generic, ""},
		{"avx2", AVX2, ""},
		{"avx512vbmi", AVX2, "not available"},
		{"neon", AVX2, "not available"},
		{"sse9", AVX2, `"sse9" is not a tier`},
	} {
		got, msg := choose(c.request, avail)
		if got != c.want || (c.msg == "") != (msg == "") || !strings.Contains(msg, c.msg) {
			t.Errorf("choose(%q) = %v, %q; want %v and a message with %q", c.request, got, msg, c.want, c.msg)
		}
	}
}

func TestTierNames(t *testing.T) {
	for tier := range numTiers {
		if got, ok := ParseTier(tier.String()); !ok || got != tier {
			t.Errorf("ParseTier(%q) = %v, %v", tier, got, ok)
		}
	}
	if numTiers.String() != fmt.Sprintf("Tier(%d)", numTiers) {
		t.Errorf("String of an unknown tier: %s", numTiers)
	}
}

func TestAvailable(t *testing.T) {
	avail := Available()
	if len(avail) == 0 || avail[0] != Generic || Sets(Generic) == nil {
		t.Fatalf("Available() = %v: generic must always be there", avail)
	}
	if Active() != avail[len(avail)-1] && os.Getenv(EnvVar) == "" {
		t.Errorf("Active() = %v, want the best of %v", Active(), avail)
	}
	if ActiveSets() != Sets(Active()) {
		t.Error("ActiveSets() is not the active tier's")
	}
	for _, tier := range []Tier{numTiers, numTiers + 1} {
		if Sets(tier) != nil {
			t.Errorf("Sets(%v) is not nil", tier)
		}
	}
}

// TestEnvVar starts this test binary again with BLOCKSHUFFLE_TIER set and
// checks which tier it chose and what it said on stderr.
func TestEnvVar(t *testing.T) {
	if os.Getenv("BLOCKSHUFFLE_PRINT_TIER") != "" {
		fmt.Println("tier:", Active())
		os.Exit(0)
	}
	best := Available()[len(Available())-1]
	for _, c := range []struct {
		value, tier, stderr string
	}{
		{"generic", "generic", ""},
		{"", best.String(), ""},
		{"bogus", best.String(), `BLOCKSHUFFLE_TIER="bogus" is not a tier`},
		{"avx512vbmi", "", ""}, // depends on the CPU: checked below
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnvVar$")
		cmd.Env = append(os.Environ(), "BLOCKSHUFFLE_PRINT_TIER=1", EnvVar+"="+c.value)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); errors.Is(err, syscall.ENOEXEC) {
			t.Skipf("cannot start the test binary again (an emulator without binfmt_misc?): %v", err)
		} else if err != nil {
			t.Fatalf("%s=%s: %v\n%s", EnvVar, c.value, err, stderr.String())
		}
		want := c.tier
		if c.value == "avx512vbmi" {
			want = best.String()
			c.stderr = "not available"
			if Sets(AVX512VBMI) != nil {
				want, c.stderr = "avx512vbmi", ""
			}
		}
		if got := strings.TrimSpace(stdout.String()); got != "tier: "+want {
			t.Errorf("%s=%s chose %q, want %q", EnvVar, c.value, got, want)
		}
		if (c.stderr == "") != (stderr.Len() == 0) || !strings.Contains(stderr.String(), c.stderr) {
			t.Errorf("%s=%s: stderr %q, want a message with %q", EnvVar, c.value, stderr.String(), c.stderr)
		}
	}
}
