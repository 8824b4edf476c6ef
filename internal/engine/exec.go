// Package engine runs validated calls. It splits a call into calls of row
// kernels (a plan: engine.Kind says what the rows look like), spreads them
// over goroutines, and hands each to the kernels of a tier, falling back to
// the generic tier's where a tier has none for it.
//
// Tiers register their kernels here at init (Register): package generic
// the pure-Go kernels, package kernels those of each ISA this build has.
// Package dispatch chooses among them; the tests and benchmarks of the
// module run each tier by its name (Lookup).
package engine

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Kernels are the row kernels of a tier for elements of type T.
type Kernels[T any] interface {
	// Run performs one call of the given kind and direction, or reports
	// false if it has no kernel for it. It is called with a.Groups,
	// a.Rows and a.W >= 1 and must not touch memory outside space and
	// depth. With a.Report set it moves nothing (see Args).
	Run(op shape.Op, kind Kind, space, depth []T, a Args) bool
}

// Impl is a tier's implementation: its kernels for each element width.
// Widths without kernels here (3, 5, 12, ...), and elements a target
// cannot load unaligned, go to the generic tier's Units kernels, which
// move elements of any size unit by unit.
type Impl struct {
	Tier  string // the tier's name, as isa.All spells it
	W1    Kernels[uint8]
	W2    Kernels[uint16]
	W4    Kernels[uint32]
	W8    Kernels[uint64]
	W16   Kernels[[2]uint64]
	Units Kernels[byte] // the generic tier's only

	// Gather, if not nil, runs a whole call in one pass over the output
	// where its rows are too short for row kernels, or reports false;
	// with r set it only describes the call into r. It takes calls of
	// one goroutine without streaming stores, on tensors in cache. It
	// takes g by value: through a func value a pointer would escape, and
	// every call would allocate its geometry.
	Gather func(g shape.Geometry, dst, src []byte, r *Route) bool
}

var (
	tiers   = map[string]*Impl{}
	generic *Impl // every tier's fallback
	active  *Impl // the tier calls use
)

// Register makes m the implementation of its tier. It is called from the
// init functions of package generic and package kernels.
func Register(m *Impl) {
	if m.Tier == isa.Generic {
		generic = m
	}
	tiers[m.Tier] = m
}

// Lookup returns the implementation of the named tier, or nil if this
// build has none. It does not check that this CPU can run it: see
// isa.ISA.Supported.
func Lookup(tier string) *Impl { return tiers[tier] }

// Activate makes m the implementation calls use. Package dispatch calls it
// once, at init, with the tier it chose.
func Activate(m *Impl) { active = m }

// Active returns the implementation calls use.
func Active() *Impl { return active }

// Do validates one byte-level call and runs it.
func (m *Impl) Do(op shape.Op, dst, src []byte, elemSize int, p shape.Params) error {
	g, err := shape.Validate(op, p, elemSize, len(dst), len(src), shape.Overlap(dst, src))
	if err != nil {
		return err
	}
	m.Exec(&g, dst, src)
	return nil
}

// Exec runs a call that shape.Validate accepted on bytes, choosing the
// kernels by element width.
func (m *Impl) Exec(g *shape.Geometry, dst, src []byte) { m.byWidth(g, dst, src, nil) }

// byWidth runs the call with the kernels of its element width, or, with r
// set, describes into r how it would.
func (m *Impl) byWidth(g *shape.Geometry, dst, src []byte, r *Route) {
	fb, n := generic, g.Len()*g.Elem
	if m.Gather != nil && n > 0 && n < streamMin() && workers(g.Workers, n, n) == 1 && m.Gather(*g, dst, src, r) {
		return
	}
	switch es := g.Elem; {
	case es == 1:
		execute(m.W1, fb.W1, g, 1, dst, src, n, r)
	case !aligned(dst, src, es):
		execute(fb.Units, fb.Units, g, es, dst, src, n, r)
	case es == 2:
		execute(m.W2, fb.W2, g, 1, cast[uint16](dst), cast[uint16](src), n, r)
	case es == 4:
		execute(m.W4, fb.W4, g, 1, cast[uint32](dst), cast[uint32](src), n, r)
	case es == 8:
		execute(m.W8, fb.W8, g, 1, cast[uint64](dst), cast[uint64](src), n, r)
	case es == 16:
		execute(m.W16, fb.W16, g, 1, cast[[2]uint64](dst), cast[[2]uint64](src), n, r)
	default:
		execute(fb.Units, fb.Units, g, es, dst, src, n, r)
	}
}

// Execute runs a validated call on typed slices, whose lengths count
// elements, with kernels k alone: package generic's path for any T.
func Execute[T any](k Kernels[T], g *shape.Geometry, dst, src []T) {
	execute(k, k, g, 1, dst, src, g.Len()*int(unsafe.Sizeof(*new(T))), nil)
}

// unalignedOK lists the targets whose loads and stores of any width work at
// any address; elsewhere misaligned byte slices take the unit-wise kernels.
const unalignedOK = runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" ||
	runtime.GOARCH == "386" || runtime.GOARCH == "ppc64le" || runtime.GOARCH == "ppc64" ||
	runtime.GOARCH == "s390x"

