// Package table is the one description of the kernels every generator
// works from: the ISAs are the module's internal/isa table, which the
// runtime reads too, and the kernel families are Families, below. A width,
// a block size, an ISA or a family is added in one place.
package table

import "fmt"

// A Family is one kind of kernel, described once: its Go signature, its
// kernels' names, which kernels each ISA has, where the runtime's table
// holds them and the limits of its arrays. The generator writes from the
// families the kernels (each back end lowers a family's kernels with the
// function it registers under the family's Name), their declarations,
// the Func, Args and Call types and trampolines of each signature, the
// runtime's Table type, each ISA's table, its merge with its base's, and
// the Max constants. docs/design.md, "Adding a kernel family", lists what
// a new family takes besides its entry here.
type Family struct {
	Signature
	// Of lists an ISA's kernels of the family (KernelsOf sets their ISA
	// and Family).
	Of func(i ISA) []Kernel
	// KernelName is a kernel's function name.
	KernelName func(k Kernel) string
	// Slots are the runtime table's fields that hold the kernels.
	Slots []Slot
	// Limits are the Max constants of the runtime's arrays that the
	// family's kernels fill: each the largest of one of their values.
	Limits []Limit
	// Entry, for a family whose slots are lists, is what a list entry
	// says of a kernel; nil: its B, Cp, Width, Unzip and Streaming.
	Entry func(k Kernel) Entry
	// Extra is Go source the generator adds to internal/simd beside the
	// signatures, for what the runtime reads of the family but its table.
	Extra func() string
}

// A Slot is a field of the runtime's table (internal/simd's Table) that
// holds kernels of one family: those Pick takes, in one of three forms.
type Slot struct {
	Field string
	Doc   string
	Form  Form
	Pick  func(k Kernel) bool // nil: every kernel of the family
	// Index and Bound, for the indexed form: the kernel's index, and the
	// Max constant the array holds indexes up to.
	Index func(k Kernel) int
	Bound string
	// Own: a tier does not take its base's kernels of this slot.
	Own bool
}

// Form is how a slot holds its kernels.
type Form uint8

const (
	Single  Form = iota // one function: *<Name>Func
	Indexed             // an array of functions: [Bound + 1]*<Name>Func
	List                // a list of entries: []Entry[<Name>Func]
)

// Entry is what the runtime's list entries (internal/simd's Entry) say
// of a kernel besides its function and the shortest row it takes.
type Entry struct {
	B, Cp, W, Chunk int
	Unzip, NT       bool
}

// A Limit is a Max constant of internal/simd: the largest of a value of
// a family's kernels, over every ISA.
type Limit struct {
	Name, Doc string
	Of        func(k Kernel) int
}

