// Package engine runs validated calls. It splits a call into calls of row
// kernels (a plan: engine.Kind says what the rows look like), spreads them
// over goroutines, and hands each to the kernels of a tier, falling back to
// the generic tier's where a tier has none for it.
//
// Tiers register their kernels here at init (Register): internal/loops
// the pure-Go kernels, package kernels those of each ISA this build has.
// Package dispatch chooses among them; the tests and benchmarks of the
// module run each tier by its name (Lookup).
package engine

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/memo"
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

	// Short, if not nil, returns a function that runs a whole call in one
	// pass over the output where its rows are too short for row kernels,
	// or nil; with r set it also describes the call into r. It takes calls
	// of one goroutine without streaming stores, on tensors in cache, and
	// hands its kernel call to a Binder where it is given one. It takes g
	// by value: through a func value a pointer would escape.
	Short func(g shape.Geometry, r *Route) func(dst, src []byte, b *Binder)

	calls  memo.Cache[callKey, *prepared] // every call prepared
	recent memo.Recent[prepared]          // the last of calls used in each slot
}

var (
	tiers   = map[string]*Impl{}
	generic *Impl // every tier's fallback
	active  *Impl // the tier calls use
)

// Register makes m the implementation of its tier. It is called from the
// init functions of internal/loops and package kernels.
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
	return m.Call(op, p, elemSize, 1, dst, src)
}

// Call validates a call on the bytes of dst and src and runs it; unit is
// the size of what the caller's lengths count (1 for bytes, elemSize for
// typed slices), so that errors speak the caller's units. A call of
// parameters that m ran lately skips the validation of its parameters and
// its planning: it checks the lengths and the overlap, and runs the plan
// it prepared then.
func (m *Impl) Call(op shape.Op, p shape.Params, elemSize, unit int, dst, src []byte) error {
	h := hash(op, &p, elemSize)
	c := m.lookup(h, op, &p, elemSize)
	if c == nil || len(dst) != c.bytes || len(src) != c.bytes || shape.Overlap(dst, src) {
		g, err := shape.Validate(op, p, elemSize/unit, len(dst)/unit, len(src)/unit, shape.Overlap(dst, src))
		if err != nil {
			return err
		}
		g.Elem = elemSize
		c = m.prepare(&g, nil)
		c.key = callKey{op, p, elemSize}
		c.first(dst, src) // before the caches publish c: it sets c.bound
		m.calls.Put(c.key, c)
		m.recent.Put(h, c)
		return nil
	}
	c.run(dst, src)
	return nil
}

// lookup returns the call prepared for op, p and elem, whose hash is h, or
// nil. It takes the key's parts rather than a callKey: a key built and
// copied on every call cost 12 ns of a 57 ns call on a Zen 4, its copies
// reading 16 bytes at a time what 8-byte stores had just written, which
// the store buffer cannot forward.
func (m *Impl) lookup(h uint64, op shape.Op, p *shape.Params, elem int) *prepared {
	if c := m.recent.Get(h); c != nil && c.key.op == op && c.key.elem == elem && c.key.p == *p {
		return c
	}
	c, _ := m.calls.Lookup(callKey{op, *p, elem})
	if c != nil {
		m.recent.Put(h, c)
	}
	return c
}

// callKey is what a prepared call depends on.
type callKey struct {
	op   shape.Op
	p    shape.Params
	elem int
}

// hash mixes the fields that tell calls apart, cheaply: it only spreads
// keys over memo.Recent's slots. The products are independent, so that
// they overlap in the CPU.
func hash(op shape.Op, p *shape.Params, elem int) uint64 {
	h := uint64(p.N)*0x9e3779b97f4a7c15 + uint64(p.C)*0xc2b2ae3d27d4eb4f + uint64(p.H)*0x165667b19e3779f9 +
		uint64(p.W)*0xd6e8feb86659fd93 + uint64(p.BlockSize)*0xff51afd7ed558ccd + uint64(elem)*0xc4ceb9fe1a85ec53 +
		uint64(p.Workers)*0x94d049bb133111eb + uint64(op)<<2 + uint64(p.Order)<<1 + uint64(p.Layout)
	return h ^ h>>32 ^ h>>47
}

