package simd

import (
	"github.com/blockshuffle/blockshuffle/internal/engine"
)

// Row implements engine.Kernels: the call of the kernel that moves one
// row call with w-byte elements, or nil where the table, its base
// included, has none. Plans count in elements, kernels in bytes; an
// element of several words is one word of its size here, which the run
// copiers and the lane kernels of runs (a 3-byte pixel is a run of three
// bytes) may take.
func (t *Kernels) Row(toDepth bool, kind engine.Kind, space, depth engine.Span, a *engine.Args, w int) engine.Call {
	if u := a.Words; u != 1 {
		e := a.In(w, w*u)
		a, w = &e, w*u
	}
	switch kind {
	case engine.Interleave:
		return t.interleave(laneKey{unzip: toDepth, stream: a.Streaming, w: w, b: a.B}, LaneArgs{
			Space: space, Depth: depth, N: a.W * w, Rows: a.Rows, SpaceStride: a.SpaceStride * w, DepthStride: a.DepthStride * w,
			Lane: a.JS * w, Groups: a.Groups, GroupSpace: a.GroupSpace * w, GroupDepth: a.GroupDepth * w,
		})
	case engine.Runs:
		if a.Contiguous() {
			return nil // one copy: the generic tier's
		}
		return t.runs(toDepth, space, depth, a, w)
	}
	return t.regroup(toDepth, space, depth, a, w)
}

// interleave is the call of the kernel for b evenly spaced lanes of
// w-byte elements (it sets a.LaneI), if the table has one and a.N is long
// enough for it: with non-temporal stores where k.stream is set and the
// output allows, and for 16-byte elements at any b.
func (t *Kernels) interleave(k laneKey, a LaneArgs) engine.Call {
	if c := t.evenLanes(k, a); c != nil {
		return c
	}
	if k.w != 16 || a.N < 16 {
		return nil
	}
	f := t.ZipN
	if k.unzip {
		f = t.UnzipN
	}
	if f == nil {
		return nil
	}
	return f.Call(AnyBArgs{
		Space: a.Space, Depth: a.Depth, N: a.N, Rows: a.Rows, SpaceStride: a.SpaceStride, DepthStride: a.DepthStride,
		Lane: a.Lane, Groups: a.Groups, GroupSpace: a.GroupSpace, GroupDepth: a.GroupDepth, B: k.b,
	})
}

// evenLanes is interleave by the kernels of b lanes only, not the
// kernels of any b (16-byte elements), which move a lane at a time.
func (t *Kernels) evenLanes(k laneKey, a LaneArgs) engine.Call { return t.splitLanes(k, 0, 0, a) }

// lanes is interleave for lanes addressed in two levels, as Table says,
// for the block sizes with their own kernels, and the transposing kernels
// (k.cp > 0). A streaming kernel takes rows of whole chunks (its MinN, a
// multiple of 32 bytes) whose output strides are multiples of 32: where
// the output's address is too when the call runs, it runs, else its
// ordinary twin.
func (t *Kernels) lanes(k laneKey, a LaneArgs) engine.Call {
	if k.b > MaxBlock || k.w > MaxWidth || k.cp > MaxCp {
		return nil
	}
	c := t.call(k, a)
	if c == nil {
		return nil
	}
	var plain engine.Call = c
	if !k.stream || a.N%32 != 0 {
		return plain
	}
	out, strides := a.Space, []int{a.SpaceStride, a.GroupSpace}
	if k.unzip {
		out, strides = a.Depth, []int{a.Lane, a.LaneI, a.DepthStride, a.GroupDepth}
	}
	for _, s := range strides {
		if s%32 != 0 {
			return plain
		}
	}
	nk := k
	nk.nt = true
	for _, nt := range t.lanesOf(nk) {
		if a.N%int(nt.MinN) == 0 {
			return &engine.Aligned{A: out, Mask: 31, Then: nt.F.Call(a, k.b, Split[k.b]), Else: plain}
		}
	}
	return plain
}

// call is the call of the kernel for key k: the table's if it has one and
// a.N is long enough for it, else its base's; or nil.
func (t *Kernels) call(k laneKey, a LaneArgs) *LaneCall {
	for _, l := range t.lanesOf(k) {
		if a.N >= int(l.MinN) {
			return l.F.Call(a, k.b, Split[k.b])
		}
	}
	return nil
}

