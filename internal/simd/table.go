// Package simd runs the assembly kernels of package kernels: each ISA's
// kernel table, the choice of kernel for a row call, and the checks that a
// call stays inside its slices before any assembly runs.
//
// Package kernels holds only generated code and exports nothing: its
// tables register here at init (Register), which makes them the tiers of
// the engine that package dispatch chooses among. The kernels' Go
// signatures (signatures.go) are generated from the same table as the
// assembly; everything that calls them goes through the Args structs,
// whose slices the checks in check.go measure the call against.
package simd

import (
	"reflect"
	"runtime"
	"strings"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// Table is one ISA's kernels; a nil F has no kernel.
//
// Zip[b][w] and Unzip[b][w] are the lane kernels for b lanes of w-byte
// elements; ZipNT and UnzipNT do the same with non-temporal stores, for
// outputs that cannot stay in cache, on rows of a multiple of 32 bytes
// whose every output address is 32-byte aligned. TZip[b][cp][w] and
// TUnzip[b][cp][w] are the transposing lane kernels of NHWC CRD: lane i (a
// space row) holds, per pixel, elements (j, c) for j < b, c < cp, which the
// interleaved side (a depth row) holds per pixel as channels c*b*b + i*b +
// j. ZipN and UnzipN take 16-byte elements and any block size. Split[b]
// says how the lanes of a b-lane kernel are addressed: lane j starts
// (j/Split[b])*laneI + (j%Split[b])*lane bytes after the row's depth
// address.
type Table struct {
	Zip, Unzip     LaneKernels
	ZipNT, UnzipNT LaneKernels
	TZip, TUnzip   TransposeKernels
	TZipNT         TransposeKernels // TZip with non-temporal stores: rows of whole chunks (MinN), output 32-byte aligned
	TUnzipNT       TransposeKernels
	ZipN, UnzipN   AnyBFunc
	CopyRuns       CopyFunc
	CopyRunsNT     CopyFunc // CopyRuns with non-temporal stores: e a multiple of 32, dst addresses 32-byte aligned
	StreamRuns     StreamFunc
	Split          [MaxBlock + 1]int

	// Gather[g] is the gather kernel of g groups of windows per vector,
	// which read their windows as the ISA's isa.Windows says (windows,
	// set by Register).
	Gather  [MaxGroups + 1]GatherFunc
	windows isa.Windows

	// StackZip[u] and StackUnzip[u] are the stacked-row kernels of NCHW
	// DepthToSpace and SpaceToDepth of b = 2 (internal/stack), for
	// elements of a multiple of u bytes; without byte permutes
	// (bytePermutes, set by Register) those of u = 1 move pairs.
	StackZip, StackUnzip StackKernels
	bytePermutes         bool

	// UnitZip[w] and UnitUnzip[w] are the row-unit kernels of NCHW
	// DepthToSpace and SpaceToDepth of b = 2 (internal/stack's Rows),
	// for w-byte elements.
	UnitZip, UnitUnzip UnitKernels

	// Base, if not nil, runs what this table has no kernel for, and rows
	// too short for its kernels.
	Base *Table
}

// LaneKernel is a lane kernel and the shortest lane, in bytes, it takes.
type LaneKernel struct {
	F    LaneFunc
	MinN int
}

var tables = map[string]*Table{}

// Register makes t the table of the ISA of the given name, and its tier
// an implementation the engine can run. The generated tables of package
// kernels call it at init.
func Register(name string, t *Table) {
	tables[name] = t
	t.windows = isa.Lookup(name).Windows
	t.bytePermutes = isa.Lookup(name).BytePermutes
	c := chosen(t)
	engine.Register(&engine.Impl{
		Tier:  isa.Lookup(name).Tier,
		Short: c.short,
		W1:    kernels[uint8]{c},
		W2:    kernels[uint16]{c},
		W4:    kernels[uint32]{c},
		W8:    kernels[uint64]{c},
		W16:   kernels[[2]uint64]{c},
	})
}

// chosen is the table calls use on this CPU: t itself, or, where
// isa.BaseZip says the base's zips run faster here, a copy of t that
// leaves those to its base. Lookup keeps returning t, so that the kernel
// tests run every kernel on every CPU.
func chosen(t *Table) *Table {
	if t.Base == nil {
		return t
	}
	c := *t
	for b := range c.Zip {
		for w := range c.Zip[b] {
			if isa.BaseZip(b, w) {
				c.Zip[b][w] = LaneKernel{}
			}
			if k := &c.Unzip[b][w]; k.F != nil {
				k.MinN = max(k.MinN, isa.BaseUnzipBelow(b, w))
			}
		}
	}
	return &c
}

// Lookup returns the table of the ISA of the given name, or nil where this
// build has none.
func Lookup(name string) *Table { return tables[name] }

// key says which lane kernel a call needs.
type key struct {
	unzip  bool // from the interleaved side to the lanes
	stream bool // the output may be written around the caches
	w, b   int  // element bytes and lanes
	cp     int  // C' of a transposing kernel; 0 for the others
}

// interleave runs the kernel for b evenly spaced lanes of w-byte elements
// (it sets a.LaneI), if the table has one and a.N is long enough for it,
// and reports whether it did: with non-temporal stores where k.stream is
// set and the output allows, and for 16-byte elements at any b.
func (t *Table) interleave(k key, a *LaneArgs) bool {
	if k.b <= MaxBlock {
		a.LaneI = t.Split[k.b] * a.Lane
		if t.lanes(k, a) {
			return true
		}
	}
	if k.w != 16 || a.N < 16 {
		return false
	}
	for s := t; s != nil; s = s.Base {
		f := s.ZipN
		if k.unzip {
			f = s.UnzipN
		}
		if f != nil {
			f.Run(&AnyBArgs{
				Space: a.Space, Depth: a.Depth, N: a.N, Rows: a.Rows, SpaceStride: a.SpaceStride, DepthStride: a.DepthStride,
				Lane: a.Lane, Groups: a.Groups, GroupSpace: a.GroupSpace, GroupDepth: a.GroupDepth, B: k.b, Report: a.Report, Bind: a.Bind,
			})
			return true
		}
	}
	return false
}

// lanes is interleave for lanes addressed in two levels, as Table says,
// for the block sizes with their own kernels, and the transposing kernels
// (k.cp > 0). A streaming kernel takes rows of whole chunks (its MinN,
// a multiple of 32 bytes) whose output is 32-byte aligned.
func (t *Table) lanes(k key, a *LaneArgs) bool {
	if k.b > MaxBlock || k.w > MaxWidth || k.cp > MaxCp {
		return false
	}
	if k.stream {
		aligned := a.N%32 == 0 && aligned32(a.Space, a.SpaceStride, a.GroupSpace)
		if k.unzip {
			aligned = a.N%32 == 0 && aligned32(a.Depth, a.Lane, a.LaneI, a.DepthStride, a.GroupDepth)
		}
		for s := t; aligned && s != nil; s = s.Base {
			if nt := s.lookup(k, true); nt.F != nil && a.N%nt.MinN == 0 && nt.try(a, k.b, s.Split[k.b]) {
				return true
			}
		}
	}
	return t.call(k, a)
}

// call runs the kernel for key k: this table's if it has one and a.N is
// long enough for it, else its base's. It reports whether a kernel ran.
func (t *Table) call(k key, a *LaneArgs) bool {
	for s := t; s != nil; s = s.Base {
		if s.lookup(k, false).try(a, k.b, s.Split[k.b]) {
			return true
		}
	}
	return false
}

// lookup returns the kernel for key k, its streaming twin if nt is set,
// or a LaneKernel with a nil F.
func (t *Table) lookup(k key, nt bool) LaneKernel {
	if k.b > MaxBlock || k.w > MaxWidth || k.cp > MaxCp {
		return LaneKernel{}
	}
	plain, trans := &t.Zip, &t.TZip
	switch {
	case k.unzip && nt:
		plain, trans = &t.UnzipNT, &t.TUnzipNT
	case k.unzip:
		plain, trans = &t.Unzip, &t.TUnzip
	case nt:
		plain, trans = &t.ZipNT, &t.TZipNT
	}
	if k.cp > 0 {
		return trans[k.b][k.cp][k.w]
	}
	return plain[k.b][k.w]
}

// copyRuns runs the table's run copier, streaming where the runs allow if
// stream is set: with the copier's streaming twin where every run is
// whole 32-byte stores, taking the runs pixel by pixel on the depth side;
// else with the streaming run copier where the runs of a group tile one
// block of dst.
func (t *Table) copyRuns(stream bool, a *CopyArgs) {
	if stream {
		p := pixelMajor(a)
		whole := p.E%32 == 0 && aligned32(p.Dst, p.DstX, p.DstRow, p.DstGroup)
		sa, tiles := streamed(a)
		for s := t; s != nil; s = s.Base {
			if whole && s.CopyRunsNT != nil {
				s.CopyRunsNT.Run(&p)
				return
			}
			if tiles && s.StreamRuns != nil {
				s.StreamRuns.Run(&sa)
				return
			}
		}
	}
	for t.Base != nil && baseRuns(a.E) {
		t = t.Base
	}
	t.CopyRuns.Run(a)
}

// pixelMajor returns a call that takes the same runs pixel by pixel where
// one side holds each pixel's runs back to back, run x of row r at
// (x*rows + r)*e (the depth side of NHWC DCR): its rows become the runs
// of one pixel, its runs the pixels. Out of the caches this order pays: a
// 64 MiB DepthToSpace of 256-byte runs (1x64x270x480 b2 8-byte) read the
// depth side in one pass instead of b and ran at 20 GB/s instead of 12
// on a Zen 4, as fast as copy(); its SpaceToDepth, writing the depth side
// in order, at 20 instead of 18.
func pixelMajor(a *CopyArgs) CopyArgs {
	p := *a
	if p.SrcX == p.Rows*p.E && p.SrcRow == p.E || p.DstX == p.Rows*p.E && p.DstRow == p.E {
		p.W, p.Rows = p.Rows, p.W
		p.DstX, p.DstRow = p.DstRow, p.DstX
		p.SrcX, p.SrcRow = p.SrcRow, p.SrcX
	}
	return p
}

// streamed returns a call as the streaming run copier takes it, or false
// if it does not suit it: runs of whole dwords, 32 bytes or more, that
// tile each group's block of dst, which starts on a dword, taken row by
// row or, where dst holds each pixel's runs back to back (SpaceToDepth),
// pixel by pixel.
func streamed(a *CopyArgs) (StreamArgs, bool) {
	if a.E < 32 || a.E%4 != 0 || uintptr(unsafe.Pointer(unsafe.SliceData(a.Dst)))%4 != 0 || a.DstGroup%4 != 0 {
		return StreamArgs{}, false
	}
	for _, s := range []StreamArgs{StreamArgs(*a), StreamArgs(pixelMajor(a))} {
		if s.DstX == s.E && s.DstRow == s.W*s.E {
			return s, true
		}
	}
	return StreamArgs{}, false
}

// baseRuns reports whether a table with a base copies runs of e bytes with
// the base's copier. Below a 64-byte register AVX-512's copier has only
// AVX2's 16- and 32-byte moves, and it moves a run of exactly 32 bytes
// twice (its head and its overlapping tail), where AVX2's moves it once:
// on a Zen 5, 1x16x64x64 NHWC DCR of 4-byte elements (runs of 32 bytes)
// ran at 0.39-0.40 of copy() with it and 0.48-0.50 with AVX2's. Between
// one and two registers it moves two 64-byte pieces that overlap by most
// of a register: 8-byte NHWC DCR b = 3 (runs of 72 bytes) ran at 0.48-0.50
// with it and 0.60-0.69 with AVX2's three 32-byte moves. Runs of exactly
// 64 bytes, one move, stay (1.12 against AVX2's 0.76).
func baseRuns(e int) bool { return e < 64 || e > 64 && e < 128 }

// try runs the kernel if there is one and a.N is long enough for it, and
// reports whether it did.
func (k LaneKernel) try(a *LaneArgs, b, split int) bool {
	if k.F == nil || a.N < k.MinN {
		return false
	}
	k.F.Run(a, b, split)
	return true
}

// aligned32 reports whether p's address and every stride are multiples of
// 32, so that every output address a kernel derives from them is.
func aligned32(p []byte, strides ...int) bool {
	if uintptr(unsafe.Pointer(unsafe.SliceData(p)))%32 != 0 {
		return false
	}
	for _, s := range strides {
		if s%32 != 0 {
			return false
		}
	}
	return true
}

// name is the name of a kernel, as Describe reports it.
func name(f any) string {
	full := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	return full[strings.LastIndexByte(full, '.')+1:]
}