// A prepared call runs a validated call on any slices of its length: as
// the tier's one-pass short run where it has one and the call suits it
// (short), else with row kernels (rows). Where its first run made one
// kernel call, of a kernel that binds, later runs that suit it repeat
// that call, bound (bound). Whether a run suits the short path and the
// bound call (one goroutine, no streaming), and whether rows stream, is
// decided on each run, as GOMAXPROCS and the seams may move the limits.
type prepared struct {
	key     callKey
	bytes   int // of each tensor
	workers int // Params.Workers
	short   func(dst, src []byte, b *Binder)
	rows    func(dst, src []byte)
	bind    func(dst, src []byte) func(dst, src []byte) // rows, binding (see rowPlan.bind)
	bound   func(dst, src []byte)
}

func (c *prepared) run(dst, src []byte) {
	if c.inCache() {
		switch {
		case c.bound != nil:
			c.bound(dst, src)
			return
		case c.short != nil:
			c.short(dst, src, nil)
			return
		}
	}
	c.rows(dst, src)
}

// first runs the call for the first time, binding it where it can.
func (c *prepared) first(dst, src []byte) {
	if c.inCache() {
		switch {
		case c.short != nil:
			b := newBinder(c.key.op, dst, src)
			c.short(dst, src, b)
			c.bound = b.bound(c.key.op)
			return
		case c.bind != nil:
			c.bound = c.bind(dst, src)
			return
		}
	}
	c.rows(dst, src)
}

// inCache reports whether the call runs on one goroutine without
// streaming stores now, as the short path and bound calls require.
func (c *prepared) inCache() bool {
	return c.bytes < streamMin() && workers(c.workers, c.bytes, c.bytes) == 1
}

// prepare plans a call that shape.Validate accepted on bytes, choosing the
// kernels by element width; with r set it also describes into r how the
// call runs.
func (m *Impl) prepare(g *shape.Geometry, r *Route) *prepared {
	n := g.Len() * g.Elem
	c := &prepared{bytes: n, workers: g.Workers, rows: func(dst, src []byte) {}}
	if n == 0 {
		return c
	}
	if m.Short != nil && n < maxStreamMin {
		c.short = m.Short(*g, r)
		if c.short != nil && r != nil && c.inCache() {
			return c
		}
	}
	var rp rowPlan
	fb := generic
	switch es := g.Elem; {
	case es == 1:
		rp = rows(m.W1, fb.W1, g, 1, n, r)
	case es == 2:
		rp = words(m.W2, fb.W2, g, n, r)
	case es == 4:
		rp = words(m.W4, fb.W4, g, n, r)
	case es == 8:
		rp = words(m.W8, fb.W8, g, n, r)
	case es == 16:
		rp = words(m.W16, fb.W16, g, n, r)
	default:
		rp = rows(fb.Units, fb.Units, g, es, n, r)
	}
	c.rows, c.bind = rp.run, rp.bind
	return c
}

// A rowPlan runs a call with row kernels: run on any call, bind (nil
// where calls cannot be bound) on one goroutine without streaming stores,
// returning the call bound, or nil if it is not one kernel call of a tier
// that binds.
type rowPlan struct {
	run  func(dst, src []byte)
	bind func(dst, src []byte) func(dst, src []byte)
}

// words is rows for the element widths with kernels of their own, whose
// slices go to the generic tier's unit-wise kernels where the target
// cannot load them at their address; there, as alignment is decided per
// call, calls are not bound.
func words[T Word](k, fallback Kernels[T], g *shape.Geometry, bytes int, r *Route) rowPlan {
	typed := rows(k, fallback, g, 1, bytes, r)
	if unalignedOK {
		return typed
	}
	es := g.Elem
	units := rows(generic.Units, generic.Units, g, es, bytes, nil)
	return rowPlan{run: func(dst, src []byte) {
		if !aligned(dst, src, es) {
			units.run(dst, src)
			return
		}
		typed.run(dst, src)
	}}
}

