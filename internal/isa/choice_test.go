package isa

import "testing"

func TestDisplayFamily(t *testing.T) {
	for _, c := range []struct {
		eax  uint32
		want int
	}{
		{0x00A10F11, 0x19}, // AMD Zen 4 (EPYC 9004)
		{0x00B00F21, 0x1A}, // AMD Zen 5
		{0x00870F10, 0x17}, // AMD Zen 2
		{0x00050654, 6},    // Intel Skylake-SP
		{0x000806C1, 6},    // Intel Tiger Lake
	} {
		if got := displayFamily(c.eax); got != c.want {
			t.Errorf("displayFamily(%#x) = %#x, want %#x", c.eax, got, c.want)
		}
	}
}

func TestAMD19h(t *testing.T) {
	for _, c := range []struct {
		vendor string
		family int
		want   bool
	}{
		{"AuthenticAMD", 0x19, true},  // Zen 4
		{"AuthenticAMD", 0x1A, true},  // Zen 5
		{"AuthenticAMD", 0x17, false}, // Zen 2, no AVX-512
		{"GenuineIntel", 6, false},
		{"GenuineIntel", 0x19, false},
		{"", 0, false}, // no CPUID
	} {
		if got := isAMD19h(c.vendor, c.family); got != c.want {
			t.Errorf("isAMD19h(%q, %#x) = %v, want %v", c.vendor, c.family, got, c.want)
		}
	}
}
