package simd

import (
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/stack"
)

// The kernels trust their arguments: a wrong stride makes them read or
// write outside the tensors. So every kernel call is made by the Call
// methods below, which compute from the arguments the last byte the kernel
// may touch on each side and panic, before any assembly runs, if it lies
// outside the span its pointer comes from; a prepared call then runs only
// on tensors of the sizes it was planned for, and Span.In holds each run
// to those spans. A panic here is a bug in the module (the plans only make
// calls inside the tensors), never the caller's: the public functions
// validate their input and return errors.

// Call returns the call of a lane kernel for b lanes addressed with split
// (see Table), after checking it.
func (f *LaneFunc) Call(a LaneArgs, b, split int) *LaneCall {
	lane, ok := furthestLane(b, split, a.Lane, a.LaneI)
	ok = ok && a.N >= 0 && a.N <= math.MaxInt/MaxBlock && lane <= math.MaxInt-a.N
	space, ok1 := reach(a.N*b, a.Rows, a.SpaceStride, a.Groups, a.GroupSpace)
	depth, ok2 := reach(lane+a.N, a.Rows, a.DepthStride, a.Groups, a.GroupDepth)
	if !ok || !ok1 || !ok2 || space > a.Space.Len || depth > a.Depth.Len {
		panic(outside(name(f), space, depth, a.Space.Len, a.Depth.Len, a))
	}
	return &LaneCall{f, a}
}

// Call returns the call of a kernel of any block size, after checking it.
func (f *AnyBFunc) Call(a AnyBArgs) *AnyBCall {
	ok := a.B >= 1 && a.N >= 0 && a.N <= math.MaxInt/a.B
	lanes, ok1 := around(a.N, a.B, a.Lane)
	space, ok2 := reach(a.N*a.B, a.Rows, a.SpaceStride, a.Groups, a.GroupSpace)
	depth, ok3 := reach(lanes, a.Rows, a.DepthStride, a.Groups, a.GroupDepth)
	if !ok || !ok1 || !ok2 || !ok3 || space > a.Space.Len || depth > a.Depth.Len {
		panic(outside(name(f), space, depth, a.Space.Len, a.Depth.Len, a))
	}
	return &AnyBCall{f, a}
}

// Call returns the call of a run copier, after checking it.
func (f *CopyFunc) Call(a CopyArgs) *CopyCall {
	if dst, src, _, ok := copyReach(&a); !ok {
		panic(outside(name(f), dst, src, a.Dst.Len, a.Src.Len, a))
	}
	return &CopyCall{f, a}
}

// copyReach is how many bytes into dst and src a run copier's call
// reaches, and how many of dst each row's runs span; ok is false for
// arguments no copier takes, or a reach past a span's end.
func copyReach(a *CopyArgs) (dst, src, dstRow int, ok bool) {
	dstRow, ok1 := around(a.E, a.W, a.DstX)
	srcRow, ok2 := around(a.E, a.W, a.SrcX)
	dst, ok3 := reach(dstRow, a.Rows, a.DstRow, a.Groups, a.DstGroup)
	src, ok4 := reach(srcRow, a.Rows, a.SrcRow, a.Groups, a.SrcGroup)
	return dst, src, dstRow, a.E >= 16 && ok1 && ok2 && ok3 && ok4 && dst <= a.Dst.Len && src <= a.Src.Len
}

// Call returns the call of a streaming run copier, after checking it,
// which must also suit it: runs of 32 bytes or more, that tile each
// group's block of dst (dstX = e, dstRow = w*e), the only bytes of dst it
// writes.
func (f *StreamFunc) Call(a StreamArgs) *StreamCall {
	dst, src, dstRow, ok := copyReach((*CopyArgs)(&a))
	if !ok || a.E < 32 || a.E%4 != 0 || a.DstX != a.E || dstRow != a.DstRow {
		panic(outside(name(f), dst, src, a.Dst.Len, a.Src.Len, a))
	}
	return &StreamCall{f, a}
}

// Call returns the call of a tile kernel of tiles of b rows of chunk
// bytes of w-byte words, after checking it.
func (f *TileFunc) Call(a TileArgs, b, chunk, w int) *TileCall {
	ok := a.Tiles >= 1 && a.Strips >= 1 && a.Bands >= 1 && b >= 1 && w >= 1 && chunk >= w && chunk%w == 0
	src, ok1 := reach(chunk, b, a.SrcRow, a.Tiles, a.SrcTile)
	src, ok2 := reach(src, a.Strips, a.SrcStrip, a.Bands, a.SrcBand)
	dst, ok3 := reach(b*w, chunk/w, a.DstRow, a.Tiles, a.DstTile)
	dst, ok4 := reach(dst, a.Strips, a.DstStrip, a.Bands, a.DstBand)
	if !ok || !ok1 || !ok2 || !ok3 || !ok4 || dst > a.Dst.Len || src > a.Src.Len {
		panic(outside(name(f), dst, src, a.Dst.Len, a.Src.Len, a))
	}
	return &TileCall{f, a}
}

