// Package simd plans calls for the assembly kernels of package kernels:
// each ISA's kernel table, the choice of kernel for a row call or a whole
// short call, and the checks that a kernel call stays inside its tensors,
// made when the call is planned, before any assembly runs.
//
// Package kernels holds only generated code and exports nothing: its
// tables register here at init (Register), which makes each the kernels of
// a tier of the engine. The kernels' Go signatures (signatures.go) and the
// trampolines that call a kernel by the address of its entry word
// (trampolines*.go) are generated from the same table as the assembly;
// every call into assembly is a Call of its family, made only by the checks
// in check.go.
package simd

import (
	"cmp"
	"runtime"
	"slices"
	"strings"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// Table is one ISA's kernels, as generated; a nil function has no
// kernel. Register merges it with its base's into its tier's Kernels.
//
// Lanes are the lane kernels: zips and unzips of b lanes of w-byte
// elements, the transposing ones of NHWC CRD (Cp > 0: lane i, a space row,
// holds per pixel elements (j, c) for j < b, c < Cp, which the interleaved
// side, a depth row, holds as channels c*b*b + i*b + j), and their
// streaming twins (NT: non-temporal stores, for outputs that cannot stay in
// cache, on rows of whole chunks, MinN bytes, whose every output address is
// 32-byte aligned); sorted by laneKey. ZipN and UnzipN take 16-byte
// elements and any block size. Split[b] says how the lanes of a b-lane
// kernel are addressed: lane j starts (j/Split[b])*laneI + (j%Split[b])*lane
// bytes after the row's depth address.
type Table struct {
	Lanes        []LaneKernel
	ZipN, UnzipN *AnyBFunc
	CopyRuns     *CopyFunc
	CopyRunsNT   *CopyFunc // CopyRuns with non-temporal stores: e a multiple of 32, dst addresses 32-byte aligned
	StreamRuns   *StreamFunc
	Split        [MaxBlock + 1]int

	// Gather[g] is the gather kernel of g groups of windows per vector,
	// which read their windows as the ISA's isa.Windows says.
	Gather [MaxGroups + 1]*GatherFunc

	// StackZip[g] and StackUnzip[g] are the stacked-row kernels of NCHW
	// DepthToSpace and SpaceToDepth of b = 2 (internal/stack), whose
	// permutes move grains of g bytes, for elements of a multiple of g
	// bytes; without byte permutes those of g = 1 move pairs.
	StackZip, StackUnzip [MaxStackGrain + 1]*StackFunc

	// BundleZip[w] and BundleUnzip[w] are the bundle kernels of NCHW
	// DepthToSpace and SpaceToDepth of b = 2 (internal/stack's Bundles), for
	// w-byte elements.
	BundleZip, BundleUnzip [MaxBundleWidth + 1]*BundleFunc

	// Tiles[w] are the tile kernels of w-byte words (general
	// transposes), the largest tile first.
	Tiles [MaxTileWidth + 1][]TileKernel

	// Base, if not nil, serves what this table has no kernel for, and rows
	// too short for its kernels (complete).
	Base *Table

	isa *isa.ISA // set by Register
}

// LaneKernel is a lane kernel, what it moves and the shortest lane, in
// bytes, it takes.
type LaneKernel struct {
	F         *LaneFunc
	B, Cp, W  uint8
	Unzip, NT bool
	MinN      uint16
}

// TileKernel is a tile kernel and its tile: B rows of Chunk bytes.
type TileKernel struct {
	F        *TileFunc
	B, Chunk int
	// NT, if not nil, is F's twin that writes with non-temporal stores:
	// every column of a tile is one 64-byte store, which must be aligned.
	NT *TileFunc
}

// laneKey says which lane kernel a call needs; Table.Lanes are sorted by
// it.
type laneKey struct {
	unzip  bool // from the interleaved side to the lanes
	nt     bool // with non-temporal stores
	b, cp  int  // lanes, and C' of a transposing kernel (0 for the others)
	w      int  // element bytes
	stream bool // the call's output may be written around the caches
}

func (k LaneKernel) key() laneKey {
	return laneKey{unzip: k.Unzip, nt: k.NT, b: int(k.B), cp: int(k.Cp), w: int(k.W)}
}

func compareKeys(a, b laneKey) int {
	return cmp.Or(cmpBool(a.unzip, b.unzip), cmpBool(a.nt, b.nt), cmp.Compare(a.b, b.b), cmp.Compare(a.cp, b.cp), cmp.Compare(a.w, b.w))
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// Register makes t, with its base merged in, the kernels of the tier of
// the ISA of the given name. The generated tables of package kernels call
// it at init.
func Register(name string, t *Table) {
	t.isa = isa.Named(name)
	if !slices.IsSortedFunc(t.Lanes, func(a, b LaneKernel) int { return compareKeys(a.key(), b.key()) }) {
		panic("simd: the lane kernels of " + name + " are not sorted")
	}
	tables[name] = t
	engine.Register(&engine.Kit{Name: t.isa.TierName, Kernels: complete(t)})
}

// tables are the tables registered, by ISA.
var tables = map[string]*Table{}

// TableOf returns the table of the ISA of the given name as generated,
// or nil where this build has none: for the kernel tests, which run
// each kernel of each table.
func TableOf(name string) *Table { return tables[name] }

// KernelsOf returns the kernels of the tier of the ISA of the given name,
// or nil where this build has none.
func KernelsOf(name string) *Kernels {
	i := isa.Named(name)
	if i == nil {
		return nil
	}
	t := engine.Lookup(i.TierName)
	if t == nil {
		return nil
	}
	k, _ := t.Kernels.(*Kernels)
	return k
}

// name is the name of a kernel, as Describe reports it.
func name[F ~uintptr](f *F) string {
	full := runtime.FuncForPC(uintptr(*f)).Name()
	return full[strings.LastIndexByte(full, '.')+1:]
}
