package harness

import "sync"

// The copies every figure is a ratio to. copy() is the user's reference:
// what Go moves the same bytes with. From 1 MiB Go's memmove writes around
// the caches (non-temporal stores), so on a CPU whose cache holds a 4 to
// 32 MB tensor copy() runs slower than the memory allows, and ratios to
// it read above 1. MemCopy never streams: it is the machine's memory speed
// for tensors the cache holds, and a little under it beyond.

// memChunk is the length of MemCopy's copies, under the 1 MiB from which
// memmove streams.
const memChunk = 256 << 10

// Copy is Go's copy() as a function.
func Copy(dst, src []byte) int { return copy(dst, src) }

// MemCopy copies src to dst in chunks of memChunk bytes, none of which
// streams, and returns how many bytes it copied.
func MemCopy(dst, src []byte) int {
	n := min(len(dst), len(src))
	for at := 0; at < n; at += memChunk {
		end := min(at+memChunk, n)
		copy(dst[at:end], src[at:end])
	}
	return n
}

// ParallelCopy returns a function that copies src to dst with copier in
// procs nearly equal parts of whole cache lines, each on its own
// goroutine, the caller's taking the first. The goroutines start as
// blockshuffle starts its helpers, a goroutine that does nothing started
// last (internal/engine's crew), so that the copy and the calls it is
// compared with pay the same start-up.
func ParallelCopy(dst, src []byte, procs int, copier func(dst, src []byte) int) func() {
	n := len(src)
	bound := func(i int) int { return min(n, (n/procs*i)&^63) }
	if procs <= 1 || n < 64*procs {
		return func() { copier(dst, src) }
	}
	return func() {
		var wg sync.WaitGroup
		for i := 1; i < procs; i++ {
			hi := bound(i + 1)
			if i == procs-1 {
				hi = n
			}
			wg.Go(func() { copier(dst[bound(i):hi], src[bound(i):hi]) })
		}
		go func() {}()
		copier(dst[:bound(1)], src[:bound(1)])
		wg.Wait()
	}
}
