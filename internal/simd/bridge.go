package simd

import (
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// kernels are one ISA's kernels for elements of type T, as the engine calls
// them: calls its table has kernels for go there, the rest back to the
// engine, which gives them to the generic tier.
type kernels[T engine.Word] struct{ t *Table }

// Run implements engine.Kernels. Plans count in elements, kernels in bytes.
func (k kernels[T]) Run(op shape.Op, kind engine.Kind, space, depth []T, a engine.Args) bool {
	if a.Unit != 1 {
		return false
	}
	w := int(unsafe.Sizeof(*new(T)))
	s, d := engine.Bytes(space), engine.Bytes(depth)
	switch kind {
	case engine.Interleave:
		return k.t.interleave(key{unzip: op == shape.SpaceToDepth, stream: a.Streaming, w: w, b: a.B}, &LaneArgs{
			Space: s, Depth: d, N: a.W * w, Rows: a.Rows, SpaceStride: a.SpaceStride * w, DepthStride: a.DepthStride * w,
			Lane: a.JS * w, Groups: a.Groups, GroupSpace: a.GroupSpace * w, GroupDepth: a.GroupDepth * w, Report: a.Report, Bind: a.Bind,
		})
	case engine.Runs:
		return !a.Contiguous() && k.runs(op, s, d, &a, w)
	}
	return k.transpose(op, s, d, &a, w)
}

// runs runs a Runs call with kernels of the table, if its runs suit them. A
// group holding all b block rows is a zip in disguise: the depth row
// interleaves, pixel by pixel, the runs of the b space rows. Short runs
// therefore go to the lane kernels with runs as elements and the roles of
// the two sides swapped (the depth row is the interleaved side, the space
// rows are the lanes); runs of 16 bytes or more are copied with vector
// moves.
func (k kernels[T]) runs(op shape.Op, space, depth []byte, a *engine.Args, w int) bool {
	e := a.B * a.Cp * w // bytes per run
	if e <= 16 && a.Rows == a.B && a.DepthStride == a.B*a.Cp && a.XS == a.B*a.B*a.Cp &&
		k.t.interleave(key{unzip: op == shape.DepthToSpace, stream: a.Streaming, w: e, b: a.B}, &LaneArgs{
			Space: depth, Depth: space, N: a.W * e, Rows: 1, Lane: a.SpaceStride * w,
			Groups: a.Groups, GroupSpace: a.GroupDepth * w, GroupDepth: a.GroupSpace * w, Report: a.Report, Bind: a.Bind,
		}) {
		return true
	}
	if e < 16 {
		return false
	}
	c := CopyArgs{
		Dst: space, Src: depth, E: e, W: a.W, DstX: e, SrcX: a.XS * w, Rows: a.Rows,
		DstRow: a.SpaceStride * w, SrcRow: a.DepthStride * w, Groups: a.Groups,
		DstGroup: a.GroupSpace * w, SrcGroup: a.GroupDepth * w, Report: a.Report, Bind: a.Bind,
	}
	if op == shape.SpaceToDepth {
		c.Dst, c.Src, c.DstX, c.SrcX = c.Src, c.Dst, c.SrcX, c.DstX
		c.DstRow, c.SrcRow, c.DstGroup, c.SrcGroup = c.SrcRow, c.DstRow, c.SrcGroup, c.DstGroup
	}
	k.t.copyRuns(a.Streaming, &c)
	return true
}

// transpose runs a Transpose call (NHWC CRD). Small pixels have transposing
// lane kernels, whose lanes are the b space rows of a group and whose
// interleaved side is its depth row, and streaming twins for rows of
// whole chunks. Without one, with b = 2 and C'
// elements of 16 bytes or more per pixel and block row, every depth pixel
// is an unzip (zip for SpaceToDepth) by 4: its channels c*4 + i*2 + j are
// 4 interleaved lanes of C' elements, lane (i, j) going to space row i at
// j*C', and each pixel is one kernel row (the tables leave out the
// transposing kernels this path beats: asmgen/table's beatsLanes). Pixels
// too large for either go to zipsByChannel.
func (k kernels[T]) transpose(op shape.Op, space, depth []byte, a *engine.Args, w int) bool {
	if a.Rows != a.B || a.B > MaxBlock {
		return false
	}
	d2s, cpw := op == shape.DepthToSpace, a.Cp*w
	if k.t.lanes(key{unzip: d2s, stream: a.Streaming, w: w, b: a.B, cp: a.Cp}, &LaneArgs{
		Space: depth, Depth: space, N: a.W * a.B * cpw, Rows: 1, Lane: a.SpaceStride * w,
		LaneI: k.t.Split[a.B] * a.SpaceStride * w, Groups: a.Groups, GroupSpace: a.GroupDepth * w, GroupDepth: a.GroupSpace * w,
		Report: a.Report, Bind: a.Bind,
	}) {
		return true
	}
	if a.B == 2 && k.t.lanes(key{unzip: d2s, stream: a.Streaming, w: w, b: 4}, &LaneArgs{
		Space: depth, Depth: space, N: cpw, Rows: a.W, SpaceStride: a.XS * w, DepthStride: 2 * cpw, Lane: cpw,
		LaneI: a.SpaceStride * w, Groups: a.Groups, GroupSpace: a.GroupDepth * w, GroupDepth: a.GroupSpace * w,
		Report: a.Report, Bind: a.Bind,
	}) {
		return true
	}
	return k.zipsByChannel(op, space, depth, a, w)
}

// zipsByChannel runs a Transpose call as zips by C': in block row i, a
// pixel's space elements (j, c) interleave C' lanes, lane c holding the b
// depth elements (c, i, j), j < b, which lie together. Each pixel is a
// kernel row of b elements per lane, one kernel call per block row. It
// serves the pixels that outgrow the transposing kernels, such as b = 4,
// C' = 3 with 8-byte elements (384 bytes), whose lanes of 32 bytes fill a
// register.
func (k kernels[T]) zipsByChannel(op shape.Op, space, depth []byte, a *engine.Args, w int) bool {
	if a.Cp > MaxBlock {
		return false
	}
	for i := range a.B {
		ok := k.t.interleave(key{unzip: op == shape.SpaceToDepth, stream: a.Streaming, w: w, b: a.Cp}, &LaneArgs{
			Space: space[i*a.SpaceStride*w:], Depth: depth[i*a.DepthStride*w:], N: a.B * w, Rows: a.W,
			SpaceStride: a.B * a.Cp * w, DepthStride: a.XS * w, Lane: a.CS * w,
			Groups: a.Groups, GroupSpace: a.GroupSpace * w, GroupDepth: a.GroupDepth * w, Report: a.Report, Bind: a.Bind,
		})
		if !ok || a.Report != nil { // the same kernel serves every i, or none does
			return ok
		}
	}
	return true
}
