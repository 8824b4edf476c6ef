package engine

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// A crew runs the pieces of one call on the caller's goroutine and on
// helpers it starts: each takes the next piece not yet taken until none is
// left, and the call returns when every piece taken has been moved. A
// helper that starts late finds fewer pieces or none, and the caller never
// waits for one that took none: on a 2-vCPU Zen 4 VM a helper started
// 10 to 200 µs after its go statement (the Go scheduler lets another P
// steal the newest goroutine only after a 3 µs sleep that the host's
// timer slack makes 50 µs), so equal shares fixed in advance made a call
// of 1 to 8 MiB wait for its slowest goroutine, and lose to one.
type crew struct {
	next, done atomic.Int64 // pieces taken, and moved
	refs       atomic.Int32 // the caller and the helpers still holding the crew
	total      int64
	helpers    int // goroutines, the caller's included
	// finished takes the one signal of the helper that moves the last
	// piece; the caller receives it unless it moved that piece itself.
	finished chan struct{}
	// What the pieces move: pieces of a prepared call on its tensors, or
	// ranges of some other work.
	call         *Prepared
	space, depth []byte
	work         func(piece int)
	// helper is help as a func value made once: a go statement of a
	// method or of a call with arguments allocates a closure each time.
	helper func()
}

// crews are idle crews, kept so that a parallel call allocates nothing;
// none is ever freed (a sync.Pool is emptied by every GC). A crew is idle
// once its last helper has left, which a helper that has not started yet
// delays: where calls follow each other faster than helpers start, at
// most maxCrews are made, and a call that finds none idle runs on its
// caller's goroutine alone, as it would have in effect.
var crews struct {
	sync.Mutex
	free []*crew
	made int
}

const maxCrews = 64

// takeCrew returns an idle crew, or nil.
func takeCrew() *crew {
	crews.Lock()
	defer crews.Unlock()
	if n := len(crews.free); n > 0 {
		c := crews.free[n-1]
		crews.free = crews.free[:n-1]
		return c
	}
	if crews.made == maxCrews {
		return nil
	}
	crews.made++
	c := &crew{finished: make(chan struct{}, 1)}
	c.helper = c.help
	return c
}

// leave drops one hold on c; the last to leave puts it back, its tensors
// forgotten.
func (c *crew) leave() {
	if c.refs.Add(-1) != 0 {
		return
	}
	c.call, c.space, c.depth, c.work = nil, nil, nil, nil
	crews.Lock()
	crews.free = append(crews.free, c)
	crews.Unlock()
}

// share runs total pieces on the caller's goroutine and helpers-1 more, as
// the crew c, whose work the caller has set.
func (c *crew) share(total, helpers int) {
	c.total, c.helpers = int64(total), helpers
	c.next.Store(0)
	c.done.Store(0)
	c.refs.Store(int32(helpers))
	for range helpers - 1 {
		go c.helper()
	}
	// The newest goroutine waits in its P's runnext slot, which another P
	// takes only after sleeping 3 µs (runtime.runqgrab), 50 µs and more
	// where the kernel's timer slack stretches the sleep: a goroutine that
	// does nothing, started last, leaves the helpers in the run queue,
	// which idle Ps steal at once. On a 2-vCPU Zen 4 VM the one helper of
	// back-to-back calls of 80 µs started after 100 µs on average without
	// it, 20 µs with it.
	go nothing()
	if !c.take() {
		<-c.finished
	}
	c.leave()
}

func nothing() {}

// help is a helper's part: it takes pieces while there are any, and
// signals the caller if it moved the last.
func (c *crew) help() {
	if c.take() {
		c.finished <- struct{}{}
	}
	c.leave()
}

// take moves pieces until none is left to take, and reports whether its
// goroutine moved the last of them. Each turn takes a run of consecutive
// pieces, half a share of what is left (guided self-scheduling): the
// first runs long, so that a goroutine reads and writes neighbouring
// lines as one goroutine would, the last short, so that all end together.
// Taken one at a time, the 8-column pieces of a 8192x8192 matrix went to
// alternate goroutines, which read the halves of the same lines of src:
// 1.16 times one goroutine's speed on two, against 1.5 in runs.
func (c *crew) take() (last bool) {
	for {
		from := c.next.Load()
		if from >= c.total {
			return last
		}
		n := max(1, (c.total-from)/(2*int64(c.helpers)))
		if !c.next.CompareAndSwap(from, from+n) {
			continue
		}
		for i := from; i < from+n; i++ {
			if c.call != nil {
				c.call.piece(int(i), c.space, c.depth)
			} else {
				c.work(int(i))
			}
		}
		last = c.done.Add(n) == c.total
	}
}

// startBytes is how many bytes one goroutine copies in its cache in the
// time it takes to start a helper, as a crew starts its helpers: its go
// statements, which may wake an idle thread (an interrupt to another
// vCPU, on a VM), and the wait until the helper runs. It is the median of
// three tries, probed once where more than one goroutine can run (0 until
// then), each try at most probeCap bytes. On a 2-vCPU Zen 4 VM it came
// to 0.5 to 4 MiB, 30 to 250 µs for the three tries: there two goroutines
// moved calls of 512 KiB to 1 MiB at 0.56 to 0.76 of one goroutine's speed.
var startBytes = probeOnce

const probeCap = 4 << 20

// probed is startBytes plus one once probed, 0 before: every automatic
// call of two shares or more asks for it, so that, once probed, it costs
// one atomic load rather than a lock.
var (
	probed  atomic.Int64
	probing sync.Mutex
)

func probeOnce() int {
	if n := probed.Load(); n > 0 {
		return int(n - 1)
	}
	if runtime.GOMAXPROCS(0) == 1 { // no helper could run: probe later
		return 0
	}
	probing.Lock()
	defer probing.Unlock()
	if probed.Load() == 0 {
		probed.Store(int64(probe()) + 1)
	}
	return int(probed.Load() - 1)
}

// probe measures startBytes.
func probe() int {
	src, dst := make([]byte, 32<<10), make([]byte, 32<<10)
	copy(dst, src)
	var tries [3]int
	for i := range tries {
		var started atomic.Bool
		t0 := time.Now()
		go func() { started.Store(true) }()
		go nothing()
		t1 := time.Now()
		n := 0
		for !started.Load() && n < probeCap {
			copy(dst, src)
			n += len(src)
		}
		// the go statements' time, in bytes at the speed of the copies
		if waited := time.Since(t1); waited > 0 {
			n += int(float64(n) * float64(t1.Sub(t0)) / float64(waited))
		}
		tries[i] = min(n, probeCap) // the go statements' time can stretch n far past it under emulation
	}
	slices.Sort(tries[:])
	return tries[1]
}
