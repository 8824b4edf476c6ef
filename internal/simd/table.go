// Package simd plans calls for the assembly kernels of package kernels:
// each ISA's kernel table, the choice of kernel for a row call or a whole
// short call, and the checks that a kernel call stays inside its tensors,
// made when the call is planned, before any assembly runs.
//
// Package kernels holds only generated code and exports nothing: its
// tables register here at init (Register), which makes each the kernels of
// a tier of the engine. The kernel families' Go side (families.go: the
// tables' type, the signatures' types) and the trampolines that call a
// kernel by the address of its entry word (trampolines*.go) are generated
// from the same description as the assembly (asmgen/table); every call
// into assembly is a Call of its family, made only by the checks in
// check.go.
package simd

import (
	"runtime"
	"strings"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// An Entry is a kernel of a list of a table (the lane kernels, the tile
// kernels): the word holding its entry address, what it moves, and the
// shortest row, in bytes, it takes. Lane kernels zip or unzip B lanes of
// W-byte elements, a regrouping one's pixels holding Cp channels; a tile
// kernel transposes tiles of B rows of Chunk bytes of W-byte words. NT
// marks a streaming twin, which writes with non-temporal stores.
type Entry[F any] struct {
	F               *F
	B, Cp, W, Chunk uint8
	Unzip, NT       bool
	MinN            uint16
}

// LaneKernel and TileKernel are the entries of the lane and tile kernels.
type (
	LaneKernel = Entry[LaneFunc]
	TileKernel = Entry[TileFunc]
)

// fill gives each slot of fs that holds no function base's in the same
// slot: how a table inherits its base's indexed kernels (inherit), in one
// loop, where a loop a slot took 320 bytes more of every binary.
func fill[F any](fs, base []*F) {
	for i, f := range base {
		if fs[i] == nil {
			fs[i] = f
		}
	}
}

// laneKey says which lane kernel a call needs; a tier's Kernels keep
// their lane kernels sorted by it.
type laneKey struct {
	unzip  bool // from the interleaved side to the lanes
	nt     bool // with non-temporal stores
	b, cp  int  // lanes, and C' of a regrouping kernel (0 for the others)
	w      int  // element bytes
	stream bool // the call's output may be written around the caches
}

// rank orders lane kernels, and the keys that look them up, by unzip,
// nt, b, cp and w, in one int (one comparison, where five took 700
// bytes more of every binary): -1 for a key that no kernel has, a count
// beyond a byte, as an Entry holds them.
func (k laneKey) rank() int {
	if uint(k.b|k.cp|k.w) > 255 {
		return -1
	}
	return k.w | k.cp<<8 | k.b<<16 | bit(k.nt)<<24 | bit(k.unzip)<<25
}

// rankOf is the rank of lane kernel k's key.
func rankOf(k LaneKernel) int {
	return laneKey{unzip: k.Unzip, nt: k.NT, b: int(k.B), cp: int(k.Cp), w: int(k.W)}.rank()
}

func bit(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Register makes t, with its base merged in, the kernels of the tier of
// the ISA of the given name. The generated tables of package kernels call
// it at init.
func Register(name string, t *Table) {
	t.isa = isa.Named(name)
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