// rows plans a call for row kernels k, and fallback where k has none, on
// slices of T (units of unit elements each); with r set it also describes
// the call into r.
func rows[T any](k, fallback Kernels[T], g *shape.Geometry, unit, bytes int, r *Route) rowPlan {
	p, op, requested := newPlan(g, unit), g.Op, g.Workers
	if r != nil {
		total := p.total()
		describe(r, k, fallback, op, &p, bytes >= streamMin(), total, workers(requested, bytes, total))
	}
	rp := rowPlan{run: func(dst, src []byte) { execute(k, fallback, op, &p, requested, bytes, cast[T](dst), cast[T](src)) }}
	if p.total() == p.args.Groups { // one kernel call
		rp.bind = func(dst, src []byte) func(dst, src []byte) { return bind(k, fallback, op, &p, dst, src) }
	}
	return rp
}

// bind runs plan p, one kernel call, on one goroutine without streaming
// stores, and returns the call bound, or nil if its kernel did not bind
// it (the generic tier's do not).
func bind[T any](k, fallback Kernels[T], op shape.Op, p *plan, dst, src []byte) func(dst, src []byte) {
	b := newBinder(op, dst, src)
	q := *p
	q.args.Bind = b
	run(k, fallback, op, &q, false, cast[T](b.space), cast[T](b.depth), 0, q.total())
	return b.bound(op)
}

// sides returns a call's space and depth tensors.
func sides[T any](op shape.Op, dst, src []T) (space, depth []T) {
	if op == shape.SpaceToDepth {
		return src, dst
	}
	return dst, src
}

// Execute runs a validated call on typed slices, whose lengths count
// elements, with kernels k alone: package generic's path for any T.
func Execute[T any](k Kernels[T], g *shape.Geometry, dst, src []T) {
	if g.Len() == 0 {
		return
	}
	p := newPlan(g, 1)
	execute(k, k, g.Op, &p, g.Workers, g.Len()*int(unsafe.Sizeof(*new(T))), dst, src)
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
		return maxStreamMin
	}
	return min(max(llc/4, 1<<20), maxStreamMin)
}

// maxStreamMin is the largest streamMin the CPU can give: calls of tensors
// this large never take a tier's short path, so none is prepared for them.
const maxStreamMin = 8 << 20

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

// execute runs plan p of a call on dst and src, whose lengths count
// units, with kernels k and, where k has none, fallback; bytes is the size
// of each tensor in memory, for the worker count and streaming.
func execute[T any](k, fallback Kernels[T], op shape.Op, p *plan, requested, bytes int, dst, src []T) {
	space, depth := sides(op, dst, src)
	stream, total := bytes >= streamMin(), p.total()
	if n := workers(requested, bytes, total); n > 1 {
		parallel(k, fallback, op, *p, stream, space, depth, total, n)
		return
	}
	run(k, fallback, op, p, stream, space, depth, 0, total)
}

// parallel splits the groups into n nearly equal ranges, one per goroutine.
// It takes the plan by value so that the single-goroutine path in execute
// keeps its plan where it is.
func parallel[T any](k, fallback Kernels[T], op shape.Op, p plan, stream bool, space, depth []T, total, n int) {
	var wg sync.WaitGroup
	bound := func(i int) int { return i*(total/n) + min(i, total%n) }
	for i := 1; i < n; i++ {
		wg.Go(func() { run(k, fallback, op, &p, stream, space, depth, bound(i), bound(i+1)) })
	}
	run(k, fallback, op, &p, stream, space, depth, 0, bound(1))
	wg.Wait()
}
