package simd

import (
	"fmt"
	"math"
	"math/bits"
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
	ok := b >= 1 && b <= MaxBlock && split >= 1 && a.N >= 0 && a.N <= math.MaxInt/MaxBlock
	lane := 0 // the furthest lane's start
	for j := 0; ok && j < b; j++ {
		l, fits := extent(0, j/split+1, a.LaneI, j%split+1, a.Lane)
		ok, lane = ok && fits && l <= math.MaxInt-a.N, max(lane, l)
	}
	space, ok1 := extent(a.N*b, a.Groups, a.GroupSpace, a.Rows, a.SpaceStride)
	depth, ok2 := extent(lane+a.N, a.Groups, a.GroupDepth, a.Rows, a.DepthStride)
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
	space, ok1 := extent(a.N*a.B, a.Groups, a.GroupSpace, a.Rows, a.SpaceStride)
	depth, ok2 := extent(a.N, a.Groups, a.GroupDepth, a.Rows, a.DepthStride, a.B, a.Lane)
	if !ok || !ok1 || !ok2 || space > len(a.Space) || depth > len(a.Depth) {
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
	dst, ok1 := extent(a.E, a.Groups, a.DstGroup, a.Rows, a.DstRow, a.W, a.DstX)
	src, ok2 := extent(a.E, a.Groups, a.SrcGroup, a.Rows, a.SrcRow, a.W, a.SrcX)
	if !ok1 || !ok2 || a.E < 16 || dst > len(a.Dst) || src > len(a.Src) {
		panic(outside(name(f), dst, src, len(a.Dst), len(a.Src), *a))
	}
	f.call(a)
}

// dryRun reports the name of kernel f if report is set, and says so.
func dryRun(f any, report func(kernel string)) bool {
	if report == nil {
		return false
	}
	report(name(f))
	return true
}

// extent is how many bytes from its start a kernel's loops reach on one
// side: last, the bytes of the innermost item, plus (count-1)*stride for
// each (count, stride) pair of loops around it. ok is false if a count is
// below 1, a stride or last negative, or the sum does not fit in an int.
func extent(last int, loops ...int) (n int, ok bool) {
	if last < 0 {
		return 0, false
	}
	n = last
	for i := 0; i < len(loops); i += 2 {
		count, stride := loops[i], loops[i+1]
		if count < 1 || stride < 0 {
			return 0, false
		}
		hi, lo := bits.Mul64(uint64(count-1), uint64(stride))
		if hi != 0 || lo > uint64(math.MaxInt-n) {
			return 0, false
		}
		n += int(lo)
	}
	return n, true
}

// outside is the message of a call that would reach outside its slices.
func outside(kernel string, n0, n1, len0, len1 int, args any) string {
	return fmt.Sprintf("simd: %s would reach %d and %d bytes into slices of %d and %d bytes: %+v", kernel, n0, n1, len0, len1, args)
}
