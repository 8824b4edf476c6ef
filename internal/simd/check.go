package simd

import (
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"strings"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/stack"
)

// The kernels trust their arguments: a wrong stride makes them read or
// write outside the tensors. So every call goes through the Run methods
// below, which compute from the arguments the last byte the kernel may
// touch on each side and panic, before any assembly runs, if it lies
// outside the slice the pointer comes from. A panic here is a bug in the
// module (the plans only make calls inside the tensors), never the
// caller's: the public functions validate their input and return errors.
// The check costs a few multiplications per kernel call, and a call moves
// whole rows.

// Run calls a lane kernel for b lanes addressed with split (see Table)
// after checking the call; with a.Report set it names the kernel instead.
func (f LaneFunc) Run(a *LaneArgs, b, split int) {
	if dryRun(f, a.Report) {
		return
	}
	lane, ok := furthestLane(b, split, a.Lane, a.LaneI)
	ok = ok && a.N >= 0 && a.N <= math.MaxInt/MaxBlock && lane <= math.MaxInt-a.N
	space, ok1 := reach(a.N*b, a.Rows, a.SpaceStride, a.Groups, a.GroupSpace)
	depth, ok2 := reach(lane+a.N, a.Rows, a.DepthStride, a.Groups, a.GroupDepth)
	if !ok || !ok1 || !ok2 || space > len(a.Space) || depth > len(a.Depth) {
		panic(outside(name(f), space, depth, len(a.Space), len(a.Depth), *a))
	}
	f.call(a)
}

// Run calls a kernel of any block size after checking the call; with
// a.Report set it names the kernel instead.
func (f AnyBFunc) Run(a *AnyBArgs) {
	if dryRun(f, a.Report) {
		return
	}
	ok := a.B >= 1 && a.N >= 0 && a.N <= math.MaxInt/a.B
	lanes, ok1 := around(a.N, a.B, a.Lane)
	space, ok2 := reach(a.N*a.B, a.Rows, a.SpaceStride, a.Groups, a.GroupSpace)
	depth, ok3 := reach(lanes, a.Rows, a.DepthStride, a.Groups, a.GroupDepth)
	if !ok || !ok1 || !ok2 || !ok3 || space > len(a.Space) || depth > len(a.Depth) {
		panic(outside(name(f), space, depth, len(a.Space), len(a.Depth), *a))
	}
	f.call(a)
}

// Run calls a run copier after checking the call; with a.Report set it
// names the kernel instead.
func (f CopyFunc) Run(a *CopyArgs) {
	if dryRun(f, a.Report) {
		return
	}
	if dst, src, _, ok := copyReach(a); !ok {
		panic(outside(name(f), dst, src, len(a.Dst), len(a.Src), *a))
	}
	f.call(a)
}

// copyReach is how many bytes into dst and src a run copier's call
// reaches, and how many of dst each row's runs span; ok is false for
// arguments no copier takes, or a reach past a slice's end.
func copyReach(a *CopyArgs) (dst, src, dstRow int, ok bool) {
	dstRow, ok1 := around(a.E, a.W, a.DstX)
	srcRow, ok2 := around(a.E, a.W, a.SrcX)
	dst, ok3 := reach(dstRow, a.Rows, a.DstRow, a.Groups, a.DstGroup)
	src, ok4 := reach(srcRow, a.Rows, a.SrcRow, a.Groups, a.SrcGroup)
	return dst, src, dstRow, a.E >= 16 && ok1 && ok2 && ok3 && ok4 && dst <= len(a.Dst) && src <= len(a.Src)
}

// Run calls a streaming run copier after checking the call, which must
// also suit it: runs of 32 bytes or more, that tile each group's block of
// dst (dstX = e, dstRow = w*e), the only bytes of dst it writes. With
// a.Report set it names the kernel instead.
func (f StreamFunc) Run(a *StreamArgs) {
	if dryRun(f, a.Report) {
		return
	}
	dst, src, dstRow, ok := copyReach((*CopyArgs)(a))
	if !ok || a.E < 32 || a.E%4 != 0 || a.DstX != a.E || dstRow != a.DstRow {
		panic(outside(name(f), dst, src, len(a.Dst), len(a.Src), *a))
	}
	f.call(a)
}

// Run calls a gather kernel of groups groups of windows w after checking
// the call: every vector and window offset of the program is read, so
// that the check does not trust whoever built it. With a.Report set it
// names the kernel instead.
func (f GatherFunc) Run(a *GatherArgs, w isa.Windows, groups int) {
	if dryRun(f, a.Report) {
		return
	}
	per := 1 + groups*w.PerGroup
	ok := a.Steps >= 1 && a.Steps <= math.MaxInt32/per && groups >= 1 && groups <= MaxGroups &&
		len(a.Offs)/4 >= a.Steps*per && len(a.Idx)/w.Vector >= a.Steps*groups && a.SrcRep|a.DstRep >= 0
	dstEnd, srcEnd := 0, 0
	if ok {
		offs := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(a.Offs))), a.Steps*per)
		for s := range a.Steps {
			o := offs[s*per : (s+1)*per]
			ok = ok && o[0] >= 0
			dstEnd = max(dstEnd, int(o[0])+w.Vector)
			for _, x := range o[1:] {
				ok = ok && x >= 0
				srcEnd = max(srcEnd, int(x)+w.Window)
			}
		}
	}
	dst, ok1 := around(dstEnd, a.Reps, a.DstRep)
	src, ok2 := around(srcEnd, a.Reps, a.SrcRep)
	if !ok || !ok1 || !ok2 || dst > len(a.Dst) || src > len(a.Src) {
		panic(outside(name(f), dst, src, len(a.Dst), len(a.Src), *a))
	}
	f.call(a)
}

