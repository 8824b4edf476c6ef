package engine

import (
	"runtime"

	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// The one place the module decides how many goroutines a call gets and
// from what size it writes around the caches, for the operators and for
// general transposes alike: the planners ask Want and Splits when they
// plan a call, Prepared.Run asks Workers when it runs one, and the
// kernels' streaming twins are chosen from StreamFrom.

// Work is what a call moves, which decides from what size more goroutines
// pay and its stores stream.
type Work uint8

const (
	// Shuffles are the operators' work: row kernels near copy()'s speed
	// on one goroutine.
	Shuffles Work = iota
	// Transposes are general transposes' work: tiles and runs, which one
	// goroutine moves at a fraction of copy()'s speed beyond L2.
	Transposes
)

// Automatic parallelism. A shuffle inside the caches is limited by cache
// bandwidth that sibling cores may share, so extra goroutines only pay once
// the tensors spill to memory: BenchmarkWorkers (bench/) on a 2-vCPU Zen 5
// VM broke even at 16 MiB. A transpose pays from less: on a Zen 5 (2
// vCPUs), NCHW to NHWC of 1x64x270x480 bytes (8 MiB) moved at 0.25 of
// copy() on one goroutine, 1.12 on two; a 1024x1024 matrix of 4-byte
// words at 0.49 and 0.77; below 2 MiB two lost (1x64x56x56 of 4-byte
// words, 0.8 MB: 0.67 against 0.46). Callers who know their machine has
// many cores with private caches can set Params.Workers.
//
// An explicit Workers is a bound, not a count: no call uses more goroutines
// than GOMAXPROCS, which could not run at once, or than one per
// minWorkerBytes, the work that outweighs starting and joining a goroutine
// (1 to 3 µs; 256 KiB take about 8 µs at in-cache copy speed).
const (
	parallelMin          = 16 << 20 // bytes per tensor below which one goroutine works alone
	transposeParallelMin = 2 << 20  // the same for a transpose, which takes two from here
	bytesPerWorker       = 8 << 20
)

var minWorkerBytes = 256 << 10

// MaxPieces bounds the pieces of a prepared call, and so its size: past
// 1 GiB pieces grow beyond minWorkerBytes rather than in number, so that
// planning a tensor of any size that fits in int takes bounded memory. No
// call runs on more goroutines than pieces.
const MaxPieces = 1 << 12

// Want is how many goroutines, at most, a call of w of the given size
// asks for: requested (Params.Workers, a transpose plan's workers) where
// it is not 0, else the automatic count.
func Want(requested, bytes int, w Work) int {
	switch {
	case requested != 0:
		return requested
	case bytes >= parallelMin:
		return bytes / bytesPerWorker
	case w == Transposes && bytes >= transposeParallelMin:
		return 2
	}
	return 1
}

// Splits reports whether a call of the given size that wants want
// goroutines may run on several, whatever GOMAXPROCS is when it runs: its
// prepared call is then cut into pieces of about minWorkerBytes, which its
// goroutines share.
func Splits(want, bytes int) bool { return want > 1 && bytes >= 2*minWorkerBytes }

// Workers is how many goroutines a call of the given size that wants want
// uses when it runs; each gets at least one of its pieces (groups, for
// Execute).
func Workers(want, bytes, pieces int) int {
	if want <= 1 { // before runtime.GOMAXPROCS, which takes a lock (15 ns here, on every call of a small tensor)
		return 1
	}
	return max(1, min(want, runtime.GOMAXPROCS(0), bytes/minWorkerBytes, pieces))
}

// MinWorkerBytes is the least work worth a goroutine of its own.
func MinWorkerBytes() int { return minWorkerBytes }

// StreamFrom is the tensor size from which a call of w writes with
// non-temporal stores, where its kernels have them and dst's lines allow:
// streamMin for the operators, twice that for a transpose, where its two
// tensors fill the cache. On a Zen 5 (32 MiB of L3), a 1024x1024 matrix
// of 8-byte words (8 MiB) moved at 1.13 of copy() with ordinary stores,
// 0.93 with streaming ones; NCHW to NHWC of 1x64x270x480 of 4-byte words
// (33 MB) at 0.65 and 0.87.
func StreamFrom(w Work) int {
	if w == Transposes {
		return 2 * streamMin()
	}
	return streamMin()
}

// streamMin is the tensor size from which the operators' kernels write
// around the caches: an output this large would not be in cache for its
// next reader anyway, and non-temporal stores save reading each line
// before writing it. The CPU is asked on the first call rather than at
// start-up: its CPUID leaves took 8.5 µs on a Zen 1 VM, where each traps
// to the hypervisor.
var streamMin = func() int { return streamFrom(isa.LastLevelCache()) }

// streamFrom is streamMin for a last-level cache of llc bytes (0: unknown):
// a quarter of it, so that both tensors of a call fit in half the cache,
// kept between 1 MiB, where Go's memmove starts streaming, and 8 MiB.
// Streaming from below a few MiB would win a write-only loop but evict an
// output its next reader would find in cache (BenchmarkStreaming: ordinary
// stores ran at 0.6-0.67 of streaming ones from 2 MiB on a Zen 5).
func streamFrom(llc int) int {
	if llc == 0 {
		return maxStreamMin
	}
	return min(max(llc/4, 1<<20), maxStreamMin)
}

// maxStreamMin is the largest streamMin the CPU can give.
const maxStreamMin = 8 << 20
