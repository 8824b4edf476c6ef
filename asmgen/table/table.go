// Package table is the one list of kernels every generator works from: one
// line per family, so that a width, a block size or an ISA is added in one
// place. The ISAs themselves (names, architectures, base ISAs, streaming)
// are the module's internal/isa table, which the runtime reads too.
package table

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blockshuffle/blockshuffle/asmgen/vec"
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

// Kind is what a kernel does.
type Kind uint8

const (
	Zip         Kind = iota // interleave b lanes of elements into one row (NCHW DepthToSpace)
	Unzip                   // split one row into b lanes (NCHW SpaceToDepth)
	Copy                    // copy runs of 16 bytes or more between strided places (NHWC)
	Gather                  // write output vectors shuffled from source windows (rows shorter than a vector)
	StackZip                // NCHW DepthToSpace of b = 2 by stacks of short rows in registers (internal/stack)
	StackUnzip              // its SpaceToDepth
	BundleZip               // NCHW DepthToSpace of b = 2 by bundles of one row of each of the four planes, moved in whole chunks (internal/stack's Bundles)
	BundleUnzip             // its SpaceToDepth
	Stream                  // copy runs that tile each group of the output with aligned non-temporal stores (NHWC, outputs beyond the caches)
	Tile                    // transpose a matrix of words tile by tile (general transposes)
)

// Signature is the Go signature of a family of kernels: pointer
// parameters, then int parameters. Every generator declares kernels with
// it, and the Go side calls them through an Args struct generated from it.
type Signature struct {
	Name  string   // the Go types' prefix: <Name>Func, <Name>Args
	Doc   string   // what the kernels of the family do
	Ptrs  []string // *byte parameters
	Ints  []string // int parameters
	Skips []Skip   // int parameters the call computes from fields of the Args
}

// A Skip is a kernel parameter that takes a pointer from the end of a
// group's last row to the next group's first: Group - Rows*Stride, of
// fields of the Args struct, which hold Group in Skip's place. The call
// computes it, so that a kernel adds it to the pointer as it is, with no
// register, stack frame or arithmetic of its own.
type Skip struct{ Param, Group, Rows, Stride string }

// The kernel families' signatures.
var (
	LaneSig = Signature{"Lane",
		"the lane kernels, which move b lanes of n bytes to and from one interleaved row of n*b bytes, in each of rows rows of each of groups groups",
		[]string{"space", "depth"},
		[]string{"n", "rows", "spaceStride", "depthStride", "lane", "laneI", "groups", "spaceSkip", "depthSkip"},
		groupSkips}
	AnyBSig = Signature{"AnyB",
		"the kernels of 16-byte elements for any block size b, whose lanes lie lane bytes apart",
		[]string{"space", "depth"},
		[]string{"n", "rows", "spaceStride", "depthStride", "lane", "groups", "spaceSkip", "depthSkip", "b"},
		groupSkips}
	GatherSig = Signature{"Gather",
		"the gather kernels, which write, in each of reps tiles (srcRep and dstRep bytes apart), steps output vectors, each shuffled from source windows by a program: per vector, offs holds its offset in dst and its windows' offsets in src (int32), idx its index vectors (see internal/gather)",
		[]string{"dst", "src", "offs", "idx"},
		[]string{"steps", "reps", "srcRep", "dstRep"}, nil}
	StackSig = Signature{"Stack",
		"the stacked-row kernels, which run stacks stacks of short rows: stack u starts at v = min(u*step, last) bytes along the rows, 4*v bytes into the space side and, on the depth side, where its four planes lie plane bytes apart and each plane's segments of plane bytes 4*plane bytes apart, at byte v%plane of segment v/plane (lastDepth for v = last); a stack reaching past its segment's end takes the rest from the next one; tab holds the stacks' permutation and masks (see internal/stack)",
		[]string{"space", "depth", "tab"},
		[]string{"stacks", "step", "last", "lastDepth", "plane"}, nil}
	BundleSig = Signature{"Bundle",
		"the bundle kernels, which run, in each of groups groups (group bytes apart on both sides), bundles bundles: bundle u is row u (n bytes of w-byte elements, at u*n) of each of four planes plane bytes apart on the depth side, and two rows of 2*n bytes at 4*u*n on the space side; each row moves in whole chunks, reading and writing past its end (see internal/stack's Bundles)",
		[]string{"space", "depth"},
		[]string{"n", "bundles", "plane", "groups", "group"}, nil}
	CopySig = Signature{"Copy",
		"the run copiers, which copy, in each row of each group, w runs of e >= 16 bytes from src + x*srcX to dst + x*dstX",
		[]string{"dst", "src"},
		[]string{"e", "w", "dstX", "srcX", "rows", "dstRow", "srcRow", "groups", "dstSkip", "srcSkip"},
		[]Skip{{"dstSkip", "dstGroup", "rows", "dstRow"}, {"srcSkip", "srcGroup", "rows", "srcRow"}}}
	StreamSig = Signature{"Stream",
		"the streaming run copiers, which copy, in each row of each group, w runs of e bytes (at least 32, a multiple of 4) from src + x*srcX to dst + x*e, the rows e*w bytes apart, so that a group's runs tile one block of dst (4-byte aligned), which they write with aligned non-temporal stores; groups start dstGroup and srcGroup bytes apart",
		CopySig.Ptrs,
		[]string{"e", "w", "dstX", "srcX", "rows", "dstRow", "srcRow", "groups", "dstGroup", "srcGroup"}, nil}
	TileSig = Signature{"Tile",
		"the tile kernels, which transpose tiles of b rows of chunk bytes of w-byte words (vec.TileShape), word x of row r of a tile read at r*srcRow + x*w and written at x*dstRow + r*w: in each of bands bands, dstBand and srcBand bytes apart, strips strips, dstStrip and srcStrip bytes apart, of tiles tiles, dstTile and srcTile bytes apart",
		CopySig.Ptrs,
		[]string{"tiles", "strips", "bands", "dstRow", "srcRow", "dstTile", "srcTile", "dstSkip", "srcSkip", "dstBandSkip", "srcBandSkip"},
		[]Skip{{"dstSkip", "dstStrip", "tiles", "dstTile"}, {"srcSkip", "srcStrip", "tiles", "srcTile"},
			{"dstBandSkip", "dstBand", "strips", "dstStrip"}, {"srcBandSkip", "srcBand", "strips", "srcStrip"}}}
)

