package engine

// A plan's outer loops stay loops in its prepared call: a loop of many
// iterations becomes one Repeat of the calls of one iteration, not that
// many calls, so that a prepared call's size and the time to plan it are
// bounded by the plan's depth and its pieces, whatever N, H or W. (Calls
// listed one per iteration made NCHW with H = W = 1 and N = 2^20 allocate
// 308 MiB and take 1.1 s to plan.)

// Repeat makes its Call N times, the i-th time on the space and depth
// tensors from byte Space + i*SpaceStep and Depth + i*DepthStep on. The
// call was checked against spans of those shifted tensors, and slicing
// them checks every iteration's start.
type Repeat struct {
	N                    int
	Space, Depth         int
	SpaceStep, DepthStep int
	Call                 Call
}

func (r *Repeat) Run(space, depth []byte) {
	s, d := r.Space, r.Depth
	for range r.N {
		r.Call.Run(space[s:], depth[d:])
		s, d = s+r.SpaceStep, d+r.DepthStep
	}
}

func (r *Repeat) Kernel() string { return r.Call.Kernel() }

// emitter writes the calls of ranges of a plan's groups, as few as the
// loops allow: the groups of one iteration of outer loop k number
// block[k], and the calls of one whole iteration (whole[k]) and the
// kernel calls of each number of groups (kernels), all from the tensors'
// start, serve every Repeat of them.
type emitter struct {
	p       *plan
	w       int // bytes a word: the plan's offsets count words, a Repeat's bytes
	row     func(a *Args, so, do int) Call
	block   [len(plan{}.outer) + 1]int
	whole   [len(plan{}.outer)]Call
	kernels map[int]Call
}

func newEmitter(p *plan, w int, row func(a *Args, so, do int) Call) *emitter {
	e := &emitter{p: p, w: w, row: row}
	levels := len(p.outer)
	e.block[levels] = 1
	for k := levels - 1; k >= 0; k-- {
		e.block[k] = e.block[k+1] * e.count(k+1)
	}
	return e
}

// count is the iterations of level k: an outer loop's, or the groups of
// one kernel call for the innermost level.
func (e *emitter) count(k int) int {
	if k == len(e.p.outer) {
		return e.p.args.Groups
	}
	return e.p.outer[k].n
}

// calls returns the calls that move groups [lo, hi) of the plan.
func (e *emitter) calls(lo, hi int) []Call { return e.level(0, lo, hi, 0, 0) }

// level returns the calls that move groups [lo, hi) of one iteration of
// the loops outside level k, which starts so and do words into space
// and depth.
func (e *emitter) level(k, lo, hi, so, do int) []Call {
	if k == len(e.p.outer) { // one kernel call of hi-lo groups
		a := &e.p.args
		return e.shift(e.kernel(hi-lo), so+lo*a.GroupSpace, do+lo*a.GroupDepth)
	}
	l, size := e.p.outer[k], e.block[k]
	if l.n == 1 {
		return e.level(k+1, lo, hi, so, do)
	}
	i0, r0, i1, r1 := lo/size, lo%size, hi/size, hi%size
	at := func(i int) (int, int) { return so + i*l.space, do + i*l.depth }
	if i0 == i1 {
		s, d := at(i0)
		return e.level(k+1, r0, r1, s, d)
	}
	var out []Call
	if r0 > 0 { // the end of a partial iteration
		s, d := at(i0)
		out = append(out, e.level(k+1, r0, size, s, d)...)
		i0++
	}
	if i1 > i0 { // whole iterations
		if e.whole[k] == nil {
			e.whole[k] = one(e.level(k+1, 0, size, 0, 0))
		}
		s, d := at(i0)
		out = append(out, &Repeat{N: i1 - i0, Space: s * e.w, Depth: d * e.w,
			SpaceStep: l.space * e.w, DepthStep: l.depth * e.w, Call: e.whole[k]})
	}
	if r1 > 0 { // the start of a partial iteration
		s, d := at(i1)
		out = append(out, e.level(k+1, 0, r1, s, d)...)
	}
	return out
}

// kernel returns the kernel call of the given number of groups from the
// tensors' start, made once: the pieces of a large call, shifted, share
// it.
func (e *emitter) kernel(groups int) Call {
	if c, ok := e.kernels[groups]; ok {
		return c
	}
	a := e.p.args
	a.Groups = groups
	c := e.row(&a, 0, 0)
	if e.kernels == nil {
		e.kernels = map[int]Call{}
	}
	e.kernels[groups] = c
	return c
}

// shift returns call made so and do words into space and depth.
func (e *emitter) shift(call Call, so, do int) []Call {
	if so == 0 && do == 0 {
		return []Call{call}
	}
	return []Call{&Repeat{N: 1, Space: so * e.w, Depth: do * e.w, Call: call}}
}

// one is calls as one call.
func one(calls []Call) Call {
	if len(calls) == 1 {
		return calls[0]
	}
	return Calls(calls)
}

// kernelCalls is how many kernel calls move groups [lo, hi) of a plan
// whose kernel calls take groups groups each, as Describe counts them.
func kernelCalls(lo, hi, groups int) int {
	if lo >= hi {
		return 0
	}
	return (hi-1)/groups - lo/groups + 1
}
