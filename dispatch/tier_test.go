//go:build !purego

package dispatch

import (
	"os"
	"runtime"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestSIMDTierChosen checks that a CPU gets the best SIMD tier it has:
// AVX-512 with VBMI, AVX-512 BW, AVX2 on amd64; NEON on arm64. It logs the
// choice, which the emulated CI runs look for.
func TestSIMDTierChosen(t *testing.T) {
	x := cpu.X86
	avx512 := x.HasAVX2 && x.HasBMI2 && x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX512DQ
	var want Tier
	switch {
	case runtime.GOARCH == "amd64" && avx512 && x.HasAVX512VBMI:
		want = AVX512VBMI
	case runtime.GOARCH == "amd64" && avx512:
		want = AVX512BW
	case runtime.GOARCH == "amd64" && x.HasAVX2:
		want = AVX2
	case runtime.GOARCH == "arm64" && cpu.ARM64.HasASIMD:
		want = NEON
	default:
		t.Skip("no SIMD tier for this CPU")
	}
	avail := Available()
	if got := avail[len(avail)-1]; got != want {
		t.Fatalf("best available tier = %v (of %v), want %v", got, avail, want)
	}
	if os.Getenv(EnvVar) == "" && Active() != want {
		t.Fatalf("Active() = %v, want %v", Active(), want)
	}
	t.Logf("selected tier: %v", Active())
}
