package isa

import "testing"

// replay answers CPUID from a recorded table; leaves it lacks read as
// zeros, as CPUs answer leaves past their maximum.
type replay map[[2]uint32][4]uint32

func (r replay) cpuid(leaf, sub uint32) (a, b, c, d uint32) {
	v := r[[2]uint32{leaf, sub}]
	return v[0], v[1], v[2], v[3]
}

func TestCacheSize(t *testing.T) {
	zen1 := replay{ // AMD EPYC, family 17h model 1 (a 2-vCPU VM of this project's CI)
		{0, 0}:           {0xd, 0x68747541, 0x444d4163, 0x69746e65},
		{0x8000_0000, 0}: {0x80000021, 0x68747541, 0x444d4163, 0x69746e65},
		{0x8000_0001, 0}: {0x800f12, 0x40000000, 0x4003f3, 0x2fd3fbff},
		{0x8000_0005, 0}: {0xff40ff40, 0xff40ff40, 0x20080140, 0x40040140},
		{0x8000_0006, 0}: {0x36006400, 0x56006400, 0x2006140, 0x200c140},
		{0x8000_001D, 0}: {0x121, 0x1c0003f, 0x3f, 0x0},
		{0x8000_001D, 1}: {0x122, 0xc0003f, 0xff, 0x0},
		{0x8000_001D, 2}: {0x143, 0x1c0003f, 0x3ff, 0x2},
		{0x8000_001D, 3}: {0x4163, 0x3c0003f, 0x1fff, 0x1},
	}
	oldAMD := replay{} // the same CPU without topology extensions: 8000_0006h's socket-wide L3
	for k, v := range zen1 {
		if k[0] != 0x8000_001D {
			oldAMD[k] = v
		}
	}
	oldAMD[[2]uint32{0x8000_0001, 0}] = [4]uint32{0x800f12, 0x40000000, 0x4003f3 &^ (1 << 22), 0x2fd3fbff}
	zen5 := replay{ // AMD EPYC, family 1Ah model 2 (a 2-vCPU VM without topology extensions): its host's 508 MiB of L3 in 8000_0006h
		{0, 0}:           {0xd, 0x68747541, 0x444d4163, 0x69746e65},
		{0x8000_0000, 0}: {0x80000021, 0x68747541, 0x444d4163, 0x69746e65},
		{0x8000_0001, 0}: {0xb00f21, 0x40000000, 0x440001f1, 0x25d3fbff},
		{0x8000_0005, 0}: {0xff60ff40, 0xff60ff40, 0x300c0140, 0x20080140},
		{0x8000_0006, 0}: {0x40802040, 0x60804040, 0x4006140, 0xfe09140},
	}
	intel := replay{ // leaf 4 of a made-up Intel part: 48 KiB L1d, 32 KiB L1i, 2 MiB L2, 30 MiB L3
		{0, 0}:           {0x1b, 0x756e6547, 0x6c65746e, 0x49656e69},
		{0x8000_0000, 0}: {0x80000008, 0, 0, 0},
		{4, 0}:           {0x121, 11<<22 | 63, 63, 0},    // data, 12 ways, 64 sets
		{4, 1}:           {0x122, 7<<22 | 63, 63, 0},     // instruction, 8 ways, 64 sets
		{4, 2}:           {0x143, 15<<22 | 63, 2047, 0},  // unified L2, 16 ways, 2048 sets
		{4, 3}:           {0x163, 19<<22 | 63, 24575, 0}, // unified L3, 20 ways, 24576 sets
	}
	vm := replay{ // an Intel Xeon VM of 2 vCPUs, family 6 model 167: its host's 480 MiB of L3, shared by 2
		{0, 0}:           {0x1f, 0x756e6547, 0x6c65746e, 0x49656e69},
		{0x8000_0000, 0}: {0x80000008, 0, 0, 0},
		{4, 0}:           {0x4000121, 11<<22 | 63, 63, 0},
		{4, 1}:           {0x4000122, 7<<22 | 63, 63, 0},
		{4, 2}:           {0x4000143, 15<<22 | 63, 2047, 0},
		{4, 3}:           {0x4004163, 15<<22 | 63, 491519, 0},
	}
	xeon16 := replay{} // an Intel Xeon VM of 16 vCPUs, family 6 model 207: 300 MiB of L3, shared by 16
	for k, v := range vm {
		xeon16[k] = v
	}
	xeon16[[2]uint32{4, 3}] = [4]uint32{0x403C163, 14<<22 | 63, 327679, 0}
	for _, c := range []struct {
		name  string
		cpuid cpuidFn
		want  Caches
	}{
		{"Zen 1, 8000_001Dh", zen1.cpuid, Caches{32 << 10, 512 << 10, 8 << 20}},
		{"Zen 1 without topology extensions, 8000_0005h and 8000_0006h", oldAMD.cpuid, Caches{32 << 10, 512 << 10, 32 << 20}},
		{"a Zen 5 VM without topology extensions, 8000_0006h's host L3", zen5.cpuid, Caches{48 << 10, 1 << 20, 32 << 20}},
		{"Intel, leaf 4", intel.cpuid, Caches{48 << 10, 2 << 20, 30 << 20}},
		{"a VM reporting its host's L3, leaf 4", vm.cpuid, Caches{48 << 10, 2 << 20, 48 << 20}},
		{"a 16-vCPU VM reporting its host's L3, leaf 4", xeon16.cpuid, Caches{48 << 10, 2 << 20, 48 << 20}},
		{"nothing reported", replay{}.cpuid, Caches{}},
		{"no CPUID", nil, Caches{}},
	} {
		if got := cacheSizes(c.cpuid); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestCacheSizes checks that what this machine's CPU reports, if
// anything, is plausible.
func TestCacheSizes(t *testing.T) {
	c := CacheSizes()
	if c.Last == 0 {
		t.Skip("the CPU reports no cache sizes")
	}
	t.Logf("L1 data cache: %d KiB, private cache: %d KiB, last-level cache: %d KiB", c.First>>10, c.Private>>10, c.Last>>10)
	if c.Last < 256<<10 || c.Last > 1<<30 || c.Private < 0 || c.Private > c.Last || c.First < 0 || c.First > c.Private {
		t.Errorf("caches of %+v bytes", c)
	}
}
