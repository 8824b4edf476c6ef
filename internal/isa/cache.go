package isa

import "sync"

// Caches are the sizes in bytes of the data caches the engine's policy
// weighs, as the CPU reports them through CPUID (leaf 4 on Intel,
// 8000_001Dh on AMD, or AMD's older 8000_0006h); 0 where there is no
// CPUID to ask or it does not say.
type Caches struct {
	// First is the level-1 data cache of one core: what a block of a
	// matrix moved through a buffer may take.
	First int
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

// cacheSizes reads the cache descriptors through cpuid, the last level
// counted at most maxLast bytes.
func cacheSizes(cpuid cpuidFn) Caches {
	c := reported(cpuid)
	c.Last = min(c.Last, maxLast)
	return c
}

// reported is what cpuid describes.
func reported(cpuid cpuidFn) Caches {
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
	if maxExt >= 0x8000_0006 { // AMD before topology extensions: 8000_0005h ECX[31:24] in KiB, 8000_0006h ECX[31:16] in KiB, EDX[31:18] in 512 KiB
		_, _, l1, _ := cpuid(0x8000_0005, 0)
		_, _, ecx, edx := cpuid(0x8000_0006, 0)
		return Caches{First: int(l1>>24) << 10, Private: int(ecx>>16) << 10, Last: min(int(edx>>18)*512<<10, maxCCX)}
	}
	return Caches{}
}

// described walks the deterministic cache parameters of a leaf (4 or
// 8000_001Dh, which share their layout): the level-1 data cache, the
// level-2 data or unified cache, and the largest one.
func described(cpuid cpuidFn, leaf uint32) Caches {
	var c Caches
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
		switch level := eax >> 5 & 7; {
		case level == 1 && kind == 1:
			c.First = size
		case level == 2:
			c.Private = size
		}
		if size > c.Last {
			c.Last = size
		}
	}
	return c
}

// maxLast is the most last-level cache one call counts on. Hypervisors
// pass their host's whole L3 to a VM, which gets what its neighbours
// leave it: on two Intel Xeon VMs, one of 2 vCPUs reporting 480 MiB and
// one of 16 reporting 300 MiB, a copy on one core ran at cache speed up
// to tensors of 32 MiB and at memory speed from 48 MiB alike. Counted
// whole, the 300 MiB kept tiles on ordinary stores up to 150 MiB: 2048x2048
// matrices of 8-byte words (32 MiB) moved at 0.21-0.27 of a non-streaming
// copy, 0.84-0.92 with streaming stores. Bare metal loses little to the
// cap: an output beyond 12 MiB (a quarter of it) is written around a
// larger cache.
const maxLast = 48 << 20

// maxCCX is the most L3 one AMD core shares, as 8000_0006h counts it:
// that leaf gives the socket's whole L3, where a core shares one CCX's,
// at most 32 MiB on Zen 2 to 5 (but V-Cache's 96). A Zen 5 VM of 2 vCPUs
// (family 1Ah model 2), without topology extensions, reported 508 MiB
// there; its copy() ran at cache speed to tensors of 8 MiB, 38 GB/s at 16
// MiB and 20 at 100. Counted as 48 MiB (maxLast), tensors of 8 to 12 MiB
// kept ordinary stores; counted as 32, they stream: one goroutine, of a
// non-streaming copy, before and after, NCHW to NHWC of bytes
// 1x64x400x400 0.56 and 0.94 (avx2 tier 0.23 and 0.67), 1x256x200x200
// 0.53 and 0.86, NHWC to NCHW 1x400x400x64 0.36 and 0.79, of 2-byte words
// 1x64x400x200 0.72 and 0.87 (avx2 0.50 and 0.95), of 4-byte words
// 1x200x200x64 0.75 and 0.86 (avx2 0.54 and 0.91); most of rows that
// are no whole lines tied (2000x2500 of 2-byte words, avx2 tier, lost
// through a buffer until it took only whole lines: simd's buffered).
const maxCCX = 32 << 20