// The families.
var (
	// Lanes zip b lanes of w-byte elements into one row, or unzip one row
	// into b lanes, for each fixed b with kernels (lanes.go).
	Lanes = &Family{
		Signature: Signature{"Lane",
			"the lane kernels, which move b lanes of n bytes to and from one interleaved row of n*b bytes, in each of rows rows of each of groups groups",
			[]string{"space", "depth"},
			[]string{"n", "rows", "spaceStride", "depthStride", "lane", "laneI", "groups", "spaceSkip", "depthSkip"},
			groupSkips},
		Of:         laneKernels,
		KernelName: laneName,
		Slots: []Slot{{Field: "Lanes", Form: List, Doc: `the lane kernels: zips and unzips of b lanes of w-byte
elements, the regrouping ones of NHWC CRD (Cp > 0: lane i, a space row,
holds per pixel elements (j, c) for j < b, c < Cp, which the interleaved
side, a depth row, holds as channels c*b*b + i*b + j), and their
streaming twins (NT: non-temporal stores, for outputs that cannot stay in
cache, on rows of whole chunks, MinN bytes, whose every output address is
32-byte aligned).`}},
		Limits: []Limit{
			{"MaxBlock", "the largest block size with kernels of its own", func(k Kernel) int { return k.B }},
			{"MaxWidth", "the largest element size, in bytes", func(k Kernel) int { return k.Width }},
			{"MaxCp", "the largest C' of a regrouping kernel", func(k Kernel) int { return k.Cp }},
		},
		Extra: splitTable,
	}
	// AnyB zips and unzips 16-byte elements at any block size.
	AnyB = &Family{
		Signature: Signature{"AnyB",
			"the kernels of 16-byte elements for any block size b, whose lanes lie lane bytes apart",
			[]string{"space", "depth"},
			[]string{"n", "rows", "spaceStride", "depthStride", "lane", "groups", "spaceSkip", "depthSkip", "b"},
			groupSkips},
		Of: func(i ISA) []Kernel {
			if i.TwoTable() { // AVX2's move 16-byte elements as fast
				return nil
			}
			return []Kernel{{Width: 16}, {Unzip: true, Width: 16}}
		},
		KernelName: func(k Kernel) string { return fmt.Sprintf("%sNx%d%s", zipOrUnzip(k), k.Width, k.ISA) },
		Slots: []Slot{
			{Field: "ZipN", Form: Single, Pick: zips, Doc: "the zip of 16-byte elements for any block size"},
			{Field: "UnzipN", Form: Single, Pick: unzips, Doc: "its unzip"},
		},
	}
	// Copiers copy runs between strided places (NHWC rows, a transpose's
	// runs).
	Copiers = &Family{
		Signature: Signature{"Copy",
			"the run copiers, which copy, in each row of each group, w runs of e >= 16 bytes from src + x*srcX to dst + x*dstX",
			[]string{"dst", "src"},
			[]string{"e", "w", "dstX", "srcX", "rows", "dstRow", "srcRow", "groups", "dstSkip", "srcSkip"},
			[]Skip{{"dstSkip", "dstGroup", "rows", "dstRow"}, {"srcSkip", "srcGroup", "rows", "srcRow"}}},
		Of: func(i ISA) []Kernel {
			out := []Kernel{{}}
			if i.streams() {
				out = append(out, Kernel{Streaming: true})
			}
			return out
		},
		KernelName: func(k Kernel) string { return "copyRuns" + string(k.ISA) + nt(k) },
		Slots: []Slot{
			{Field: "CopyRuns", Form: Single, Pick: ordinary, Doc: "the run copier"},
			{Field: "CopyRunsNT", Form: Single, Pick: streaming, Doc: "the run copier with non-temporal stores: e a multiple of 32, dst addresses 32-byte aligned"},
		},
	}
	// Gathers write output vectors shuffled from source windows (NCHW
	// rows shorter than a vector: internal/gather).
	Gathers = &Family{
		Signature: Signature{"Gather",
			"the gather kernels, which write, in each of reps tiles (srcRep and dstRep bytes apart), steps output vectors, each shuffled from source windows by a program: per vector, offs holds its offset in dst and its windows' offsets in src (int32), idx its index vectors (see internal/gather)",
			[]string{"dst", "src", "offs", "idx"},
			[]string{"steps", "reps", "srcRep", "dstRep"}, nil},
		Of: func(i ISA) []Kernel {
			// A vector's bytes come from as many source bytes: fewer
			// windows than hold a vector (AVX2's one 16-byte window for
			// 32 bytes) never make a program.
			w := i.Windows()
			var out []Kernel
			for g := max(1, (w.Vector+w.PerGroup*w.Window-1)/max(1, w.PerGroup*w.Window)); g <= w.MaxGroups; g++ {
				out = append(out, Kernel{Groups: g})
			}
			return out
		},
		KernelName: func(k Kernel) string { return fmt.Sprintf("gather%d%s", k.Groups, k.ISA) },
		Slots: []Slot{{Field: "Gather", Form: Indexed, Index: func(k Kernel) int { return k.Groups }, Bound: "MaxGroups",
			Doc: "Gather[g] is the gather kernel of g groups of windows per vector, which read their windows as the ISA's isa.Windows says"}},
		Limits: []Limit{{"MaxGroups", "the most groups of windows of a gather kernel", func(k Kernel) int { return k.Groups }}},
	}
	// Stacks move NCHW b = 2 rows of a few bytes as stacks of rows in
	// registers (internal/stack).
	Stacks = &Family{
		Signature: Signature{"Stack",
			"the stacked-row kernels, which run stacks stacks of short rows: stack u starts at v = min(u*step, last) bytes along the rows, 4*v bytes into the space side and, on the depth side, where its four planes lie plane bytes apart and each plane's segments of plane bytes 4*plane bytes apart, at byte v%plane of segment v/plane (lastDepth for v = last); a stack reaching past its segment's end takes the rest from the next one; tab holds the stacks' permutation and masks (see internal/stack)",
			[]string{"space", "depth", "tab"},
			[]string{"stacks", "step", "last", "lastDepth", "plane"}, nil},
		Of:         func(i ISA) []Kernel { return pairs(i.StackGrains()) },
		KernelName: func(k Kernel) string { return fmt.Sprintf("stack%s2x%d%s", upper(zipOrUnzip(k)), k.Width, k.ISA) },
		Slots: []Slot{
			{Field: "StackZip", Form: Indexed, Pick: zips, Index: width, Bound: "MaxStackGrain",
				Doc: "StackZip[g] and StackUnzip[g] are the stacked-row kernels of NCHW DepthToSpace and SpaceToDepth of b = 2 (internal/stack), whose permutes move grains of g bytes, for elements of a multiple of g bytes; without byte permutes those of g = 1 move pairs"},
			{Field: "StackUnzip", Form: Indexed, Pick: unzips, Index: width, Bound: "MaxStackGrain"},
		},
		Limits: []Limit{{"MaxStackGrain", "the largest permute grain, in bytes, of a stacked-row kernel", width}},
	}
	// Bundles move NCHW b = 2 rows of a few bytes a bundle of one row of
	// each plane at a time, in whole chunks (internal/stack's Bundles).
	Bundles = &Family{
		Signature: Signature{"Bundle",
			"the bundle kernels, which run, in each of groups groups (group bytes apart on both sides), bundles bundles: bundle u is row u (n bytes of w-byte elements, at u*n) of each of four planes plane bytes apart on the depth side, and two rows of 2*n bytes at 4*u*n on the space side; each row moves in whole chunks, reading and writing past its end (see internal/stack's Bundles)",
			[]string{"space", "depth"},
			[]string{"n", "bundles", "plane", "groups", "group"}, nil},
		Of:         func(i ISA) []Kernel { return pairs(i.BundleWidths()) },
		KernelName: func(k Kernel) string { return fmt.Sprintf("bundle%s2x%d%s", upper(zipOrUnzip(k)), k.Width, k.ISA) },
		Slots: []Slot{
			{Field: "BundleZip", Form: Indexed, Pick: zips, Index: width, Bound: "MaxBundleWidth",
				Doc: "BundleZip[w] and BundleUnzip[w] are the bundle kernels of NCHW DepthToSpace and SpaceToDepth of b = 2 (internal/stack's Bundles), for w-byte elements"},
			{Field: "BundleUnzip", Form: Indexed, Pick: unzips, Index: width, Bound: "MaxBundleWidth"},
		},
		Limits: []Limit{{"MaxBundleWidth", "the largest element, in bytes, of a bundle kernel", width}},
	}
	// Tiles transpose matrices of words tile by tile (general
	// transposes).
	Tiles = &Family{
		Signature: Signature{"Tile",
			"the tile kernels, which transpose tiles of b rows of chunk bytes of w-byte words (vec.TileShape), word x of row r of a tile read at r*srcRow + x*w and written at x*dstRow + r*w: in each of bands bands, dstBand and srcBand bytes apart, strips strips, dstStrip and srcStrip bytes apart, of tiles tiles, dstTile and srcTile bytes apart",
			[]string{"dst", "src"},
			[]string{"tiles", "strips", "bands", "dstRow", "srcRow", "dstTile", "srcTile", "dstSkip", "srcSkip", "dstBandSkip", "srcBandSkip"},
			[]Skip{{"dstSkip", "dstStrip", "tiles", "dstTile"}, {"srcSkip", "srcStrip", "tiles", "srcTile"},
				{"dstBandSkip", "dstBand", "strips", "dstStrip"}, {"srcBandSkip", "srcBand", "strips", "srcStrip"}}},
		Of: func(i ISA) []Kernel {
			var out []Kernel
			for _, w := range i.TileWidths() {
				for _, k := range i.TileKernels(w) {
					if !k.Column() { // columns only stream
						out = append(out, k)
					}
					if k.StreamingTile() {
						k.Streaming = true
						out = append(out, k)
					}
				}
			}
			return out
		},
		KernelName: func(k Kernel) string { // tile8x4AVX2: tiles of 8 rows of 4-byte words
			b, _ := k.TileShape()
			return fmt.Sprintf("tile%dx%d%s%s", b, k.Width, k.ISA, nt(k))
		},
		Slots: []Slot{
			{Field: "Tiles", Form: List, Pick: func(k Kernel) bool { return !k.Quad() && !k.Column() },
				Doc: "Tiles are the tile kernels (general transposes), the table's then its base's, by word (W bytes), the largest tile of each first, each (B rows of Chunk bytes) followed by its streaming twin where it has one (NT: every column of a tile is one 64-byte store, which must be aligned)"},
			{Field: "PagedTiles", Form: List, Pick: Kernel.Quad, Own: true,
				Doc: "PagedTiles are the table's tile kernels for matrices whose dst rows lie whole pages apart, which take them ahead of Tiles"},
			{Field: "StreamTiles", Form: List, Pick: Kernel.Column, Own: true,
				Doc: "StreamTiles are the table's streaming tile kernels without a plain twin, for matrices that stream whose tiles have no streaming twin"},
		},
		Limits: []Limit{{"MaxTileWidth", "the largest word, in bytes, of a tile kernel", width}},
		Entry: func(k Kernel) Entry {
			b, chunk := k.TileShape()
			return Entry{B: b, W: k.Width, Chunk: chunk, NT: k.Streaming}
		},
	}
	// Streamers copy runs that tile each group of the output, with
	// aligned non-temporal stores (NHWC, outputs beyond the caches).
	Streamers = &Family{
		Signature: Signature{"Stream",
			"the streaming run copiers, which copy, in each row of each group, w runs of e bytes (at least 32, a multiple of 4) from src + x*srcX to dst + x*e, the rows e*w bytes apart, so that a group's runs tile one block of dst (4-byte aligned), which they write with aligned non-temporal stores; groups start dstGroup and srcGroup bytes apart",
			[]string{"dst", "src"},
			[]string{"e", "w", "dstX", "srcX", "rows", "dstRow", "srcRow", "groups", "dstGroup", "srcGroup"}, nil},
		Of: func(i ISA) []Kernel {
			if !i.streams() {
				return nil
			}
			return []Kernel{{}}
		},
		KernelName: func(k Kernel) string { return "streamRuns" + string(k.ISA) },
		Slots:      []Slot{{Field: "StreamRuns", Form: Single, Doc: "the streaming run copier"}},
	}
)

