package generic

import (
	"runtime"
	"sync"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// A plan is the outer loop nest of one call: up to three outer loops, each
// moving both the space and the depth offset, around kernel calls that each
// walk groups of args.Rows rows. The groups of all outer iterations, taken in
// order, number total(); any range of them can be run on its own, which is
// how calls are split across goroutines.
type plan struct {
	kind  Kind
	args  Args // Groups is the number of groups per outer iteration
	outer [3]loop
}

type loop struct{ n, space, depth int }

// groupedBlocks is the largest block size whose NCHW kernels take all b
// block rows of a group in one call. BenchmarkShuffle: with b = 2 this
// writes large outputs 1.2-1.4x faster than one block row per pass; with
// b = 4 and 8 reading b*b planes at once was up to 7x slower.
const groupedBlocks = 3

// newPlan builds the loop nest of a validated, non-empty call. Strides are
// counted in units; every element is unit units long.
func newPlan(g *shape.Geometry, unit int) plan {
	b, d, cp := g.B, g.Depth, g.Space.C
	p := plan{outer: [3]loop{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}}}
	a := &p.args
	a.B, a.W, a.Cp, a.Unit = b, d.W, 1, 1
	switch {
	case g.Layout == shape.NCHW && b == 1: // a copy, as contiguous runs
		p.kind = Runs
		a.Rows, a.SpaceStride, a.DepthStride = 1, d.W, d.W
		a.Groups, a.GroupSpace, a.GroupDepth = d.N*d.C*d.H, d.W, d.W
		a.XS, a.JS, a.CS = 1, 1, 1
	case g.Layout == shape.NCHW:
		// Space row h*b+i of output plane c zips row h of the b depth
		// planes holding (c, i, j) for j < b.
		plane, wb := d.H*d.W, d.W*b
		lane, istep, cstep := cp*plane, b*cp*plane, plane // DCR: channel (i*b+j)*C' + c
		if g.Order == shape.CRD {
			lane, istep, cstep = plane, b*plane, b*b*plane // CRD: channel c*b*b + i*b + j
		}
		p.kind = Zip
		a.XS, a.JS, a.CS = 1, lane, 1
		a.Groups, a.GroupSpace, a.GroupDepth = d.H, b*wb, d.W
		a.Rows, a.SpaceStride, a.DepthStride = 1, wb, istep
		p.outer[0] = loop{d.N, d.C * plane, d.C * plane}
		if b <= groupedBlocks {
			// Rows i < b of a group are consecutive space rows, so
			// space is written in order while b*b planes are read.
			a.Rows = b
			p.outer[1] = loop{cp, b * b * plane, cstep}
		} else {
			// One i per pass: b planes read at once, not b*b, which
			// for b = 8 and small planes would all fight over the
			// same L1 sets.
			p.outer[1] = loop{b, wb, istep}
			p.outer[2] = loop{cp, b * b * plane, cstep}
		}
	default: // NHWC
		// Space rows (n, h*b+i), i < b, form a group; row i takes, from
		// every pixel of depth row (n, h), the b*C' channels of block row i.
		rowLen := d.W * b * cp
		p.kind, a.Cp, a.XS = Runs, cp, d.C
		a.JS, a.CS = cp, 1 // DCR: channel (i*b + j)*C' + c, contiguous in (j, c)
		istep := b * cp
		if g.Order == shape.CRD && cp > 1 {
			p.kind = Transpose // CRD: channel c*b*b + i*b + j
			a.JS, a.CS = 1, b*b
			istep = b
		}
		a.Rows, a.SpaceStride, a.DepthStride = b, rowLen, istep
		a.Groups, a.GroupSpace, a.GroupDepth = d.N*d.H, b*rowLen, d.W*d.C
	}
	a.XS, a.JS, a.CS = a.XS*unit, a.JS*unit, a.CS*unit
	a.SpaceStride, a.DepthStride, a.Unit = a.SpaceStride*unit, a.DepthStride*unit, unit
	a.GroupSpace, a.GroupDepth = a.GroupSpace*unit, a.GroupDepth*unit
	for i := range p.outer {
		p.outer[i].space *= unit
		p.outer[i].depth *= unit
	}
	p.coalesce()
	return p
}

// coalesce folds inner outer loops into the groups when they continue the
// groups' strides on both sides, so that kernels get fewer, longer calls.
func (p *plan) coalesce() {
	a := &p.args
	for i := len(p.outer) - 1; i >= 0; i-- {
		l := &p.outer[i]
		if l.n == 1 {
			continue
		}
		if l.space != a.Groups*a.GroupSpace || l.depth != a.Groups*a.GroupDepth {
			return
		}
		a.Groups *= l.n
		*l = loop{1, 0, 0}
	}
}

func (p *plan) total() int {
	return p.outer[0].n * p.outer[1].n * p.outer[2].n * p.args.Groups
}

// run performs groups [lo, hi) of the plan.
func run[T any](k Kernels[T], op shape.Op, p *plan, space, depth []T, lo, hi int) {
	a, groups := p.args, p.args.Groups
	for lo < hi {
		o, r := lo/groups, lo%groups
		a.Groups = min(groups-r, hi-lo)
		so, do := r*a.GroupSpace, r*a.GroupDepth
		for i := len(p.outer) - 1; i >= 0; i-- {
			l := &p.outer[i]
			q := o % l.n
			o /= l.n
			so += q * l.space
			do += q * l.depth
		}
		sn, dn := a.spans()
		k.Run(op, p.kind, space[so:so+sn], depth[do:do+dn], a)
		lo += a.Groups
	}
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
	minWorkerBytes = 256 << 10
)

// streamMin is the tensor size from which kernels write around the caches:
// an output this large would not be in cache for its next reader anyway,
// and non-temporal stores save reading each line before writing it.
// BenchmarkStreaming (generic/) on a Zen 5 VM, write-only loop: streaming
// is 1.4x faster at 2 MiB and 1.7x at 64 MiB, but below a few MiB the
// output's next reader would rather find it in cache, so streaming starts
// where tensors stop fitting in a core's share of the cache.
var streamMin = 8 << 20

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
	return max(1, min(n, runtime.GOMAXPROCS(0), bytes/minWorkerBytes, groups))
}

// execute runs a validated call on dst and src, whose lengths count units.
// bytes is the size of each tensor in memory, for the worker count.
func execute[T any](k Kernels[T], g *shape.Geometry, unit int, dst, src []T, bytes int) {
	if g.Len() == 0 {
		return
	}
	space, depth := dst, src
	if g.Op == shape.SpaceToDepth {
		space, depth = src, dst
	}
	p := newPlan(g, unit)
	p.args.Streaming = bytes >= streamMin
	total := p.total()
	if n := workers(g.Workers, bytes, total); n > 1 {
		parallel(k, g.Op, p, space, depth, total, n)
		return
	}
	run(k, g.Op, &p, space, depth, 0, total)
}

// parallel splits the groups into n nearly equal ranges, one per goroutine.
// It takes the plan by value so that the single-goroutine path in execute
// keeps its plan on the stack.
func parallel[T any](k Kernels[T], op shape.Op, p plan, space, depth []T, total, n int) {
	var wg sync.WaitGroup
	bound := func(i int) int { return i*(total/n) + min(i, total%n) }
	for i := 1; i < n; i++ {
		wg.Go(func() { run(k, op, &p, space, depth, bound(i), bound(i+1)) })
	}
	run(k, op, &p, space, depth, 0, bound(1))
	wg.Wait()
}
