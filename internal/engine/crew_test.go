package engine

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCrew: every piece runs once, on some goroutine, and all of them
// before share returns, however late the helpers start; crews shared by
// callers at once stay apart. (Under -race too, in .ci/run.)
func TestCrew(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var callers sync.WaitGroup
	for caller := range 4 {
		callers.Go(func() {
			for round := range 50 {
				total := 1 + (round*7+caller)%37
				runs := make([]atomic.Int32, total)
				w := takeCrew()
				for w == nil { // all made and held by helpers yet to start
					runtime.Gosched()
					w = takeCrew()
				}
				w.work = func(i int) {
					if i%5 == round%5 {
						time.Sleep(time.Duration(i%3) * 50 * time.Microsecond)
					}
					runs[i].Add(1)
				}
				w.share(total, 1+round%6)
				for i := range runs {
					if n := runs[i].Load(); n != 1 {
						t.Errorf("caller %d, round %d: piece %d of %d ran %d times before share returned", caller, round, i, total, n)
					}
				}
			}
		})
	}
	callers.Wait()
}

// TestCrewAllocates: a parallel call's crew comes from those kept, or,
// where all are held by helpers yet to start, it runs alone; its helpers
// cost no allocation.
func TestCrewAllocates(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var sink atomic.Int64
	c := &Prepared{calls: []Call{countCall{&sink}, countCall{&sink}}, pieces: []int{0, 1}}
	for range 2 * maxCrews {
		c.parallel(nil, nil, 2)
	}
	// The runtime allocates a goroutine where none is free to reuse, which
	// happens under emulation (s390x under qemu) when helpers outlive the
	// calls: a run may allocate what the same go statements do alone.
	var started sync.WaitGroup
	helper := func() { started.Done() }
	goStatements := testing.AllocsPerRun(100, func() {
		started.Add(1)
		go helper()
		go nothing()
		started.Wait()
	})
	// Each run waits for its helpers to leave, so that the runtime reuses
	// their goroutines rather than making new ones while a loaded machine
	// (Bochs boots beside the test) keeps them from running.
	idle := func() {
		for {
			crews.Lock()
			done := len(crews.free) == crews.made
			crews.Unlock()
			if done {
				return
			}
			runtime.Gosched()
		}
	}
	if n := testing.AllocsPerRun(100, func() { c.parallel(nil, nil, 2); idle() }); n > goStatements && !raced {
		t.Errorf("%v allocations a parallel run, where its go statements alone make %v", n, goStatements)
	}
	if want := int64(2 * (2*maxCrews + 101)); sink.Load() != want { // AllocsPerRun runs it once more first
		t.Errorf("%d pieces run, want %d", sink.Load(), want)
	}
}

type countCall struct{ n *atomic.Int64 }

func (c countCall) Run(space, depth []byte) { c.n.Add(1) }
func (c countCall) Kernel() string          { return "count" }
