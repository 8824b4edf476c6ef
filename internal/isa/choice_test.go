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

// TestBaseZip checks the rule's shape: nothing moves off AVX-512 unless the
// CPU is AMD family 19h or later, and then only zips by 8 and the 4- and
// 8-byte zips by 2.
func TestBaseZip(t *testing.T) {
	vendor, family := x86Model()
	amd := vendor == "AuthenticAMD" && family >= 0x19
	t.Logf("CPU vendor %q, family %#x", vendor, family)
	for b := 1; b <= 8; b++ {
		for _, w := range []int{1, 2, 4, 8, 16} {
			want := amd && (b == 8 || b == 2 && (w == 4 || w == 8))
			if got := BaseZip(b, w); got != want {
				t.Errorf("BaseZip(%d, %d) = %v on %q family %#x", b, w, got, vendor, family)
			}
		}
	}
}