func aligned(dst, src []byte, es int) bool {
	if unalignedOK {
		return true
	}
	mask := uintptr(min(es, 8) - 1)
	return (uintptr(unsafe.Pointer(unsafe.SliceData(dst)))|uintptr(unsafe.Pointer(unsafe.SliceData(src))))&mask == 0
}

// Bytes views a slice of pointer-free elements as its bytes: the typed
// entry points hand the kernels bytes, and Word slices go back to bytes
// where the kernels count in them. cast is its inverse.
func Bytes[T any](s []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(*new(T)))
}

// cast views b as elements of type U; len(b) is a multiple of U's size.
func cast[U any](b []byte) []U {
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b))/unsafe.Sizeof(*new(U)))
}

// Automatic parallelism. A shuffle inside the caches is limited by cache
// bandwidth that sibling cores may share, so extra goroutines only pay once
// the tensors spill to memory. BenchmarkWorkers (bench/) on a 2-vCPU Zen 5
// VM: up to 8 MiB a second goroutine made calls up to 2.3x slower, at 16 MiB
// it broke even, at 64 MiB it was 1.1-1.7x faster. Callers who know their
// machine has many cores with private caches can set Params.Workers.
//
// An explicit Workers is a bound, not a count: no call uses more goroutines
// than GOMAXPROCS, which could not run at once, or than one per
// minWorkerBytes, the work that outweighs starting and joining a goroutine
// (1 to 3 µs; 256 KiB take about 8 µs at in-cache copy speed).
const (
	parallelMin    = 16 << 20 // bytes per tensor below which one goroutine works alone
	bytesPerWorker = 8 << 20
)

var minWorkerBytes = 256 << 10

// streamMin is the tensor size from which kernels write around the caches:
// an output this large would not be in cache for its next reader anyway,
// and non-temporal stores save reading each line before writing it. The
// CPU is asked on the first call rather than at start-up: its CPUID leaves
// took 8.5 µs on a Zen 1 VM, where each traps to the hypervisor.
var streamMin = func() int { return streamFrom(isa.LastLevelCache()) }

// streamFrom is streamMin for a last-level cache of llc bytes (0: unknown):
// a quarter of it, so that both tensors of a call fit in half the cache,
// kept between 1 MiB, where Go's memmove starts streaming, and 8 MiB.
// BenchmarkStreaming (write-only DepthToSpace of 4-byte elements) with
// ordinary stores against streaming ones: on a Zen 1 EPYC (8 MiB L3
// per core complex) 1.0x at 2 MiB, 0.45x from 4 MiB, as soon as source
// and destination fill the L3; on a Zen 5 VM (32 MiB) 0.67x at 2 MiB and
// 0.6x at 16 MiB. Streaming from below a few MiB would win that loop
// but evict an output its next reader would find in cache, so the cap
// keeps larger caches at 8 MiB.
func streamFrom(llc int) int {
	if llc == 0 {
		return 8 << 20
	}
	return min(max(llc/4, 1<<20), 8<<20)
}

// workers is how many goroutines a call of the given size uses; each gets
// at least one group.
func workers(requested, bytes, groups int) int {
	n := requested
	if n == 0 {
		if bytes < parallelMin {
			return 1
		}
		n = bytes / bytesPerWorker
	}
	if n <= 1 { // before runtime.GOMAXPROCS, which takes a lock (15 ns here, on every call of a small tensor)
		return 1
	}
	return max(1, min(n, runtime.GOMAXPROCS(0), bytes/minWorkerBytes, groups))
}

// execute runs a validated call on dst and src, whose lengths count units,
// with kernels k and, where k has none, fallback; bytes is the size of each
// tensor in memory, for the worker count and streaming. With r set it only
// describes the call into r.
func execute[T any](k, fallback Kernels[T], g *shape.Geometry, unit int, dst, src []T, bytes int, r *Route) {
	if g.Len() == 0 {
		return
	}
	space, depth := dst, src
	if g.Op == shape.SpaceToDepth {
		space, depth = src, dst
	}
	p := newPlan(g, unit)
	p.args.Streaming = bytes >= streamMin()
	total := p.total()
	n := workers(g.Workers, bytes, total)
	switch {
	case r != nil:
		describe(r, k, fallback, g.Op, &p, total, n)
	case n > 1:
		parallel(k, fallback, g.Op, p, space, depth, total, n)
	default:
		run(k, fallback, g.Op, &p, space, depth, 0, total)
	}
}

// parallel splits the groups into n nearly equal ranges, one per goroutine.
// It takes the plan by value so that the single-goroutine path in execute
// keeps its plan on the stack.
func parallel[T any](k, fallback Kernels[T], op shape.Op, p plan, space, depth []T, total, n int) {
	var wg sync.WaitGroup
	bound := func(i int) int { return i*(total/n) + min(i, total%n) }
	for i := 1; i < n; i++ {
		wg.Go(func() { run(k, fallback, op, &p, space, depth, bound(i), bound(i+1)) })
	}
	run(k, fallback, op, &p, space, depth, 0, bound(1))
	wg.Wait()
}