// Run calls a stacked-row kernel after checking the call against the
// masks its table holds (stack.Reach). With a.Report set it names the
// kernel instead.
func (f StackFunc) Run(a *StackArgs) {
	if dryRun(f, a.Report) {
		return
	}
	depth, space, ok := stack.Reach(a.Tab, a.Units, a.Step, a.Last, a.LastDepth, a.Plane)
	if !ok || depth > len(a.Depth) || space > len(a.Space) {
		panic(outside(name(f), space, depth, len(a.Space), len(a.Depth), *a))
	}
	f.call(a)
}

// Run calls a row-unit kernel of w-byte elements after checking that the
// call, the slop past its rows included (stack.RowsReach), stays inside
// its slices. With a.Report set it names the kernel instead.
func (f UnitFunc) Run(a *UnitArgs, w int) {
	if dryRun(f, a.Report) {
		return
	}
	depth, space, ok := stack.RowsReach(a.N, w, a.Units, a.Plane, a.Groups, a.Group)
	if !ok || depth > len(a.Depth) || space > len(a.Space) {
		panic(outside(name(f), space, depth, len(a.Space), len(a.Depth), *a))
	}
	f.call(a)
}

// reach is how many bytes from its start an access reaches on one side: n,
// those of one row's, inside the loops of rows and groups.
func reach(n, rows, rowStride, groups, groupStride int) (int, bool) {
	n, ok1 := around(n, rows, rowStride)
	n, ok2 := around(n, groups, groupStride)
	return n, ok1 && ok2
}

// furthestLane is the largest start of the b lanes of a lane kernel,
// (j/split)*laneI + (j%split)*lane for j < b: with non-negative strides,
// that of the last lane, or of the last of the full run of split lanes
// before it. ok is false for b or split below 1, a negative stride, or a
// start that overflows.
func furthestLane(b, split, lane, laneI int) (start int, ok bool) {
	if b < 1 || b > MaxBlock || split < 1 || split > MaxBlock {
		return 0, false
	}
	q, r := lastLane[b][split][0], lastLane[b][split][1]
	start, ok1 := around(0, r+1, lane)
	start, ok2 := around(start, q+1, laneI)
	if q > 0 {
		before, ok3 := around(0, split, lane)
		before, ok4 := around(before, q, laneI)
		start, ok1 = max(start, before), ok1 && ok3 && ok4
	}
	return start, ok1 && ok2
}

// lastLane[b][split] is where the last of b lanes sits in runs of split:
// run (b-1)/split, place (b-1)%split. Two divisions per kernel call would
// cost more than the rest of the check.
var lastLane = func() (t [MaxBlock + 1][MaxBlock + 1][2]int) {
	for b := 1; b <= MaxBlock; b++ {
		for split := 1; split <= MaxBlock; split++ {
			t[b][split] = [2]int{(b - 1) / split, (b - 1) % split}
		}
	}
	return t
}()

// dryRun reports the name of kernel f if report is set, and says so.
func dryRun(f any, report func(kernel string)) bool {
	if report == nil {
		return false
	}
	report(name(f))
	return true
}

// around is how many bytes from its start a kernel's access reaches on one
// side once a loop of count iterations, stride bytes apart, goes around
// what reaches n bytes: n + (count-1)*stride. ok is false if count is
// below 1, stride or n negative, or the sum does not fit in an int. It has
// no branch and inlines, since every kernel call goes through it.
func around(n, count, stride int) (int, bool) {
	hi, lo := bits.Mul64(uint64(count-1), uint64(stride))
	sum, carry := bits.Add64(lo, uint64(n), 0)
	return int(sum), hi|carry == 0 && sum <= math.MaxInt && n|(count-1)|stride >= 0
}

// outside is the message of a call that would reach outside its slices.
func outside(kernel string, n0, n1, len0, len1 int, args any) string {
	return fmt.Sprintf("simd: %s would reach %d and %d bytes into slices of %d and %d bytes: %s", kernel, n0, n1, len0, len1, ints(args))
}

// ints lists the int fields of an Args struct, name=value: the call's
// shape, without the slices' bytes, which would bury it.
func ints(args any) string {
	v := reflect.ValueOf(args)
	var b strings.Builder
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Int {
			fmt.Fprintf(&b, "%s=%d ", v.Type().Field(i).Name, f.Int())
		}
	}
	return strings.TrimSpace(b.String())
}
