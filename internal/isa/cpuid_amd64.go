//go:build gc && !purego

package isa

func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// x86Model returns the CPU's vendor string and display family (base family
// plus extended family, as the vendors' manuals define it).
func x86Model() (vendor string, family int) {
	_, b, c, d := cpuid(0, 0)
	v := make([]byte, 0, 12)
	for _, r := range []uint32{b, d, c} {
		v = append(v, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	a, _, _, _ := cpuid(1, 0)
	return string(v), displayFamily(a)
}

// cpuidFunc is what cacheSize asks.
var cpuidFunc cpuidFn = cpuid