// groupSkips are the skips of the lane kernels' groups.
var groupSkips = []Skip{{"spaceSkip", "groupSpace", "rows", "spaceStride"}, {"depthSkip", "groupDepth", "rows", "depthStride"}}

// Field is the Args field that holds a parameter, or its skip's Group.
func (s Signature) Field(param string) string {
	for _, k := range s.Skips {
		if k.Param == param {
			return exported(k.Group)
		}
	}
	return exported(param)
}

// Arg is the Go expression a call passes for a parameter, from the Args
// fields of c.
func (s Signature) Arg(param string) string {
	for _, k := range s.Skips {
		if k.Param == param {
			return "c." + exported(k.Group) + " - c." + exported(k.Rows) + "*c." + exported(k.Stride)
		}
	}
	return "c." + exported(param)
}

// exported is a parameter's name as a struct field: spaceStride becomes
// SpaceStride.
func exported(name string) string { return strings.ToUpper(name[:1]) + name[1:] }

// Signatures lists every family's signature.
var Signatures = []Signature{LaneSig, AnyBSig, CopySig, StreamSig, GatherSig, StackSig, BundleSig, TileSig}

// Params is the parameter list, e.g. (space, depth *byte, n, rows int).
func (s Signature) Params() string {
	return "(" + strings.Join(s.Ptrs, ", ") + " *byte, " + strings.Join(s.Ints, ", ") + " int)"
}

// Names lists every parameter in order.
func (s Signature) Names() []string { return slices.Concat(s.Ptrs, s.Ints) }

// Signature is the signature of the kernel's family.
func (k Kernel) Signature() Signature {
	switch {
	case k.Kind == Copy:
		return CopySig
	case k.Kind == Stream:
		return StreamSig
	case k.Kind == Gather:
		return GatherSig
	case k.Kind == Tile:
		return TileSig
	case k.Kind == StackZip || k.Kind == StackUnzip:
		return StackSig
	case k.Kind == BundleZip || k.Kind == BundleUnzip:
		return BundleSig
	case k.B == 0:
		return AnyBSig
	}
	return LaneSig
}