// runs is the call of a Runs call with kernels of the table, if its runs
// suit them. A group holding all b block rows is a zip in disguise: the
// depth row interleaves, pixel by pixel, the runs of the b space rows.
// Short runs therefore go to the lane kernels with runs as elements and
// the roles of the two sides swapped (the depth row is the interleaved
// side, the space rows are the lanes); runs of 16 bytes or more are copied
// with vector moves.
func (t *Kernels) runs(toDepth bool, space, depth engine.Span, a *engine.Args, w int) engine.Call {
	e := a.B * a.Cp * w // bytes per run
	if e <= 16 && a.Rows == a.B && a.DepthStride == a.B*a.Cp && a.XS == a.B*a.B*a.Cp {
		if c := t.interleave(laneKey{unzip: !toDepth, stream: a.Streaming, w: e, b: a.B}, LaneArgs{
			Space: depth, Depth: space, N: a.W * e, Rows: 1, Lane: a.SpaceStride * w,
			Groups: a.Groups, GroupSpace: a.GroupDepth * w, GroupDepth: a.GroupSpace * w,
		}); c != nil {
			return c
		}
	}
	if e < 16 {
		return nil
	}
	c := CopyArgs{
		Dst: space, Src: depth, E: e, W: a.W, DstX: e, SrcX: a.XS * w, Rows: a.Rows,
		DstRow: a.SpaceStride * w, SrcRow: a.DepthStride * w, Groups: a.Groups,
		DstGroup: a.GroupSpace * w, SrcGroup: a.GroupDepth * w,
	}
	if toDepth {
		c.reverse()
	}
	return t.copyRuns(a.Streaming, c)
}

// regroup is the call of a Regroup call (NHWC CRD). Small pixels have
// transposing lane kernels, whose lanes are the b space rows of a group
// and whose interleaved side is its depth row, and streaming twins for
// rows of whole chunks. Without one, with b = 2 and C' elements of 16
// bytes or more per pixel and block row, every depth pixel is an unzip
// (zip for SpaceToDepth) by 4: its channels c*4 + i*2 + j are 4
// interleaved lanes of C' elements, lane (i, j) going to space row i at
// j*C', and each pixel is one kernel row (the tables leave out the
// transposing kernels this path beats: asmgen/table's beatsLanes). Pixels
// too large for either go to zipsByChannel.
func (t *Kernels) regroup(toDepth bool, space, depth engine.Span, a *engine.Args, w int) engine.Call {
	if a.Rows != a.B || a.B > MaxBlock {
		return nil
	}
	d2s, cpw := !toDepth, a.Cp*w
	if c := t.lanes(laneKey{unzip: d2s, stream: a.Streaming, w: w, b: a.B, cp: a.Cp}, LaneArgs{
		Space: depth, Depth: space, N: a.W * a.B * cpw, Rows: 1, Lane: a.SpaceStride * w,
		LaneI: Split[a.B] * a.SpaceStride * w, Groups: a.Groups, GroupSpace: a.GroupDepth * w, GroupDepth: a.GroupSpace * w,
	}); c != nil {
		return c
	}
	if a.B == 2 {
		if c := t.lanes(laneKey{unzip: d2s, stream: a.Streaming, w: w, b: 4}, LaneArgs{
			Space: depth, Depth: space, N: cpw, Rows: a.W, SpaceStride: a.XS * w, DepthStride: 2 * cpw, Lane: cpw,
			LaneI: a.SpaceStride * w, Groups: a.Groups, GroupSpace: a.GroupDepth * w, GroupDepth: a.GroupSpace * w,
		}); c != nil {
			return c
		}
	}
	return t.zipsByChannel(toDepth, space, depth, a, w)
}

// zipsByChannel is the call of a Regroup call as zips by C': in block
// row i, a pixel's space elements (j, c) interleave C' lanes, lane c
// holding the b depth elements (c, i, j), j < b, which lie together. Each
// pixel is a kernel row of b elements per lane; elements of 16 bytes or
// more go to the run copier instead, one at a time, space in order. It
// serves the pixels that outgrow the transposing kernels, such as b = 4,
// C' = 3 with 8-byte elements (384 bytes), whose lanes of 32 bytes fill a
// register. A group's b block rows go one after another, so that its
// depth row, which each of them reads a b-th of, stays in the cache: taken
// block row by block row over the whole tensor, DepthToSpace b = 3 of
// 16-byte elements (1x27x224x224) ran at 0.56 of a non-streaming copy,
// group by group at 0.8.
func (t *Kernels) zipsByChannel(toDepth bool, space, depth engine.Span, a *engine.Args, w int) engine.Call {
	e := a.Words * w
	row := *a
	row.Groups, row.Rows = 1, 1
	sn, dn := row.Spans() // words of a block row
	rows := make(engine.Calls, a.B)
	for i := range rows {
		s := engine.Span{Off: space.Off + i*a.SpaceStride*w, Len: sn * w}
		d := engine.Span{Off: depth.Off + i*a.DepthStride*w, Len: dn * w, Depth: true}
		if e >= 16 {
			c := CopyArgs{Dst: s, Src: d, E: e, W: a.Cp, DstX: e, SrcX: a.CS * w, Rows: a.B, DstRow: a.Cp * e, SrcRow: a.JS * w,
				Groups: a.W, DstGroup: a.B * a.Cp * e, SrcGroup: a.XS * w}
			if toDepth {
				c.reverse()
			}
			rows[i] = t.copyRuns(false, c)
			continue
		}
		if a.Cp > MaxBlock {
			return nil
		}
		rows[i] = t.interleave(laneKey{unzip: toDepth, stream: a.Streaming, w: w, b: a.Cp}, LaneArgs{
			Space: s, Depth: d, N: a.B * w, Rows: a.W, SpaceStride: a.B * a.Cp * w, DepthStride: a.XS * w, Lane: a.CS * w, Groups: 1,
		})
		if rows[i] == nil { // the same kernel serves every i, or none does
			return nil
		}
	}
	return &engine.Repeat{N: a.Groups, SpaceStep: a.GroupSpace * w, DepthStep: a.GroupDepth * w, Call: rows}
}

