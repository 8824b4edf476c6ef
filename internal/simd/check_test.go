package simd_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/simd"
	_ "github.com/blockshuffle/blockshuffle/kernels" // registers the tables
)

// tables are the kernel tables this CPU runs.
func tables(t *testing.T) map[string]*simd.Table {
	out := map[string]*simd.Table{}
	for _, i := range isa.All {
		if tb := simd.TableOf(i.Name); tb != nil && i.Supported() {
			out[i.Name] = tb
		}
	}
	if len(out) == 0 {
		t.Skip("no kernels for this CPU in this build")
	}
	return out
}

// mustPanic runs f, which must panic with a message naming the kernel,
// before it writes anything: neighbour, the memory right after the slices
// passed, stays as it was.
func mustPanic(t *testing.T, what string, neighbour []byte, f func()) {
	t.Helper()
	before := bytes.Clone(neighbour)
	defer func() {
		t.Helper()
		r := recover()
		if msg, _ := r.(string); !strings.Contains(msg, "would reach") || !strings.Contains(msg, "Groups=") || len(msg) > 400 {
			t.Errorf("%s: recovered %v, want a short panic saying the call would reach outside its slices, with its arguments", what, r)
		}
		if !bytes.Equal(neighbour, before) {
			t.Errorf("%s: memory next to the slices was written", what)
		}
	}()
	f()
}

// TestOutsideSlicesPanics replays, on the kernels' own entry points, calls
// whose arguments reach past their slices: each must panic before any
// assembly runs. (The public API validates its input and never makes such
// a call; these guard the module against its own bugs.)
func TestOutsideSlicesPanics(t *testing.T) {
	for name, tb := range tables(t) {
		type pair struct{ a, b [64]byte }
		v := new(pair)
		src := bytes.Repeat([]byte{0xEE}, 128)
		mustPanic(t, name+" copyRuns", v.b[:], func() {
			// 96-byte runs into a 64-byte slice, as in the report that led here.
			tb.CopyRuns.Once(v.a[:], src, simd.CopyArgs{E: 96, W: 1, DstX: 96, SrcX: 96, Rows: 1, Groups: 1})
		})
		k := tb.Lanes[0] // zip2x1, or the lowest zip a table with a base has
		if k.B != 2 || k.W != 1 {
			k = tb.Base.Lanes[0]
		}
		mustPanic(t, name+" zip2x1 space", v.b[:], func() {
			// Two 64-byte lanes interleave into 128 bytes: twice the slice.
			k.F.Once(v.a[:], src, simd.LaneArgs{N: 64, Rows: 1, Lane: 64, LaneI: 128, Groups: 1}, 2, 2)
		})
		mustPanic(t, name+" zip2x1 depth", v.b[:], func() {
			k.F.Once(make([]byte, 256), v.a[:], simd.LaneArgs{N: 64, Rows: 1, Lane: 64, LaneI: 128, Groups: 1}, 2, 2)
		})
		mustPanic(t, name+" zip2x1 rows", v.b[:], func() {
			k.F.Once(make([]byte, 4096), v.a[:], simd.LaneArgs{N: 16, Rows: 3, DepthStride: 32, Lane: 16, LaneI: 32, Groups: 1}, 2, 2)
		})
		mustPanic(t, name+" zip2x1 overflowing stride", v.b[:], func() {
			k.F.Once(make([]byte, 4096), v.a[:], simd.LaneArgs{N: 16, Rows: 1, Lane: math.MaxInt, LaneI: 32, Groups: 1}, 2, 2)
		})
		mustPanic(t, name+" zip2x1 negative stride", v.b[:], func() {
			k.F.Once(make([]byte, 4096), v.a[:], simd.LaneArgs{N: 16, Rows: 2, DepthStride: -16, Lane: 16, LaneI: 32, Groups: 1}, 2, 2)
		})
		w := isa.Named(name).Windows
		if g := tb.Gather[w.MaxGroups]; g != nil {
			offs := make([]int32, 1+w.MaxGroups*w.PerGroup) // one vector at 0, its windows at 0
			idx := bytes.Repeat([]byte{w.Used}, w.MaxGroups*w.Vector)
			mustPanic(t, name+" gather window", v.b[:], func() {
				// A window one byte past the source's 64.
				o := append([]int32{}, offs...)
				o[len(o)-1] = int32(65 - w.Window)
				g.Once(v.a[:], src[:64], simd.GatherArgs{Reps: 1}, simd.NewGatherProg(o, idx, 1, w.MaxGroups, w))
			})
			mustPanic(t, name+" gather negative offset", v.b[:], func() {
				o := append([]int32{}, offs...)
				o[1] = -1
				g.Once(v.a[:], src, simd.GatherArgs{Reps: 1}, simd.NewGatherProg(o, idx, 1, w.MaxGroups, w))
			})
			mustPanic(t, name+" gather reps", v.b[:], func() {
				// The second tile's vector lands 64 bytes on: past dst.
				g.Once(v.a[:], src, simd.GatherArgs{Reps: 2, DstRep: 64}, simd.NewGatherProg(offs, idx, 1, w.MaxGroups, w))
			})
			g.Once(make([]byte, 64), src[:64], simd.GatherArgs{Reps: 1}, simd.NewGatherProg(offs, idx, 1, w.MaxGroups, w))
		}
		// The same calls inside their slices run.
		k.F.Once(make([]byte, 128), src, simd.LaneArgs{N: 64, Rows: 1, Lane: 64, LaneI: 128, Groups: 1}, 2, 2)
		tb.CopyRuns.Once(make([]byte, 96), src, simd.CopyArgs{E: 96, W: 1, DstX: 96, SrcX: 96, Rows: 1, Groups: 1})
	}
}

// TestCallNamesTheKernel: a planned call names its kernel, as Describe
// reports it.
func TestCallNamesTheKernel(t *testing.T) {
	for name, tb := range tables(t) {
		c := tb.CopyRuns.Call(simd.CopyArgs{Dst: engine.SpaceSpan(96), Src: engine.DepthSpan(96), E: 96, W: 1, DstX: 96, SrcX: 96, Rows: 1, Groups: 1})
		if got := c.Kernel(); !strings.HasPrefix(got, "copyRuns") || isa.Named(strings.TrimPrefix(got, "copyRuns")) == nil {
			t.Errorf("%s: the call of CopyRuns names %q", name, got) // an ISA's copier, its own or one it folds onto
		}
	}
}