// Kernel is one generated function: it zips or unzips B rows of Width-byte
// elements. B = 0 means any block size, passed at run time. Cp > 0 makes it
// a transposing zip (NHWC CRD): each pixel of the interleaved side holds
// Cp*B*B elements of Width bytes, channel c*B*B + i*B + j, and lane i takes
// them in the order (j, c).
//
// Streaming kernels write with non-temporal stores, for outputs too large
// to stay in cache; they take only rows of a multiple of 32 bytes whose
// output addresses are all 32-byte aligned.
type Kernel struct {
	ISA       ISA
	Kind      Kind
	B         int
	Width     int
	Cp        int
	Streaming bool
	Groups    int // of a gather kernel: groups of windows per output vector
}

// Name is the function's name, e.g. zip3x2AVX2: zip 3 rows of 2-byte elements.
func (k Kernel) Name() string {
	if k.Kind == Copy && k.Streaming {
		return "copyRuns" + string(k.ISA) + "NT"
	}
	if k.Kind == Copy {
		return "copyRuns" + string(k.ISA)
	}
	if k.Kind == Stream {
		return "streamRuns" + string(k.ISA)
	}
	if k.Kind == Tile { // e.g. tile8x4AVX2: tiles of 8 rows of 4-byte words
		b, _ := k.TileShape()
		nt := ""
		if k.Streaming {
			nt = "NT"
		}
		return fmt.Sprintf("tile%dx%d%s%s", b, k.Width, k.ISA, nt)
	}
	if k.Kind == Gather { // e.g. gather2AVX512VBMI: 2 groups of windows per vector
		return fmt.Sprintf("gather%d%s", k.Groups, k.ISA)
	}
	if k.Kind == StackZip || k.Kind == StackUnzip { // e.g. stackZip2x1AVX512VBMI: permutes of 1-byte grains
		kind := "Zip"
		if k.Kind == StackUnzip {
			kind = "Unzip"
		}
		return fmt.Sprintf("stack%s2x%d%s", kind, k.Width, k.ISA)
	}
	if k.Kind == BundleZip || k.Kind == BundleUnzip { // e.g. bundleZip2x1AVX2: 1-byte elements
		kind := "Zip"
		if k.Kind == BundleUnzip {
			kind = "Unzip"
		}
		return fmt.Sprintf("bundle%s2x%d%s", kind, k.Width, k.ISA)
	}
	kind := "zip"
	if k.Kind == Unzip {
		kind = "unzip"
	}
	nt := ""
	if k.Streaming {
		nt = "NT"
	}
	if k.Cp > 0 { // e.g. tzip3x3x1: transposing zip, b = 3, C' = 3, 1-byte elements
		return fmt.Sprintf("t%s%dx%dx%d%s%s", kind, k.B, k.Cp, k.Width, k.ISA, nt)
	}
	b := fmt.Sprint(k.B)
	if k.B == 0 {
		b = "N"
	}
	return fmt.Sprintf("%s%sx%d%s%s", kind, b, k.Width, k.ISA, nt)
}

// Blocks are the block sizes with their own kernels: ESPCN x2/x3/x4
// super-resolution, YOLO reorg and 8x8 patchify (the Common ones), and the
// rare sizes between. Larger blocks move whole runs in NHWC and go element
// by element in NCHW.
var Blocks = []int{2, 3, 4, 5, 6, 7, 8}

// Common are the block sizes models use, whose kernels also handle rows
// shorter than 16 bytes and have streaming twins. Rare block sizes keep the
// generated code small.
var Common = []int{2, 3, 4, 8}

// Chunks are the bytes of each lane one pass of a b-lane kernel handles,
// for elements of a power-of-two size, largest first.
func Chunks(b int) []int {
	if slices.Contains(Common, b) {
		return []int{32, 16, 8, 4}
	}
	return []int{32, 16}
}

// Widths are the element sizes of every ONNX type; each gets a kernel per
// block size. 16-byte elements (complex128) also have a kernel per direction
// for any other block size, since moving them needs no byte shuffles.
var Widths = []int{1, 2, 4, 8, 16}

// Split is how the lanes of a b-row kernel are addressed: lane j sits at
// (j/Split(b))*laneI + (j%Split(b))*lane. NCHW rows are evenly spaced
// (laneI = Split(b)*lane); in NHWC CRD with b = 2 a 4-lane kernel's lanes
// (i, j) lie in two space rows.
//
// x86 addressing scales an index by 1, 2 or 4 at most within a run (3 with
// a register holding 3*lane), so runs are at most 4 lanes long.
func Split(b int) int {
	switch b {
	case 4:
		return 2
	case 5, 7, 8:
		return 4
	case 6:
		return 3
	}
	return b
}

