package isa

import "sync"

// Caches are the sizes in bytes of the data caches the engine's policy
// weighs, as the CPU reports them through CPUID (leaf 4 on Intel,
// 8000_001Dh on AMD, or AMD's older 8000_0006h); 0 where there is no
// CPUID to ask or it does not say.
type Caches struct {
	// Private is the level-2 cache of one core: where a call's tensors
	// stay while one core moves them, and a second core would have to
	// fetch them from.
	Private int
	// Last is the largest data or unified cache, as one instance: the L3
	// a core shares with its neighbours, where an output lands for its
	// next reader.
	Last int
}

// CacheSizes is what this machine's CPU reports, asked once: its CPUID
// leaves took 8.5 µs on a Zen 1 VM, where each traps to the hypervisor.
var CacheSizes = sync.OnceValue(func() Caches { return cacheSizes(cpuidFunc) })

// cpuidFn is CPUID as a function, so that tests can replay what real CPUs
// answered.
type cpuidFn func(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// cacheSizes reads the cache descriptors through cpuid.
func cacheSizes(cpuid cpuidFn) Caches {
	if cpuid == nil {
		return Caches{}
	}
	maxStd, _, _, _ := cpuid(0, 0)
	maxExt, _, _, _ := cpuid(0x8000_0000, 0)
	_, _, extFeatures, _ := cpuid(0x8000_0001, 0)
	switch {
	case maxExt >= 0x8000_001D && extFeatures&(1<<22) != 0: // AMD, topology extensions
		return described(cpuid, 0x8000_001D)
	case maxStd >= 4:
		if c := described(cpuid, 4); c.Last > 0 {
			return c
		}
	}
	if maxExt >= 0x8000_0006 { // AMD before topology extensions: ECX[31:16] in KiB, EDX[31:18] in 512 KiB
		_, _, ecx, edx := cpuid(0x8000_0006, 0)
		return Caches{Private: int(ecx>>16) << 10, Last: int(edx>>18) * 512 << 10}
	}
	return Caches{}
}

// described walks the deterministic cache parameters of a leaf (4 or
// 8000_001Dh, which share their layout): the level-2 data or unified
// cache, and the largest one, at most maxShare bytes for each logical CPU
// the leaf says shares it.
func described(cpuid cpuidFn, leaf uint32) Caches {
	var c Caches
	sharing := 0
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
		size := ways * partitions * line * sets
		if eax>>5&7 == 2 {
			c.Private = size
		}
		if size > c.Last {
			c.Last, sharing = size, int(eax>>14&0xFFF)+1
		}
	}
	c.Last = min(c.Last, sharing*maxShare)
	return c
}

// maxShare is the most last-level cache a logical CPU sharing it counts
// for. No CPU gives a core more than 12 MiB (AMD's X3D parts: 96 MiB a
// CCD of 8 cores); a report of far more is a hypervisor passing its
// host's whole L3 to a VM of a few vCPUs, which gets what its neighbours
// leave it. An Intel Xeon VM of 2 vCPUs reported 480 MiB shared by 2;
// copies ran at L3 speed up to tensors of 32 MiB and at memory speed from
// 64 MiB, and 4096x4096 matrices of 4-byte words moved at 0.25-0.30 of a
// non-streaming copy with ordinary stores, 0.6-0.8 with streaming ones.
const maxShare = 48 << 20
