//go:build !purego

package dispatch

import (
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestSIMDTierChosen checks that a CPU with a SIMD tier gets it: AVX2 on
// amd64, NEON on arm64.
func TestSIMDTierChosen(t *testing.T) {
	var want Tier
	switch {
	case runtime.GOARCH == "amd64" && cpu.X86.HasAVX2:
		want = AVX2
	case runtime.GOARCH == "arm64" && cpu.ARM64.HasASIMD:
		want = NEON
	default:
		t.Skip("no SIMD tier for this CPU")
	}
	if !slices.Contains(Available(), want) {
		t.Fatalf("Available() = %v, want it to hold %v", Available(), want)
	}
}
