package engine_test

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	_ "github.com/blockshuffle/blockshuffle/dispatch" // chooses the tier
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// TestPreparedCalls runs more shapes than the prepared calls' slots and
// caches hold, twice over, against the generic tier; then two shapes that
// share a slot, in turn, which must each stay right and allocate nothing.
func TestPreparedCalls(t *testing.T) {
	m, ref := engine.Active(), engine.Lookup(isa.Generic)
	check := func(r shape.Request) {
		t.Helper()
		n := r.Dims[0] * r.Dims[1] * r.Dims[2] * r.Dims[3] * r.Elem
		src, got, want := make([]byte, n), make([]byte, n), make([]byte, n)
		for i := range src {
			src[i] = byte(i*13 + 5)
		}
		if err := ref.Do(&r, engine.PlanOperator, 1, want, src); err != nil {
			t.Fatal(err)
		}
		if err := m.Do(&r, engine.PlanOperator, 1, got, src); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%+v: error %v, or a wrong output", r, err)
		}
	}
	var requests []shape.Request
	for h := 1; h <= 12; h++ {
		for w := 1; w <= 25; w++ {
			requests = append(requests, shape.Request{Op: uint8(h+w) % 2, Order: uint8(w % 2), Layout: uint8(h % 2), Elem: 1 + (h*w)%4,
				Dims: []int{1, 8, 2 * h, 2 * w, 2}})
		}
	}
	for range 2 {
		for _, r := range requests {
			check(r)
		}
	}

	a := shape.Request{Elem: 2, Dims: []int{1, 16, 4, 4, 2}}
	b := a
	b.Dims = []int{1, 16, 4, 5, 2}
	for ; engine.Slot(m, &b) != engine.Slot(m, &a); b.Dims[3]++ {
	}
	check(a)
	check(b)
	da, sa := make([]byte, 16*4*4*2), make([]byte, 16*4*4*2)
	db, sb := make([]byte, 16*4*b.Dims[3]*2), make([]byte, 16*4*b.Dims[3]*2)
	if n := testing.AllocsPerRun(20, func() {
		_ = m.Do(&a, engine.PlanOperator, 1, da, sa)
		_ = m.Do(&b, engine.PlanOperator, 1, db, sb)
	}); n != 0 {
		t.Errorf("two shapes in one slot (W = 4 and %d): %v allocations per pair of calls", b.Dims[3], n)
	}
	check(a)
	check(b)
}

// TestBoundCallsKeepNoTensor: a prepared call, bound on its first run,
// holds on to none of that run's tensors, which the caller may drop.
func TestBoundCallsKeepNoTensor(t *testing.T) {
	m := engine.Active()
	for _, depth := range []shape.Request{
		{Layout: shape.NHWC, Order: shape.DCR, Elem: 1, Dims: []int{1, 16, 4, 4, 2}}, // one lane kernel call
		{Elem: 1, Dims: []int{1, 64, 5, 5, 2}},                                       // NCHW, short rows
	} {
		for _, op := range []uint8{shape.DepthToSpace, shape.SpaceToDepth} {
			d := depth.Dims
			n := d[0] * d[1] * d[2] * d[3]
			p := depth
			p.Op = op
			if op == shape.SpaceToDepth {
				p.Dims = []int{d[0], d[1] / 4, d[2] * 2, d[3] * 2, 2}
			}
			freed := make(chan string, 2)
			func() {
				dst, src := make([]byte, n), make([]byte, n)
				runtime.AddCleanup(&dst[0], func(s string) { freed <- s }, "dst")
				runtime.AddCleanup(&src[0], func(s string) { freed <- s }, "src")
				if err := m.Do(&p, engine.PlanOperator, 1, dst, src); err != nil {
					t.Fatal(err)
				}
			}()
			for range 2 {
				runtime.GC()
				select {
				case <-freed:
				case <-time.After(2 * time.Second):
					t.Fatalf("%v %+v: a tensor of the first call is still held after it", op, p)
				}
			}
			if err := m.Do(&p, engine.PlanOperator, 1, make([]byte, n), make([]byte, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
}
