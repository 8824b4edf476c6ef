package engine

import (
	"fmt"
	"runtime"

	"github.com/blockshuffle/blockshuffle/internal/host"
	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// The one place the module decides how many goroutines a call gets and
// from what size it writes around the caches, for the operators and for
// general transposes alike: the planners take a Want when they plan a
// call and ask it whether to cut the call into pieces (Splits), a run asks
// it how many goroutines share them (Workers), and the kernels' streaming
// twins are chosen where Streams says.

// Work is what a call moves, which decides whether it stays in a core's
// private cache and from what size its stores stream.
type Work uint8

const (
	// Rows are what moves near copy()'s speed on one goroutine: the
	// operators' row kernels, and a transpose's run copies and its zips
	// and unzips of matrices with a side of a few words.
	Rows Work = iota
	// Tiles are a transpose's tile kernels and two passes, which one
	// goroutine moves at a fraction of copy()'s speed even in cache.
	Tiles
	// PagedTiles are tiles whose dst rows lie a whole number of pages
	// apart (Paged), so that a tile's stores all fall in one set of
	// the L1; they split as Tiles do, and stream earlier where isa says
	// (Streams).
	PagedTiles
	// CrowdedTiles are tiles whose dst rows lie an odd multiple of 2 KiB
	// apart (Crowded, not Paged), a tile's stores in two sets of the L1:
	// paged tiles where isa.CrowdedStreams says, else Tiles.
	CrowdedTiles
	// PaddedTiles are tiles out of a buffer that holds a block of the
	// src rows they read (internal/simd's padded blocks): they ask only
	// whether to stream, and do from twice streamMin on every CPU.
	PaddedTiles
)

// Paged reports whether rows rowBytes apart lie a whole number of the
// smallest pages (4 KiB) apart, and so at the same offset in each page.
func Paged(rowBytes int) bool { return rowBytes%4096 == 0 }

// Crowded reports whether rows rowBytes apart lie a multiple of 2 KiB
// apart, their lines in one or two of the L1's sets (CrowdedTiles where
// not Paged).
func Crowded(rowBytes int) bool { return rowBytes%2048 == 0 }

// Want is what a call asks of the policy: the caller's bound on its
// goroutines (Params.Workers, a transpose plan's workers), or 0 for the
// automatic choice, and the work it does.
type Want struct {
	bound int
	work  Work
}

// WantOf is the Want of a call of w with the caller's bound requested.
func WantOf(requested int, w Work) Want { return Want{requested, w} }

// One is the Want of a call that runs on the caller's goroutine.
var One = Want{bound: 1}

// Automatic parallelism. A call takes one goroutine per share of its
// work, up to the cores this process may keep busy (host.Cores: SMT
// siblings counted once, a cgroup quota honoured) and GOMAXPROCS; a share
// is at least minWorkerBytes, and at least half of what one goroutine
// copies while a helper it starts gets going (startBytes, probed once), a
// quarter for tiles, so that each helper moves more than it costs. One
// exception: a call whose two tensors fit in one core's private cache (as
// the CPU reports it) stays on the caller's goroutine, moving at cache
// speed, which other cores would spend fetching the tensors from that
// cache: on a 16-core Xeon, NCHW to NHWC of 1x64x56x56 float32 (tiles, 0.8
// MB) moved at 23 GB/s on one goroutine and 12 on two.
//
// An explicit Workers is a bound that overrides the exception, the probe
// and the count of cores: no call uses more goroutines than it,
// GOMAXPROCS, which could not run at once, or one per minWorkerBytes.
var minWorkerBytes = 256 << 10

// Facts says what the policy reads of this machine, for the benchmark
// report: the cores, the caches, and startBytes (probed now if it was
// not yet).
func Facts() string {
	m, c := host.Machine(), isa.CacheSizes()
	quota := ""
	if m.Quota > 0 {
		quota = fmt.Sprintf(", a CPU quota of %.2g", m.Quota)
	}
	return fmt.Sprintf("%d cores of %d CPUs (SMT siblings %d%s), %d KiB of private cache, %d MiB shared, "+
		"a helper starting in the time one goroutine copies %d KiB", m.Cores, m.CPUs, m.Siblings, quota,
		c.Private>>10, c.Last>>20, startBytes()>>10)
}

// coreCount is host.Cores, which tests replace.
var coreCount = host.Cores

// MaxPieces bounds the pieces of a prepared call, and so its size: past
// 1 GiB pieces grow beyond minWorkerBytes rather than in number, so that
// planning a tensor of any size that fits in int takes bounded memory. No
// call runs on more goroutines than pieces.
const MaxPieces = 1 << 12

// Splits reports whether a call of the given size may run on several
// goroutines, whatever GOMAXPROCS is when it runs: its prepared call is
// then cut into pieces of about minWorkerBytes, which its goroutines share.
func (q Want) Splits(bytes int) bool { return !q.alone(bytes) }

// alone reports whether a call of the given size runs on the caller's
// goroutine whatever GOMAXPROCS is.
func (q Want) alone(bytes int) bool {
	switch {
	case q.bound == 1 || bytes < 2*minWorkerBytes:
		return true
	case q.bound != 0:
		return false
	case InPrivateCache(bytes):
		return true
	}
	return bytes < 2*q.share()
}

// share is the least work a goroutine of the call takes. A helper that
// starts while the caller copies startBytes still takes half of what is
// left, so a call splits from startBytes (two shares), and past it each
// goroutine more has half of startBytes to move: 2 goroutines against 1
// on a 2-vCPU Zen 4 whose probe read 4 MiB moved 4 MiB operators at 1.18
// and 6 MiB at 1.38. Tiles take a quarter, since one goroutine moves them
// at about half of copy()'s speed, as long over half the bytes (a 2 MiB
// float32 matrix there: 1.26).
func (q Want) share() int {
	if q.bound != 0 {
		return minWorkerBytes
	}
	if q.work != Rows {
		return max(minWorkerBytes, startBytes()/4)
	}
	return max(minWorkerBytes, startBytes()/2)
}

// Workers is how many goroutines a call of the given size uses when it
// runs, with its pieces (groups, for Execute) among them, each taking at
// least one.
func (q Want) Workers(bytes, pieces int) int {
	if q.alone(bytes) { // before runtime.GOMAXPROCS, which takes a lock (15 ns here, on every call of a small tensor)
		return 1
	}
	n := min(runtime.GOMAXPROCS(0), bytes/q.share(), pieces)
	if q.bound != 0 {
		n = min(n, q.bound)
	} else {
		n = min(n, coreCount())
	}
	return max(1, n)
}

// Pieces is how many pieces a call of the given size that can be cut into
// at most units parts is cut into where it may split: one per
// minWorkerBytes, at most piecesEach for each goroutine it could ever
// take (its bound, or the cores), at least one, at most units and
// MaxPieces. A crew's goroutines take runs of pieces, so that a few each
// balance their work; every piece costs its kernel calls, and a streaming
// kernel's call its closing fence: a 33 MB transpose of 128-byte runs
// cut into 126 pieces ran at 0.89 of its uncut speed on one goroutine of
// a Zen 4, cut into 31 at 0.95, into 7 at 1.02.
func (q Want) Pieces(units, bytes int) int {
	most := q.bound
	if most == 0 {
		most = coreCount()
	}
	return min(units, max(1, bytes/minWorkerBytes), MaxPieces, piecesEach*most)
}

const piecesEach = 8

// Share is where the i-th of n nearly equal shares of total units starts
// (Share(n, n, total) is total): the first total%n shares take one unit
// more. It never overflows, whatever total is.
func Share(i, n, total int) int { return i*(total/n) + min(i, total%n) }

// privateCache is one core's private cache as the CPU reports it, 1 MiB
// where it does not say (the middle of the 512 KiB to 2 MiB of recent
// x86 and Arm server cores).
var privateCache = func() int {
	if c := isa.CacheSizes().Private; c > 0 {
		return c
	}
	return 1 << 20
}

// InPrivateCache reports whether both tensors of a call that moves the
// given bytes fit in one core's private cache (halved: twice a tensor of
// 1 GiB overflows a 32-bit int).
func InPrivateCache(bytes int) bool { return bytes <= privateCache()/2 }

// Streams reports whether a call of w that moves tensors of the given
// size writes with non-temporal stores, where its kernels have them and
// dst's lines allow: from streamMin for rows (the operators' kernels, a
// transpose's run copies and its zips of thin matrices), twice that for
// tiles, which one goroutine moves well below copy()'s speed, so that
// ordinary stores left in the cache pay longer (on a Zen 5, before bands
// of tiles, a 1024x1024 matrix of 8-byte words, 8 MiB, moved at 1.13 of
// copy() with ordinary stores, 0.93 with streaming ones). Where
// isa.EarlyTileStreams says, as on that Zen 5 since, tiles stream from
// streamMin as rows do, and paged ones from beyond a core's private
// cache; tiles out of a padded buffer (PaddedTiles) from twice streamMin
// on every CPU (on that Zen 5, in the L3 at 8 MiB they lost: 512x16384
// bytes 0.40-0.48 of a non-streaming copy against 0.33; at 16 MiB,
// 1024x16384, they won: 0.24-0.26 against 0.52-0.60). It is the one rule
// of streaming: every planner asks it, and every kernel path honours the
// answer.
func Streams(w Work, bytes int) bool {
	switch {
	case w == Rows:
		return bytes >= streamMin()
	case w == PaddedTiles:
		return bytes >= 2*streamMin()
	case isa.EarlyTileStreams():
		return bytes >= streamMin() || (w == PagedTiles || w == CrowdedTiles && isa.CrowdedStreams()) && !InPrivateCache(bytes)
	}
	return bytes >= 2*streamMin()
}

// streamMin is the tensor size from which the operators' kernels write
// around the caches: an output this large would not be in the shared
// cache for its next reader anyway, and non-temporal stores save reading
// each line before writing it. The CPU is asked on the first call rather
// than at start-up.
var streamMin = func() int { return streamFrom(isa.CacheSizes().Last) }

// streamFrom is streamMin for a last-level cache of llc bytes (0: unknown,
// taken as 32 MiB): a quarter of it, so that both tensors of a call fit
// in half the cache the output lands in, and at least 1 MiB, where Go's
// memmove starts streaming. Streaming from below a few MiB would win a
// write-only loop but evict an output its next reader would find in cache
// (BenchmarkStreaming: ordinary stores ran at 0.6-0.67 of streaming ones
// from 2 MiB on a Zen 5). isa counts the cache at most 48 MiB, so that
// outputs from 12 MiB stream on any CPU.
func streamFrom(llc int) int {
	if llc == 0 {
		llc = 32 << 20
	}
	return max(llc/4, 1<<20)
}