// RunWidths are the NHWC DepthToSpace run lengths b*C'*w (bytes) below 16
// that are not powers of two, for the common block sizes, C' = 1 and C' = 3
// (RGB) and elements of 1, 2 and 4 bytes: they get zips of elements that
// size.
func RunWidths(b int) []int {
	if !slices.Contains(Common, b) {
		return nil
	}
	var out []int
	for _, cp := range []int{1, 3} {
		for _, w := range []int{1, 2, 4} {
			if e := b * cp * w; e < 16 && e&(e-1) != 0 && !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Transposes are the NHWC CRD shapes with their own kernels, of the
// element widths whose pixels fit (pixelFits): block sizes 2 to 4 with C'
// of 2 to 4 channels (RGB among them); b = 2 with C' = 8, which otherwise
// unzips every pixel by 4 as a kernel row of 8-byte lanes; and b = 8 with
// C' of 2 to 4 (8x8 patches of a few channels), whose other path, zips by
// channel, makes every pixel a kernel row of a few bytes (1x256x64x64 b = 8
// of bytes on a Zen 4: 108 µs that way, 34 with AVX2's kernels).
func Transposes(b int) (cps, widths []int) {
	widths = []int{1, 2, 4, 8}
	switch {
	case b == 2:
		return []int{2, 3, 4, 8}, widths
	case b <= 4:
		return []int{2, 3, 4}, widths
	case b == 8:
		return []int{2, 3, 4}, widths
	}
	return nil, nil
}

const maxPixel = 512

// pixelFits reports whether the pixels of a transposing kernel, b*b*C'*w
// bytes, are small enough for it to pay: at most maxPixel bytes (pixels
// of up to 512 bytes beat zips by channel on a Zen 4: 3.1 µs against 4.9
// for 1x36x20x20 b = 3 of 8-byte elements), and for C' = 8 at most 64,
// beyond which the lanes path was as fast.
func pixelFits(b, cp, w int) bool {
	pixel := b * b * cp * w
	return pixel <= maxPixel && (cp < 8 || pixel <= 64)
}

// beatsLanes reports whether an ISA has the transposing kernel of kind,
// b, C' and w, given that the runtime moves a transpose of b = 2 whose
// runs (C' elements, C'*w bytes) are 16 bytes or more as an unzip by 4 of
// each pixel, the lanes path, where the table has no kernel for it, and
// that AVX-512 tiers run AVX2's where they have none. On a Zen 5, AVX-512's
// kernels and AVX2's run networks (runs of 16 or 32 bytes, vec.RunFits)
// beat the lanes path (0.53-0.67 of copy() against 0.42), and AVX2's
// window programs lose to it (0.22 against 0.43); NEON keeps the lanes
// path, unmeasured.
func (i ISA) beatsLanes(kind Kind, b, cp, w int) bool {
	run := cp * w
	switch {
	case i.TwoTable() && kind == Zip && w == 8 && b*b*cp*w > 256:
		// AVX-512's zips of the largest pixels lose to AVX2's: on a
		// Zen 4, SpaceToDepth to 1x36x20x20 b = 3 (C' = 4) 6.2 µs
		// against 2.7.
		return false
	case b == 8:
		// AVX-512's of bytes lose to AVX2's, their base: 1x128x16x16
		// DepthToSpace on a Zen 4, 1.5 µs against 0.82.
		return w > 1 || !i.TwoTable()
	case b != 2 || run < 16 || i.TwoTable():
		return true
	}
	// The run networks hold a pixel's runs in the two lanes of a 32-byte
	// register.
	return i.Vector() == 2*vec.LaneBytes && vec.RunFits(b, cp, w)
}

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
func (i ISA) RotatesBytes(kind Kind, b, w int) bool {
	return i.TwoTable() && !i.BytePermutes() && kind == Zip && w == 1 && b%2 == 1
}

// pairsBytes reports whether an ISA without byte permutes unzips b lanes
// of w-byte elements by pairing the bytes of two pixels first (vec's
// PairedNetworkUnzip): AVX-512 BW's unzips by 2, 4 and 8 of bytes.
func (i ISA) pairsBytes(kind Kind, b, w int) bool {
	return i.TwoTable() && !i.BytePermutes() && kind == Unzip && w == 1 && b&(b-1) == 0 && b <= 8
}

// measured is an entry of measuredOut: a kernel of the ISAs with two-table
// permutes (TwoTable) or of those without, and, for elements of 1 and 2
// bytes, whose permutes differ, of those with byte permutes or without.
type measured struct {
	TwoTable  bool
	Bytes     bytePermutes
	Kind      Kind
	B, Cp     int
	Width     int
	Streaming bool
}

// bytePermutes says which ISAs an entry of measuredOut is for: either, or
// those with byte permutes, or those without.
type bytePermutes uint8

const (
	either bytePermutes = iota
	with
	without
)

// measuredOut are the kernels a tier gains less than 10% by: on every case
// of the report and of report -shapes that runs them, the path their calls
// take without them (another kernel, the base ISA's, or their streaming or
// plain twin) ran at least 0.91 times as fast, in two alternated runs of
// each table against one without (AMD EPYC Zen 5, 2026-11-25; the shapes
// are in bench/README.md). They cost bytes every user pays for and buy
// nothing measured.
var measuredOut = []measured{
	{TwoTable: false, Kind: Zip, B: 2, Cp: 2, Width: 8},
	{TwoTable: false, Kind: Zip, B: 2, Cp: 3, Width: 8, Streaming: true},
	{TwoTable: false, Kind: Zip, B: 2, Cp: 4, Width: 4},
	{TwoTable: false, Kind: Zip, B: 2, Cp: 4, Width: 8},
	{TwoTable: false, Kind: Zip, B: 2, Cp: 4, Width: 8, Streaming: true},
	{TwoTable: false, Kind: Zip, B: 2, Cp: 8, Width: 2},
	{TwoTable: false, Kind: Zip, B: 3, Width: 16},
	{TwoTable: false, Kind: Zip, B: 3, Cp: 2, Width: 4, Streaming: true},
	{TwoTable: false, Kind: Zip, B: 3, Cp: 4, Width: 2, Streaming: true},
	{TwoTable: false, Kind: Zip, B: 3, Cp: 4, Width: 4, Streaming: true},
	{TwoTable: false, Kind: Zip, B: 4, Cp: 3, Width: 2, Streaming: true},
	{TwoTable: false, Kind: Zip, B: 8, Cp: 3, Width: 2},
	{TwoTable: false, Kind: Unzip, B: 2, Cp: 3, Width: 4},
	{TwoTable: false, Kind: Unzip, B: 2, Cp: 4, Width: 8},
	{TwoTable: false, Kind: Unzip, B: 3, Cp: 2, Width: 2, Streaming: true},
	{TwoTable: false, Kind: Unzip, B: 3, Cp: 3, Width: 2, Streaming: true},
	{TwoTable: false, Kind: Unzip, B: 3, Cp: 4, Width: 2, Streaming: true},
	{TwoTable: false, Kind: Unzip, B: 4, Cp: 3, Width: 2, Streaming: true},
	{TwoTable: false, Kind: Unzip, B: 8, Cp: 2, Width: 4},
	{TwoTable: false, Kind: Unzip, B: 8, Cp: 4, Width: 2},
	{TwoTable: true, Kind: Zip, B: 2, Cp: 3, Width: 8},
	{TwoTable: true, Kind: Zip, B: 2, Cp: 4, Width: 8},
	{TwoTable: true, Kind: Zip, B: 3, Cp: 2, Width: 8},
	{TwoTable: true, Kind: Zip, B: 4, Width: 4},
	{TwoTable: true, Kind: Zip, B: 4, Width: 8},
	{TwoTable: true, Kind: Zip, B: 4, Width: 12},
	{TwoTable: true, Kind: Zip, B: 4, Cp: 3, Width: 4},
	{TwoTable: true, Kind: Unzip, B: 2, Cp: 4, Width: 8},
	{TwoTable: true, Kind: Unzip, B: 3, Cp: 2, Width: 8},
	{TwoTable: true, Kind: Unzip, B: 3, Cp: 3, Width: 8},
	{TwoTable: true, Kind: Unzip, B: 3, Cp: 4, Width: 8},
	{TwoTable: true, Kind: Unzip, B: 6, Width: 8},
	{TwoTable: true, Kind: Unzip, B: 7, Width: 8},
	{TwoTable: true, Kind: Unzip, B: 8, Width: 8},
	{TwoTable: true, Bytes: without, Kind: Zip, B: 2, Width: 2},
	{TwoTable: true, Bytes: without, Kind: Zip, B: 2, Cp: 2, Width: 2},
	{TwoTable: true, Bytes: without, Kind: Zip, B: 4, Cp: 2, Width: 2},
	{TwoTable: true, Bytes: without, Kind: Unzip, B: 2, Width: 1},
	{TwoTable: true, Bytes: without, Kind: Unzip, B: 4, Cp: 2, Width: 2},
	{TwoTable: true, Bytes: without, Kind: Unzip, B: 8, Width: 1},
	{TwoTable: true, Bytes: with, Kind: Zip, B: 2, Width: 1},
	{TwoTable: true, Bytes: with, Kind: Zip, B: 2, Width: 2},
	{TwoTable: true, Bytes: with, Kind: Zip, B: 2, Cp: 2, Width: 1},
	{TwoTable: true, Bytes: with, Kind: Zip, B: 2, Cp: 2, Width: 2},
	{TwoTable: true, Bytes: with, Kind: Zip, B: 2, Cp: 4, Width: 1},
	{TwoTable: true, Bytes: with, Kind: Zip, B: 4, Cp: 2, Width: 1},
	{TwoTable: true, Bytes: with, Kind: Zip, B: 4, Cp: 2, Width: 2},
	{TwoTable: true, Bytes: with, Kind: Zip, B: 4, Cp: 4, Width: 1},
	{TwoTable: true, Bytes: with, Kind: Unzip, B: 2, Cp: 4, Width: 1},
	{TwoTable: true, Bytes: with, Kind: Unzip, B: 4, Cp: 2, Width: 1},
	{TwoTable: true, Bytes: with, Kind: Unzip, B: 4, Cp: 2, Width: 2},
	{TwoTable: true, Bytes: with, Kind: Unzip, B: 4, Cp: 4, Width: 1},
	{TwoTable: true, Bytes: with, Kind: Unzip, B: 8, Width: 1},
}

// out reports whether kernel k of ISA i is one of measuredOut.
func (i ISA) out(k Kernel) bool {
	bytes := either
	if k.Width <= 2 && i.TwoTable() {
		bytes = without
		if i.BytePermutes() {
			bytes = with
		}
	}
	return slices.Contains(measuredOut, measured{i.TwoTable(), bytes, k.Kind, k.B, k.Cp, k.Width, k.Streaming}) ||
		bytes != either && slices.Contains(measuredOut, measured{i.TwoTable(), either, k.Kind, k.B, k.Cp, k.Width, k.Streaming})
}

// slowZip reports whether an ISA leaves the zips of b lanes of w-byte
// elements to its base: the AVX-512 zips by 8, and by 2 of 4- and 8-byte
// elements, build each output register from more than one two-table
// permute, which AMD's Zen 4 and Zen 5, the AVX-512 CPUs this project
// measures on, run slower than AVX2's unpacks (0.80-0.96 of AVX2's speed
// on a Zen 5, BenchmarkLaneKernels); no measured case gains from them.
func (i ISA) slowZip(kind Kind, b, w int) bool {
	return i.TwoTable() && kind == Zip && (b == 8 || b == 2 && (w == 4 || w == 8))
}

// Kernels lists the kernels of one ISA.
func Kernels(i ISA) []Kernel {
	all := kernels(i)
	out := all[:0]
	for _, k := range all {
		if (k.Kind == Zip || k.Kind == Unzip) && (i.out(k) || k.Cp == 0 && k.B > 0 && !k.Streaming && i.slowZip(k.Kind, k.B, k.Width)) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// kernels lists the kernels of one ISA before measuredOut and slowZip.
func kernels(i ISA) []Kernel {
	var out []Kernel
	for _, kind := range []Kind{Zip, Unzip} {
		for _, b := range Blocks {
			for _, w := range append(slices.Clone(Widths), RunWidths(b)...) {
				if i.has(b, w) || i.pairsBytes(kind, b, w) || i.RotatesBytes(kind, b, w) {
					out = append(out, Kernel{ISA: i, Kind: kind, B: b, Width: w})
				}
			}
			for _, w := range Widths {
				if slices.Contains(Common, b) && i.streams() {
					out = append(out, Kernel{ISA: i, Kind: kind, B: b, Width: w, Streaming: true})
				}
			}
			cps, widths := Transposes(b)
			for _, cp := range cps {
				for _, w := range widths {
					if pixelFits(b, cp, w) && i.has(b, w) && i.beatsLanes(kind, b, cp, w) {
						out = append(out, Kernel{ISA: i, Kind: kind, B: b, Width: w, Cp: cp})
					}
					if pixelFits(b, cp, w) && i.streams() {
						out = append(out, Kernel{ISA: i, Kind: kind, B: b, Width: w, Cp: cp, Streaming: true})
					}
				}
			}
		}
		if !i.TwoTable() {
			out = append(out, Kernel{ISA: i, Kind: kind, Width: 16})
		}
	}
	for _, u := range i.StackGrains() {
		out = append(out, Kernel{ISA: i, Kind: StackZip, B: 2, Width: u}, Kernel{ISA: i, Kind: StackUnzip, B: 2, Width: u})
	}
	for _, w := range i.BundleWidths() {
		out = append(out, Kernel{ISA: i, Kind: BundleZip, B: 2, Width: w}, Kernel{ISA: i, Kind: BundleUnzip, B: 2, Width: w})
	}
	for g := 1; g <= i.Windows().MaxGroups; g++ {
		out = append(out, Kernel{ISA: i, Kind: Gather, Groups: g})
	}
	for _, w := range i.TileWidths() {
		for _, k := range i.Tiles(w) {
			out = append(out, k)
			if k.StreamingTile() {
				k.Streaming = true
				out = append(out, k)
			}
		}
	}
	out = append(out, Kernel{ISA: i, Kind: Copy})
	if i.streams() {
		out = append(out, Kernel{ISA: i, Kind: Copy, Streaming: true}, Kernel{ISA: i, Kind: Stream})
	}
	return out
}

// StackGrains are the grains, in bytes, of an ISA's stacked-row
// kernels, whose two-table permutes move grains of 1 (VPERMI2B), 2
// (VPERMI2W) or 4 bytes (VPERMI2D): the runtime takes the largest that
// divides the element size. Without byte permutes (AVX-512 BW) the kernels
// of 1-byte grains move 1-byte elements as pairs with VPERMI2W
// (internal/stack). Only the ISAs with two-table permutes have them: AVX2
// and NEON permute bytes only within 16-byte lanes.
func (i ISA) StackGrains() []int {
	if i.TwoTable() {
		return []int{1, 2, 4}
	}
	return nil
}

// BundleWidths are the element widths of an ISA's bundle kernels: AVX2's
// and NEON's, which permute bytes within 16-byte registers only. The
// AVX-512 tiers stack rows of up to 64 bytes instead, and hand longer ones
// to their base, AVX2.
func (i ISA) BundleWidths() []int {
	if !i.TwoTable() {
		return []int{1, 2, 4, 8}
	}
	return nil
}

// TileWidths are the word sizes of an ISA's tile kernels: every one for
// the ISAs whose widest registers are 32 bytes of 16-byte lanes (vec.Tile;
// AVX2), and for those with two-table permutes of 64-byte registers
// (AVX-512), whose tiles read or write whole cache lines, which AVX2's
// cannot hold in 16 registers (on a Zen 5, a 1024x1024 matrix of 4-byte
// words, rows 4 KiB apart, moved at 0.29 of copy() with AVX2's tiles,
// 0.50 with AVX-512's). Bytes go by in-lane unpacks of four rows to a
// register (vec.Tile512Lanes), whose columns are whole-line stores;
// 2-byte words two rows to a register (vec.Tile512Halves), and 4- and
// 8-byte words a row a register (vec.Tile512Blocks), by in-lane unpacks
// and lane shuffles. On a Zen 5, against the tiles before
// them (ratio to copy()): 1024x1024 bytes 0.32 -> 0.62 (AVX2's program in
// 32 registers before), of 2-byte words 0.42 -> 0.70 and NCHW to NHWC of
// 1x256x28x28 0.47 -> 0.68 (block swaps of two-table permutes, a row a
// register, before). Block swaps of bytes, with VBMI's byte permutes, lost
// (1x64x56x56, 0.30 against 0.43), and so did bytes in 16 rows of 64, one
// row a register (1024x1024 at 0.19). For 2-, 4- and 8-byte words the
// halves and blocks beat the lane tile (2 and 4) and the block swaps (8)
// 1.15x, 1.3x and 1.6x in L1, and about 1.03x to 1.05x (0.95x to 1.27x)
// on the report's tensors, which come from L2.
// ISAs of 16-byte registers (NEON) have vec.Tile16's, one register a row.
func (i ISA) TileWidths() []int {
	switch {
	case i.Vector() <= 2*vec.LaneBytes && !i.TwoTable():
		return []int{1, 2, 4, 8}
	case i.Vector() == vec.ZMM && i.TwoTable():
		return []int{1, 2, 4, 8}
	}
	return nil
}

// Tiles are an ISA's tile kernels of w-byte words, the largest tile
// first (B is a kernel's rows): a matrix takes the first whose tile fits
// it. AVX-512's bytes have a second tile, 16 rows of 64 bytes, one row a
// register (vec.Tile512Rows), for matrices of 16 to 63 rows, which would
// take AVX2's: on a Zen 5, NCHW to NHWC of 1x16x112x112 at 0.65 of copy()
// against 0.44. (For all matrices it lost: 1024x1024 at 0.19 against
// 0.62, its 16-byte column stores leaving lines half written.)
func (i ISA) Tiles(w int) []Kernel {
	if !slices.Contains(i.TileWidths(), w) {
		return nil
	}
	k := Kernel{ISA: i, Kind: Tile, Width: w}
	k.B, _ = k.TileShape() // the ISA's tile for w, B unset
	out := []Kernel{k}
	if i.TwoTable() && w == 1 {
		k.B, _ = vec.TileShapeRows()
		out = append(out, k)
	}
	return out
}

// StreamingTile reports whether a tile kernel has a twin that writes with
// non-temporal stores: AVX-512's whose tiles store each column as one
// whole 64-byte line. On a Zen 5, NCHW to NHWC of 1x64x270x480 of 4-byte
// words (33 MB, two goroutines) moved at 0.65 of copy() with ordinary
// stores, 0.87 with streaming ones. Columns of 16 or 32 bytes (AVX2's
// tiles) would leave lines half written.
func (k Kernel) StreamingTile() bool {
	b, _ := k.TileShape()
	return k.Kind == Tile && k.ISA.TwoTable() && k.ISA.Vector() == vec.ZMM && b*k.Width == vec.ZMM
}

// TileShape is the tile of a tile kernel: b rows of chunk bytes. B
// chooses among an ISA's tiles for its width (Tiles); unset, the first.
func (k Kernel) TileShape() (b, chunk int) {
	switch {
	case k.ISA.TwoTable() && k.Width == 1 && k.B == vec.LaneBytes:
		return vec.TileShapeRows()
	case k.ISA.TwoTable() && k.Width >= 4:
		return vec.TileShapeBlocks(k.Width)
	case k.ISA.TwoTable():
		return vec.TileShapeLanes(k.Width)
	case k.ISA.Vector() == vec.LaneBytes:
		return vec.TileShape16(k.Width)
	}
	return vec.TileShape(k.Width)
}

// MaxTileWidth is the largest word of any ISA's tile kernels.
func MaxTileWidth() int {
	n := 0
	for _, i := range ISAs() {
		n = max(n, slices.Max(append(ISA(i.Name).TileWidths(), 0)))
	}
	return n
}

// BytePermutes reports whether the ISA permutes bytes across a register.
func (i ISA) BytePermutes() bool { return i.desc().BytePermutes }

// MaxStackGrain is the largest permute grain of any ISA's stacked-row
// kernels.
func MaxStackGrain() int {
	n := 0
	for _, i := range ISAs() {
		n = max(n, slices.Max(append(ISA(i.Name).StackGrains(), 0)))
	}
	return n
}

// MaxBundleWidth is the largest element width of any ISA's row-grain
// kernels.
func MaxBundleWidth() int {
	n := 0
	for _, i := range ISAs() {
		n = max(n, slices.Max(append(ISA(i.Name).BundleWidths(), 0)))
	}
	return n
}

// MaxGroups is the most groups of windows a gather kernel of any ISA
// takes.
func MaxGroups() int {
	n := 0
	for _, i := range ISAs() {
		n = max(n, i.Windows.MaxGroups)
	}
	return n
}

// Limits are the largest block size, element size and C' of the
// transposing kernels the table has: the dimensions of the runtime's
// kernel tables.
func Limits() (block, width, cp int) {
	block, width = slices.Max(Blocks), slices.Max(Widths)
	for _, b := range Blocks {
		cps, _ := Transposes(b)
		for _, c := range cps {
			cp = max(cp, c)
		}
	}
	return block, width, cp
}