// reverse turns a copy of runs around, src to dst: SpaceToDepth's runs
// from DepthToSpace's.
func (a *CopyArgs) reverse() {
	a.Dst, a.Src, a.DstX, a.SrcX = a.Src, a.Dst, a.SrcX, a.DstX
	a.DstRow, a.SrcRow, a.DstGroup, a.SrcGroup = a.SrcRow, a.DstRow, a.SrcGroup, a.DstGroup
}

// copyRuns is the call of the tier's run copier (its base's for the runs
// baseCopies names), streaming where the runs allow if stream is set: the
// copier's streaming twin where every run is whole 32-byte stores, taking
// the runs pixel by pixel on the depth side, and its output 32-byte
// aligned when it runs; else the streaming run copier where the runs of a
// group tile one block of dst, 4-byte aligned when it runs; else the
// copier.
func (t *Kernels) copyRuns(stream bool, a CopyArgs) engine.Call {
	var c engine.Call = t.copierOf(a.E).Call(a)
	if !stream {
		return c
	}
	if sa, ok := streamed(a); ok && t.StreamRuns != nil {
		c = &engine.Aligned{A: sa.Dst, Mask: 3, Then: t.StreamRuns.Call(sa), Else: c}
	}
	if p := pixelMajor(a); t.ntRuns(p) {
		return &engine.Aligned{A: p.Dst, Mask: 31, Then: t.CopyRunsNT.Call(p), Else: c}
	}
	return c
}

// ntRuns reports whether the run copier's streaming twin takes runs a,
// 32-byte aligned where dst is.
func (t *Kernels) ntRuns(a CopyArgs) bool {
	return a.E%32 == 0 && a.DstX%32 == 0 && a.DstRow%32 == 0 && a.DstGroup%32 == 0 && t.CopyRunsNT != nil
}

// streamed returns a call as the streaming run copier takes it, or false
// if it does not suit it: runs of whole dwords, 32 bytes or more, that
// tile each group's block of dst, taken row by row or, where dst holds
// each pixel's runs back to back (SpaceToDepth), pixel by pixel.
func streamed(a CopyArgs) (StreamArgs, bool) {
	if a.E < 32 || a.E%4 != 0 || a.DstGroup%4 != 0 {
		return StreamArgs{}, false
	}
	for _, s := range []StreamArgs{StreamArgs(a), StreamArgs(pixelMajor(a))} {
		if s.DstX == s.E && s.DstRow == s.W*s.E {
			return s, true
		}
	}
	return StreamArgs{}, false
}

// copierOf is the run copier of runs of e bytes: the tier's, or its
// base's where baseCopies says.
func (t *Kernels) copierOf(e int) *CopyFunc {
	if t.baseCopier != nil && baseCopies(e) {
		return t.baseCopier
	}
	return t.CopyRuns
}

// pixelMajor returns a call that takes the same runs pixel by pixel where
// one side holds each pixel's runs back to back, run x of row r at
// (x*rows + r)*e (the depth side of NHWC DCR): its rows become the runs
// of one pixel, its runs the pixels. Out of the caches this order pays: a
// 64 MiB DepthToSpace of 256-byte runs (1x64x270x480 b2 8-byte) ran at 20
// GB/s instead of 12 on a Zen 4, as fast as copy().
func pixelMajor(a CopyArgs) CopyArgs {
	if engine.BackToBack(a.E, a.Rows, a.SrcX, a.SrcRow) || engine.BackToBack(a.E, a.Rows, a.DstX, a.DstRow) {
		a.W, a.Rows = a.Rows, a.W
		a.DstX, a.DstRow = a.DstRow, a.DstX
		a.SrcX, a.SrcRow = a.SrcRow, a.SrcX
	}
	return a
}
