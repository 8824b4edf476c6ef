package engine

import (
	"fmt"
	"unsafe"
)

// A Call is one checked call of a kernel, or of a pure-Go loop, with its
// slices as Spans: it runs on the space and depth tensors of any call of
// its prepared call's sizes. The kernels trust their arguments, so a
// tier's planner checks a call's reach against its spans when it builds
// it (internal/simd), and Span.In holds every run to those spans.
type Call interface {
	Run(space, depth []byte)
	// Kernel names the kernel or loop, as Describe reports it.
	Kernel() string
}

// Aligned runs Then where the address of A in the tensors of a call has
// no bit of Mask set, else Else: a kernel that needs aligned memory, such
// as a streaming kernel's stores, and its twin that does not. Describe
// names Then, taking Go's large allocations to be aligned.
type Aligned struct {
	A          Span
	Mask       uintptr
	Then, Else Call
}

func (c *Aligned) Run(space, depth []byte) {
	if uintptr(unsafe.Pointer(c.A.Ptr(space, depth)))&c.Mask == 0 {
		c.Then.Run(space, depth)
		return
	}
	c.Else.Run(space, depth)
}

func (c *Aligned) Kernel() string { return c.Then.Kernel() }

// A Prepared call is a validated call planned into data: the kernel calls
// that move it, in order, which Run makes on any tensors of its sizes. It
// is immutable, so any number of goroutines may run it at once.
type Prepared struct {
	key     key // in the cache
	toDepth bool
	bytes   int // of each tensor
	want    Want
	calls   []Call
	// pieces are the indexes in calls where the parts a goroutine may
	// take start, each about minWorkerBytes of work, for a call that may
	// use several goroutines; nil for one that runs on the caller's.
	pieces []int
	// whole, where not nil, moves the call in one pass, faster than its
	// pieces, when a run finds it has one goroutine.
	whole     []Call
	wholePlan fmt.Stringer
	tier      string
	plan      fmt.Stringer // what Describe says of the plan
}

// NewPrepared is a prepared call planned outside the engine, of a general
// transpose (internal/transpose): calls that take dst as their space
// tensor and src as their depth one, each bytes long; pieces as in
// Prepared, which the goroutines want grants share, and whole, if not
// nil, the same work uncut for a run on one goroutine; plan says what
// Describe reports.
func NewPrepared(bytes int, want Want, calls []Call, pieces []int, whole []Call, tier string, plan fmt.Stringer) *Prepared {
	return &Prepared{bytes: bytes, want: want, calls: calls, pieces: pieces,
		whole: whole, wholePlan: plan, tier: tier, plan: plan}
}

// Bytes is the size of each tensor of the call.
func (c *Prepared) Bytes() int { return c.bytes }

// Run makes the call on dst and src, which the caller has checked: each
// c.Bytes() long, not overlapping.
func (c *Prepared) Run(dst, src []byte) {
	space, depth := sides(c.toDepth, dst, src)
	calls := c.calls
	if c.pieces != nil {
		if n := c.want.Workers(c.bytes, len(c.pieces)); n > 1 {
			c.parallel(space, depth, n)
			return
		}
		if c.whole != nil {
			calls = c.whole
		}
	}
	for _, k := range calls {
		k.Run(space, depth)
	}
}

// parallel runs the pieces on the caller's goroutine and n-1 helpers, or
// on the caller's alone where no crew is idle.
func (c *Prepared) parallel(space, depth []byte, n int) {
	w := takeCrew()
	if w == nil {
		for i := range c.pieces {
			c.piece(i, space, depth)
		}
		return
	}
	w.call, w.space, w.depth = c, space, depth
	w.share(len(c.pieces), n)
}

// piece runs piece i of the pieces.
func (c *Prepared) piece(i int, space, depth []byte) {
	end := len(c.calls)
	if i+1 < len(c.pieces) {
		end = c.pieces[i+1]
	}
	for _, k := range c.calls[c.pieces[i]:end] {
		k.Run(space, depth)
	}
}

// Describe tells how the call runs.
func (c *Prepared) Describe() Route {
	r := Route{Tier: c.tier, Plan: c.plan.String(), Workers: 1, Kernel: "nothing to move"}
	calls := c.calls
	if c.pieces != nil {
		r.Workers = c.want.Workers(c.bytes, len(c.pieces))
		if r.Workers == 1 && c.whole != nil {
			calls, r.Plan = c.whole, c.wholePlan.String()
		}
	}
	if len(calls) > 0 {
		r.Kernel = calls[0].Kernel()
	}
	return r
}

// PieceKernels names the kernel of each piece's first call, in order; none
// where the call is not cut.
func (c *Prepared) PieceKernels() []string {
	var out []string
	for i, at := range c.pieces {
		if i+1 < len(c.pieces) && c.pieces[i+1] == at {
			out = append(out, "")
			continue
		}
		out = append(out, c.calls[at].Kernel())
	}
	return out
}

// Route is how a tier serves one call: the plan it splits into, the
// goroutines that run it, and the kernel (or pure-Go loop) of its first
// kernel call.
type Route struct {
	Tier    string
	Plan    string // the plan's kind and counts
	Workers int    // goroutines
	Kernel  string
}

// String reads like "avx2: interleave, 832 groups of 2 rows of 13 pixels of
// 2×1 4-byte elements in 1 kernel call; 1 goroutine; zip2x4AVX2".
func (r Route) String() string {
	return fmt.Sprintf("%s: %s; %s; %s", r.Tier, r.Plan, count(r.Workers, "goroutine"), r.Kernel)
}

// count is "1 thing" or "n things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// Text is a fixed description of a plan, as Describe reports it.
type Text string

func (t Text) String() string { return string(t) }

// sides returns a call's space and depth tensors.
func sides[T any](toDepth bool, dst, src []T) (space, depth []T) {
	if toDepth {
		return src, dst
	}
	return dst, src
}

// Calls are several calls made in order as one: the kernel calls that
// together move one row call.
type Calls []Call

func (cs Calls) Run(space, depth []byte) {
	for _, c := range cs {
		c.Run(space, depth)
	}
}

func (cs Calls) Kernel() string { return cs[0].Kernel() }
