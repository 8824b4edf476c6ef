package isa

import "sync"

// LastLevelCache is the size in bytes of the largest data or unified cache
// the CPU reports through CPUID (leaf 4 on Intel, 8000_001Dh on AMD, or
// AMD's older 8000_0006h), as one instance: the L3 a core shares with its
// neighbours. 0 where there is no CPUID to ask or it does not say. The
// engine derives the size from which its kernels stream from it.
var LastLevelCache = sync.OnceValue(func() int { return cacheSize(cpuidFunc) })

// cpuidFn is CPUID as a function, so that tests can replay what real CPUs
// answered.
type cpuidFn func(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// cacheSize reads the cache descriptors through cpuid.
func cacheSize(cpuid cpuidFn) int {
	if cpuid == nil {
		return 0
	}
	maxStd, _, _, _ := cpuid(0, 0)
	maxExt, _, _, _ := cpuid(0x8000_0000, 0)
	_, _, extFeatures, _ := cpuid(0x8000_0001, 0)
	switch {
	case maxExt >= 0x8000_001D && extFeatures&(1<<22) != 0: // AMD, topology extensions
		return largestDescribed(cpuid, 0x8000_001D)
	case maxStd >= 4:
		if size := largestDescribed(cpuid, 4); size > 0 {
			return size
		}
	}
	if maxExt >= 0x8000_0006 { // AMD before topology extensions: EDX[31:18] in 512 KiB
		_, _, _, edx := cpuid(0x8000_0006, 0)
		return int(edx>>18) * 512 << 10
	}
	return 0
}

// largestDescribed walks the deterministic cache parameters of a leaf
// (4 or 8000_001Dh, which share their layout) and returns the largest
// data or unified cache.
func largestDescribed(cpuid cpuidFn, leaf uint32) int {
	largest := 0
	for sub := uint32(0); sub < 16; sub++ {
		eax, ebx, ecx, _ := cpuid(leaf, sub)
		kind := eax & 0x1F
		if kind == 0 { // no more caches
			break
		}
		if kind != 1 && kind != 3 { // instruction caches
			continue
		}
		ways := int(ebx>>22&0x3FF) + 1
		partitions := int(ebx>>12&0x3FF) + 1
		line := int(ebx&0xFFF) + 1
		sets := int(ecx) + 1
		largest = max(largest, ways*partitions*line*sets)
	}
	return largest
}
