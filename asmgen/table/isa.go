package table

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// ISA is the Name of an instruction set of internal/isa. Everything the
// generators decide per ISA they read from its entry there (its vector
// width, its permutes, whether it streams), never from its name, so that
// an ISA is added by an entry and, for a new architecture, a back end.
type ISA string

// ISAs lists the instruction sets with kernels, in internal/isa's order.
func ISAs() []*isa.ISA {
	var out []*isa.ISA
	for i := range isa.All {
		if isa.All[i].Name != "" {
			out = append(out, &isa.All[i])
		}
	}
	return out
}

// desc is the ISA's entry in internal/isa.
func (i ISA) desc() *isa.ISA {
	d := isa.Named(string(i))
	if d == nil {
		panic(fmt.Sprintf("table: %s is not in internal/isa", i))
	}
	return d
}

// Windows is how the ISA's gather kernels read their sources; MaxGroups
// is 0 for an ISA without them.
func (i ISA) Windows() isa.Windows { return i.desc().Windows }

// streams reports whether an ISA's kernels have streaming twins.
func (i ISA) streams() bool { return i.desc().Streaming }

// TwoTable reports whether the ISA's kernels are permute programs over
// whole registers (internal/isa's TwoTable: AVX-512), rather than byte
// shuffles within 16-byte lanes (AVX2, NEON).
func (i ISA) TwoTable() bool { return i.desc().TwoTable }

// Vector is the bytes of the ISA's widest register.
func (i ISA) Vector() int { return i.desc().Vector }

// Base is the ISA that runs what an ISA has no kernel for, and rows too
// short for its kernels (internal/isa's Base): AVX2 under AVX-512. AVX2's
// kernels for 16-byte elements of any block size and its streaming twins
// gain nothing from wider registers (each element goes somewhere else;
// streaming is bound by memory); its byte shuffles serve AVX-512BW, which
// cannot permute bytes across a register; and its narrow chunks serve rows
// shorter than one 64-byte register, where masked AVX-512 passes measured
// slower.
func (i ISA) Base() ISA { return ISA(i.desc().Base) }

// has reports whether an ISA has a kernel for b lanes of w-byte elements
// (runs of w bytes, or NHWC CRD elements of w bytes): two-table permutes
// without byte permutes (AVX-512 BW) move grains of 2 bytes and more only,
// and 16-byte elements are moves, not permutes, beyond 4 lanes, where the
// lane shuffles' kernels (AVX2's) are as fast by llvm-mca.
func (i ISA) has(b, w int) bool {
	switch {
	case !i.TwoTable():
		return true
	case w == 16 && b != 2 && b != 4:
		return false
	}
	return i.BytePermutes() || w%2 == 0
}

// RotatesBytes reports whether an ISA without byte permutes zips b lanes
// of w-byte elements by rotation in 64-byte registers (vec.RotateZip:
// VPSHUFB, blends and quadword permutes): AVX-512 BW's zips of an odd
// number of lanes of bytes, which would take AVX2's kernels.
func (i ISA) RotatesBytes(unzip bool, b, w int) bool {
	return i.TwoTable() && !i.BytePermutes() && !unzip && w == 1 && b%2 == 1
}

// pairsBytes reports whether an ISA without byte permutes unzips b lanes
// of w-byte elements by pairing the bytes of two pixels first (vec's
// PairedNetworkUnzip): AVX-512 BW's unzips by 2, 4 and 8 of bytes.
func (i ISA) pairsBytes(unzip bool, b, w int) bool {
	return i.TwoTable() && !i.BytePermutes() && unzip && w == 1 && b&(b-1) == 0 && b <= 8
}

// BytePermutes reports whether the ISA permutes bytes across a register.
func (i ISA) BytePermutes() bool { return i.desc().BytePermutes }
