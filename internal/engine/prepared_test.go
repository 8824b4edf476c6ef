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
	check := func(op shape.Op, p shape.Params, es int) {
		t.Helper()
		n := p.Dims().Len() * es
		src, got, want := make([]byte, n), make([]byte, n), make([]byte, n)
		for i := range src {
			src[i] = byte(i*13 + 5)
		}
		if err := ref.Do(op, want, src, es, p); err != nil {
			t.Fatal(err)
		}
		if err := m.Do(op, got, src, es, p); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%v %+v %d-byte: error %v, or a wrong output", op, p, es, err)
		}
	}
	var shapes []shape.Params
	for h := 1; h <= 12; h++ {
		for w := 1; w <= 25; w++ {
			shapes = append(shapes, shape.Params{N: 1, C: 8, H: 2 * h, W: 2 * w, BlockSize: 2, Order: shape.Order(w % 2), Layout: shape.Layout(h % 2)})
		}
	}
	for range 2 {
		for i, p := range shapes {
			check(shape.Op(i%2), p, 1+i%4)
		}
	}

	a := shape.Params{N: 1, C: 16, H: 4, W: 4, BlockSize: 2}
	b := a
	for b.W = 5; engine.Slot(shape.DepthToSpace, b, 2) != engine.Slot(shape.DepthToSpace, a, 2); b.W++ {
	}
	check(shape.DepthToSpace, a, 2)
	check(shape.DepthToSpace, b, 2)
	da, sa := make([]byte, a.Dims().Len()*2), make([]byte, a.Dims().Len()*2)
	db, sb := make([]byte, b.Dims().Len()*2), make([]byte, b.Dims().Len()*2)
	if n := testing.AllocsPerRun(20, func() {
		_ = m.Do(shape.DepthToSpace, da, sa, 2, a)
		_ = m.Do(shape.DepthToSpace, db, sb, 2, b)
	}); n != 0 {
		t.Errorf("two shapes in one slot (W = 4 and %d): %v allocations per pair of calls", b.W, n)
	}
	check(shape.DepthToSpace, a, 2)
	check(shape.DepthToSpace, b, 2)
}

// TestBoundCallsKeepNoTensor: a prepared call, bound on its first run,
// holds on to none of that run's tensors, which the caller may drop.
func TestBoundCallsKeepNoTensor(t *testing.T) {
	m := engine.Active()
	for _, p := range []shape.Params{
		{N: 1, C: 16, H: 4, W: 4, BlockSize: 2, Layout: shape.NHWC, Order: shape.DCR}, // one lane kernel call
		{N: 1, C: 64, H: 5, W: 5, BlockSize: 2},                                       // NCHW, short rows
	} {
		for _, op := range []shape.Op{shape.DepthToSpace, shape.SpaceToDepth} {
			n := p.Dims().Len()
			if op == shape.SpaceToDepth {
				p.C, p.H, p.W = p.C/4, p.H*2, p.W*2
			}
			freed := make(chan string, 2)
			func() {
				dst, src := make([]byte, n), make([]byte, n)
				runtime.AddCleanup(&dst[0], func(s string) { freed <- s }, "dst")
				runtime.AddCleanup(&src[0], func(s string) { freed <- s }, "src")
				if err := m.Do(op, dst, src, 1, p); err != nil {
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
			if err := m.Do(op, make([]byte, n), make([]byte, n), 1, p); err != nil {
				t.Fatal(err)
			}
		}
	}
}