// Families lists every family, in the order the generated code declares
// them.
var Families = []*Family{Lanes, AnyB, Copiers, Gathers, Stacks, Bundles, Tiles, Streamers}

// Kernels lists the kernels of one ISA, family by family.
func Kernels(i ISA) []Kernel {
	var out []Kernel
	for _, f := range Families {
		out = append(out, f.KernelsOf(i)...)
	}
	return out
}

// KernelsOf lists an ISA's kernels of family f.
func (f *Family) KernelsOf(i ISA) []Kernel {
	ks := f.Of(i)
	for n := range ks {
		ks[n].ISA, ks[n].Family = i, f
	}
	return ks
}

// Value is a limit's value: the largest of its value over every ISA's
// kernels of family f.
func (l Limit) Value(f *Family) int {
	n := 0
	for _, i := range ISAs() {
		for _, k := range f.KernelsOf(ISA(i.Name)) {
			n = max(n, l.Of(k))
		}
	}
	return n
}

// EntryOf is what a list entry says of kernel k.
func (f *Family) EntryOf(k Kernel) Entry {
	if f.Entry != nil {
		return f.Entry(k)
	}
	return Entry{B: k.B, Cp: k.Cp, W: k.Width, Unzip: k.Unzip, NT: k.Streaming}
}

