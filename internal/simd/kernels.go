package simd

import (
	"cmp"
	"slices"

	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// Kernels are a tier's kernels as the engine plans calls with them
// (engine.Kernels): its ISA's table with its base's merged in, and the
// choices made for this CPU, settled once when the table registers
// (complete). A call's kernel is then one lookup: no planner walks from
// a table to its base.
type Kernels struct {
	// Table is the ISA's table with its base's merged in (Table.inherit):
	// its lane kernels sorted by laneKey, the table's before its base's of
	// the same key, so that a call takes the first whose rows it is long
	// enough for; its tile kernels the table's, then its base's.
	Table
	name       string      // the tier's
	baseCopier *CopyFunc   // the base's run copier, for the runs baseCopies names
	windows    isa.Windows // how the gather kernels read their windows
	pairs      bool        // the stacked-row kernels move 1-byte elements as pairs
	// baseTiles[w]: the base's tiles of w-byte words, Tiles from
	// baseFrom on, go first on this CPU (isa.BaseTiles), where they fit and
	// tileFor does not keep the table's; false: the list's order.
	baseTiles [MaxTileWidth + 1]bool
	baseFrom  int
	// bundleBelow[0][w] and [1][w]: the bundle zips and unzips of w-byte
	// elements take the rows of fewer bytes; the tier's own lane kernels
	// take the longer ones.
	bundleBelow [2][MaxBundleWidth + 1]int
}

// complete merges a table and its base, which serves what the table has
// no kernel for and rows too short for its own, into the kernels of its
// tier, with every choice that overrides the merge:
//
//   - isa.BaseLanesBelow: on this CPU, the table's zips and unzips of
//     some lanes leave lanes shorter than it says to the base's (a longer
//     MinN);
//   - baseCopies: runs the base's copier moves faster than the table's;
//   - isa.BaseTiles: on this CPU, matrices of some words take the base's
//     tiles first (tileFor);
//   - bundles: the base's bundle kernels stand in for the base's lane
//     kernels of b = 2, so they take only the rows the table's own lane
//     kernels do not. AVX-512's own lane kernels moved rows of 65 to 128
//     bytes as fast or faster on a Zen 5 (1x16x64x64 2-byte SpaceToDepth:
//     0.88 of copy() against 0.70).
func complete(t *Table) *Kernels {
	k := &Kernels{Table: *t, name: t.isa.TierName, windows: t.isa.Windows, pairs: !t.isa.BytePermutes}
	k.Base, k.Lanes = nil, slices.Clone(t.Lanes)
	for i, l := range k.Lanes {
		if t.Base != nil && l.Cp == 0 {
			k.Lanes[i].MinN = max(l.MinN, uint16(isa.BaseLanesBelow(l.Unzip, int(l.B), int(l.W))))
		}
	}
	sortLanes(k.Lanes)
	for w := range MaxBundleWidth + 1 {
		k.bundleBelow[0][w], k.bundleBelow[1][w] = maxRow, maxRow
	}
	if t.Base == nil {
		return k
	}
	if t.Base.isa == nil {
		panic("simd: " + t.isa.Name + " registers before its base")
	}
	b := complete(t.Base)
	for w := range MaxBundleWidth + 1 {
		for d, unzip := range []bool{false, true} {
			own, base := k.BundleZip[w], b.BundleZip[w]
			if unzip {
				own, base = k.BundleUnzip[w], b.BundleUnzip[w]
			}
			if own != nil || base == nil {
				continue
			}
			if l, ok := k.first(laneKey{unzip: unzip, b: 2, w: w}); ok { // the table's own: its base's are not merged yet
				k.bundleBelow[d][w] = int(l.MinN)
			}
		}
	}
	if k.Gather[k.windows.MaxGroups] == nil { // it has no gather kernels
		k.windows = b.windows
	}
	if k.StackZip == [MaxStackGrain + 1]*StackFunc{} {
		k.pairs = b.pairs
	}
	k.baseCopier = b.CopyRuns
	k.baseFrom = len(k.Tiles)
	for _, e := range b.Tiles {
		w := int(e.W)
		k.baseTiles[w] = isa.BaseTiles(w) && slices.ContainsFunc(k.Tiles, func(o TileKernel) bool { return o.W == e.W })
	}
	k.Table.inherit(&b.Table)
	sortLanes(k.Lanes)
	return k
}

// sortLanes sorts lane kernels by laneKey, keeping the order of those of
// equal keys: a merge sort of runs that double, at the binary size of a
// few loops where slices.SortStableFunc took 4 KB.
func sortLanes(ks []LaneKernel) {
	buf := make([]LaneKernel, len(ks))
	for run := 1; run < len(ks); run *= 2 {
		for lo := 0; lo < len(ks); lo += 2 * run {
			mid, hi := min(lo+run, len(ks)), min(lo+2*run, len(ks))
			a, b := ks[lo:mid], ks[mid:hi]
			for k := range buf[lo:hi] { // a's first of equal keys
				if len(b) == 0 || len(a) > 0 && rankOf(b[0]) >= rankOf(a[0]) {
					buf[lo+k], a = a[0], a[1:]
				} else {
					buf[lo+k], b = b[0], b[1:]
				}
			}
		}
		copy(ks, buf)
	}
}

// maxRow stands for no bound on a row's length.
const maxRow = int(^uint(0) >> 1)

// baseCopies reports whether a tier with a base copies runs of e bytes
// with the base's copier. Below a 64-byte register AVX-512's copier has
// only AVX2's 16- and 32-byte moves, and it moves a run of exactly 32
// bytes twice (its head and its overlapping tail), where AVX2's moves it
// once; between one and two registers it moves two 64-byte pieces that
// overlap by most of a register. On a Zen 5, 1x16x64x64 NHWC DCR of
// 4-byte elements (runs of 32 bytes) ran at 0.48-0.50 of copy() with
// AVX2's copier and 0.39-0.40 with AVX-512's. Runs of exactly 64 bytes,
// one move, stay.
func baseCopies(e int) bool { return e < 64 || e > 64 && e < 128 }

// lanesOf returns the lane kernels of key (its streaming twins if key.nt
// is set), the table's first, then its base's.
func (k *Kernels) lanesOf(key laneKey) []LaneKernel {
	r := key.rank() // the key's stream does not count
	i, ok := slices.BinarySearchFunc(k.Lanes, r, func(e LaneKernel, r int) int { return cmp.Compare(rankOf(e), r) })
	if !ok {
		return nil
	}
	j := i + 1
	for j < len(k.Lanes) && rankOf(k.Lanes[j]) == r {
		j++
	}
	return k.Lanes[i:j]
}

// first is the first lane kernel of key, and whether there is one.
func (k *Kernels) first(key laneKey) (LaneKernel, bool) {
	if ls := k.lanesOf(key); len(ls) > 0 {
		return ls[0], true
	}
	return LaneKernel{}, false
}