// A GatherProg is a gather program the kernels may run without reading
// its offsets again: NewGatherProg's copy of its offsets and index
// vectors, with the reach it read off every offset of the copy. Plans are
// cached, so a call pays a few multiplications, not a pass over a
// program that may be as long as the call's work (a 3600-byte call of
// one tile: its check took 0.6 µs of 1.15).
type GatherProg struct {
	offs           []int32
	idx            []byte
	steps, groups  int
	dstEnd, srcEnd int  // the bytes one tile reaches from its start on each side
	ok             bool // whether the offsets passed the check
}

// NewGatherProg copies and checks a program of steps vectors for kernels
// of groups groups of windows w: offs holds, per vector, its offset in
// dst and its windows' in src (int32), idx its index vectors. A program
// that fails the check makes every call of it panic.
func NewGatherProg(offs []int32, idx []byte, steps, groups int, w isa.Windows) *GatherProg {
	per := 1 + groups*w.PerGroup
	p := &GatherProg{steps: steps, groups: groups}
	p.ok = steps >= 1 && steps <= math.MaxInt32/per && groups >= 1 && groups <= MaxGroups &&
		len(offs) >= steps*per && len(idx)/w.Vector >= steps*groups
	if !p.ok {
		return p
	}
	offs, idx = offs[:steps*per], idx[:steps*groups*w.Vector]
	for s := range steps {
		o := offs[s*per : (s+1)*per]
		p.ok = p.ok && o[0] >= 0
		p.dstEnd = max(p.dstEnd, int(o[0])+w.Vector)
		for _, x := range o[1:] {
			p.ok = p.ok && x >= 0
			p.srcEnd = max(p.srcEnd, int(x)+w.Window)
		}
	}
	p.offs, p.idx = slices.Clone(offs), slices.Clone(idx)
	return p
}

// Call returns the call of a gather kernel with program p, whose offsets,
// index vectors and steps replace a's, after checking it against p's
// reach.
func (f *GatherFunc) Call(a GatherArgs, p *GatherProg) *GatherCall {
	a.Offs = engine.OwnSpan(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(p.offs))), 4*len(p.offs)))
	a.Idx, a.Steps = engine.OwnSpan(p.idx), p.steps
	dst, ok1 := around(p.dstEnd, a.Reps, a.DstRep)
	src, ok2 := around(p.srcEnd, a.Reps, a.SrcRep)
	if !p.ok || !ok1 || !ok2 || dst > a.Dst.Len || src > a.Src.Len {
		bad := 0 // an offset below zero, or offsets or index vectors too few
		if !p.ok {
			bad = 1
		}
		panic(outside(name(f), dst, src, a.Dst.Len, a.Src.Len, struct{ Steps, Groups, BadProg, Reps, SrcRep, DstRep int }{
			p.steps, p.groups, bad, a.Reps, a.SrcRep, a.DstRep}))
	}
	return &GatherCall{f, a}
}

// Call returns the call of a stacked-row kernel, after checking it against
// the masks its table holds (stack.Reach).
func (f *StackFunc) Call(a StackArgs) *StackCall {
	depth, space, ok := stack.Reach(a.Tab.Own, a.Stacks, a.Step, a.Last, a.LastDepth, a.Plane)
	if !ok || depth > a.Depth.Len || space > a.Space.Len {
		panic(outside(name(f), space, depth, a.Space.Len, a.Depth.Len, a))
	}
	return &StackCall{f, a}
}

// Call returns the call of a bundle kernel of w-byte elements, after
// checking that the call, the slop past its rows included
// (stack.BundlesReach), stays inside its spans.
func (f *BundleFunc) Call(a BundleArgs, w int) *BundleCall {
	depth, space, ok := stack.BundlesReach(a.N, w, a.Bundles, a.Plane, a.Groups, a.Group)
	if !ok || depth > a.Depth.Len || space > a.Space.Len {
		panic(outside(name(f), space, depth, a.Space.Len, a.Depth.Len, a))
	}
	return &BundleCall{f, a}
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

// outside is the message of a call that would reach outside its spans.
func outside(kernel string, n0, n1, len0, len1 int, args any) string {
	return fmt.Sprintf("simd: %s would reach %d and %d bytes into spans of %d and %d bytes: %s", kernel, n0, n1, len0, len1, ints(args))
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