// Holds lists the kernels of ks that slot s of family f holds.
func (s Slot) Holds(f *Family, ks []Kernel) []Kernel {
	var out []Kernel
	for _, k := range ks {
		if k.Family == f && (s.Pick == nil || s.Pick(k)) {
			out = append(out, k)
		}
	}
	return out
}

// pairs are a zip and an unzip of b = 2 for each width of ws.
func pairs(ws []int) []Kernel {
	var out []Kernel
	for _, w := range ws {
		out = append(out, Kernel{B: 2, Width: w}, Kernel{Unzip: true, B: 2, Width: w})
	}
	return out
}

func zips(k Kernel) bool      { return !k.Unzip }
func unzips(k Kernel) bool    { return k.Unzip }
func ordinary(k Kernel) bool  { return !k.Streaming }
func streaming(k Kernel) bool { return k.Streaming }
func width(k Kernel) int      { return k.Width }

// zipOrUnzip is "zip" or "unzip", a kernel's direction in its name.
func zipOrUnzip(k Kernel) string {
	if k.Unzip {
		return "unzip"
	}
	return "zip"
}

// upper is s with its first letter in upper case.
func upper(s string) string { return exported(s) }

// splitTable is the lane kernels' addressing, which the runtime reads as
// simd.Split.
func splitTable() string {
	s := "\n// Split[b] says how the lanes of a b-lane kernel are addressed: lane j\n// starts (j/Split[b])*laneI + (j%Split[b])*lane bytes after the row's\n// depth address.\nvar Split = [MaxBlock + 1]int{"
	for _, b := range Blocks {
		s += fmt.Sprintf("%d: %d, ", b, Split(b))
	}
	return s + "}\n"
}

// Kernel is one generated function of a family. Lane kernels zip or
// unzip B rows of Width-byte elements; Cp > 0 makes one a regrouping zip
// (NHWC CRD): each pixel of the interleaved side holds Cp*B*B elements of
// Width bytes, channel c*B*B + i*B + j, and lane i takes them in the order
// (j, c). Streaming kernels write with non-temporal stores, for outputs
// too large to stay in cache; they take only rows of a multiple of 32
// bytes whose output addresses are all 32-byte aligned.
type Kernel struct {
	ISA       ISA
	Family    *Family
	Unzip     bool // from the interleaved side (the depth side, or the output) to the lanes
	B         int
	Width     int
	Cp        int
	Streaming bool
	Groups    int // of a gather kernel: groups of windows per output vector
}

// Name is the kernel's function's name, e.g. zip3x2AVX2: zip 3 rows of
// 2-byte elements.
func (k Kernel) Name() string { return k.Family.KernelName(k) }

// Signature is the signature of the kernel's family.
func (k Kernel) Signature() Signature { return k.Family.Signature }

// Signatures lists every family's signature, in Families' order.
func Signatures() []Signature {
	var out []Signature
	for _, f := range Families {
		out = append(out, f.Signature)
	}
	return out
}
