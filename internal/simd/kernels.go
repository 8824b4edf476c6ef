package simd

import (
	"slices"

	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// Kernels are a tier's kernels as the engine plans calls with them
// (engine.Kernels): its ISA's table with its base's merged in, and the
// choices made for this CPU, settled once when the table registers
// (complete). A call's kernel is then one lookup: no planner walks from
// a table to its base.
type Kernels struct {
	name string // the tier's
	// byKey are the lane kernels of the table and its base, sorted by
	// laneKey, the table's before its base's of the same key: a call
	// takes the first whose rows it is long enough for.
	byKey        []LaneKernel
	zipN, unzipN *AnyBFunc
	copier       *CopyFunc
	baseCopier   *CopyFunc // the base's, for the runs baseCopies names
	copierNT     *CopyFunc
	streamer     *StreamFunc
	split        [MaxBlock + 1]int
	gather       [MaxGroups + 1]*GatherFunc
	windows      isa.Windows // how the gather kernels read their windows
	stackZip     [MaxStackGrain + 1]*StackFunc
	stackUnzip   [MaxStackGrain + 1]*StackFunc
	pairs        bool // the stacked-row kernels move 1-byte elements as pairs
	bundleZip    [MaxBundleWidth + 1]bundleKernel
	bundleUnzip  [MaxBundleWidth + 1]bundleKernel
	tiles        [MaxTileWidth + 1][]TileKernel // the table's, then its base's
}

// A bundleKernel takes the rows of fewer than below bytes; the tier's own
// lane kernels take the longer ones.
type bundleKernel struct {
	f     *BundleFunc
	below int
}

// complete merges a table and its base, which serves what the table has
// no kernel for and rows too short for its own, into the kernels of its
// tier, with every choice that overrides the merge:
//
//   - isa.BaseUnzipBelow: on this CPU, the table's unzips of some lanes
//     leave lanes shorter than it says to the base's (a longer MinN);
//   - baseCopies: runs the base's copier moves faster than the table's;
//   - bundles: the base's bundle kernels stand in for the base's lane
//     kernels of b = 2, so they take only the rows the table's own lane
//     kernels do not. AVX-512's own lane kernels moved rows of 65 to 128
//     bytes as fast or faster on a Zen 5 (1x16x64x64 2-byte SpaceToDepth:
//     0.88 of copy() against 0.70).
func complete(t *Table) *Kernels {
	k := &Kernels{name: t.isa.TierName, zipN: t.ZipN, unzipN: t.UnzipN, copier: t.CopyRuns, copierNT: t.CopyRunsNT,
		streamer: t.StreamRuns, split: t.Split, gather: t.Gather, windows: t.isa.Windows,
		stackZip: t.StackZip, stackUnzip: t.StackUnzip, pairs: !t.isa.BytePermutes, tiles: t.Tiles}
	for _, l := range t.Lanes {
		if t.Base != nil && l.Cp == 0 && l.Unzip {
			l.MinN = max(l.MinN, uint16(isa.BaseUnzipBelow(int(l.B), int(l.W))))
		}
		k.byKey = append(k.byKey, l)
	}
	for w, f := range t.BundleZip {
		k.bundleZip[w] = bundleKernel{f, maxRow}
	}
	for w, f := range t.BundleUnzip {
		k.bundleUnzip[w] = bundleKernel{f, maxRow}
	}
	if t.Base == nil {
		return k
	}
	if t.Base.isa == nil {
		panic("simd: " + t.isa.Name + " registers before its base")
	}
	b := complete(t.Base)
	for w := range k.bundleZip {
		for _, unzip := range []bool{false, true} {
			own, base := &k.bundleZip[w], b.bundleZip[w]
			if unzip {
				own, base = &k.bundleUnzip[w], b.bundleUnzip[w]
			}
			if own.f != nil || base.f == nil {
				continue
			}
			*own = base
			if l, ok := k.first(laneKey{unzip: unzip, b: 2, w: w}); ok { // the table's own: its base's are not merged yet
				own.below = min(base.below, int(l.MinN))
			}
		}
	}
	k.byKey = append(k.byKey, b.byKey...)
	slices.SortStableFunc(k.byKey, func(x, y LaneKernel) int { return compareKeys(x.key(), y.key()) })
	k.zipN, k.unzipN = either(k.zipN, b.zipN), either(k.unzipN, b.unzipN)
	k.baseCopier, k.copierNT, k.streamer = b.copier, either(k.copierNT, b.copierNT), either(k.streamer, b.streamer)
	if k.gather[1] == nil {
		k.gather, k.windows = b.gather, b.windows
	}
	if k.stackZip == [MaxStackGrain + 1]*StackFunc{} {
		k.stackZip, k.stackUnzip, k.pairs = b.stackZip, b.stackUnzip, b.pairs
	}
	for w := range k.tiles {
		k.tiles[w] = append(slices.Clone(k.tiles[w]), b.tiles[w]...)
	}
	return k
}

// maxRow stands for no bound on a row's length.
const maxRow = int(^uint(0) >> 1)

// either is a if it is not nil, else b.
func either[F any](a, b *F) *F {
	if a != nil {
		return a
	}
	return b
}

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

// lanesOf returns the lane kernels of key k (its streaming twins if k.nt
// is set), the table's first, then its base's.
func (k *Kernels) lanesOf(key laneKey) []LaneKernel {
	key.stream = false
	i, ok := slices.BinarySearchFunc(k.byKey, key, func(e LaneKernel, key laneKey) int { return compareKeys(e.key(), key) })
	if !ok {
		return nil
	}
	j := i + 1
	for j < len(k.byKey) && compareKeys(k.byKey[j].key(), key) == 0 {
		j++
	}
	return k.byKey[i:j]
}

// Tiles are the tile kernels of w-byte words, the table's and then its
// base's, in the order a matrix takes the first that fits it.
func (k *Kernels) Tiles(w int) []TileKernel {
	if w < 0 || w > MaxTileWidth {
		return nil
	}
	return k.tiles[w]
}

// first is the first lane kernel of key, and whether there is one.
func (k *Kernels) first(key laneKey) (LaneKernel, bool) {
	if ls := k.lanesOf(key); len(ls) > 0 {
		return ls[0], true
	}
	return LaneKernel{}, false
}
