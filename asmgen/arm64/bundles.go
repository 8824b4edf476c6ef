package arm64

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
	"github.com/blockshuffle/blockshuffle/internal/stack"
)

// Registers of the bundle kernels, beside the arguments (R0-R6) and the
// lower's own (ilvPtr, addrTmp, tmp).
const (
	bundleD     = "R7"  // the bundle's depth side
	bundleS     = "R8"  // its space side
	bundlesLeft = "R9"  // bundles left in the group
	bundleLimit = "R10" // n - the exact chunk: where a row's last exact chunk starts
	bundleOff   = "R11" // bytes of the row done
)

// bundleLanes are the two lanes (planes 2i and 2i+1) of the row a chunk
// moves.
var bundleLanes = []string{"R12", "R13"}

func init() {
	lowerings[table.Bundles] = func(g *Generator, k table.Kernel) (int, error) {
		return 0, g.bundleRows(k)
	}
}

// bundleRows writes bundle kernel k (table.Bundles.Signature), as asmgen/amd64 does
// for AVX2: per bundle, the zip2 (unzip2) program of one chunk for each of
// the bundle's two space rows, the smallest chunk that holds the row (rows
// longer than 32 bytes loop over 32-byte chunks), each chunk running past
// the row's end into the next bundle, which rewrites those bytes; the last
// bundle of each SpaceToDepth group and of each DepthToSpace call moves
// exactly, its last chunk backing up to end at the row's end.
func (g *Generator) bundleRows(k table.Kernel) error {
	what := "DepthToSpace: four planes' rows into the two rows they make"
	if k.Unzip {
		what = "SpaceToDepth: two rows into the four planes' rows they come from"
	}
	unzip := k.Unzip
	var chunks []int
	for _, c := range stack.BundleChunks {
		if c >= k.Width {
			chunks = append(chunks, c)
		}
	}
	progs, err := vec.Bodies(k.Name(), chunks, dataRegs, nil, func(c int) (*vec.Prog, error) {
		one := vec.UnpackZip
		if unzip {
			one = vec.UnpackUnzip
		}
		p, err := one(2, k.Width, min(c, 16))
		if err != nil || c <= 16 {
			return p, err
		}
		return vec.Twice(p, 2, k.Width, unzip)
	})
	if err != nil {
		return err
	}
	g.function(k.Name(), fmt.Sprintf("runs bundles of one row of each of four planes of an NCHW %s, %d-byte elements, each row in whole chunks, past its end, but the last bundle of a SpaceToDepth group and of a DepthToSpace call exactly.", what, k.Width), table.Bundles.Signature)
	g.params(table.Bundles.Signature, map[string]string{"space": "R0", "depth": "R1", "n": "R2", "bundles": "R3", "plane": "R4", "groups": "R5", "group": "R6"})
	// A path per chunk, for the rows that fit it and not the one before,
	// then one looping over the largest chunk. The exact bundle moves its
	// rows in chunks of half the size (the smallest path's rows are one
	// chunk; the loop's, longer than the largest, in chunks of it).
	type path struct {
		label        string
		chunk, exact int
		loop         bool
	}
	var paths []path
	for i, c := range chunks {
		exact := c / 2
		if i == 0 {
			exact = c
		}
		paths = append(paths, path{g.label("rowchunk"), c, exact, false})
		g.ins("CMP $%d, R2", c)
		g.ins("BLS %s", paths[i].label)
	}
	last := chunks[len(chunks)-1]
	paths = append(paths, path{g.label("rowchunks"), last, last, true})
	g.ins("B %s", paths[len(paths)-1].label)
	for _, p := range paths {
		g.put(p.label)
		masks := g.hoistMasks(progs[p.chunk])
		exactMasks := g.hoistMasks(progs[p.exact])
		for key, r := range exactMasks {
			if masks[key] != r {
				exactMasks = nil // load them where used
				break
			}
		}
		g.ins("SUB $%d, R2, %s", p.exact, bundleLimit)
		group, bundle, lastBundle, next := g.label("group"), g.label("bundle"), g.label("lastbundle"), g.label("nextgroup")
		g.put(group)
		g.ins("MOVD R1, %s", bundleD)
		g.ins("MOVD R0, %s", bundleS)
		g.ins("MOVD R3, %s", bundlesLeft)
		if !unzip {
			// The space sides of consecutive groups follow each other:
			// a DepthToSpace group's last bundle may write its slop into
			// the next group, which rewrites it.
			g.ins("CMP $1, R5")
			g.ins("BNE %s", bundle)
		}
		g.ins("SUBS $1, %s, %s", bundlesLeft, bundlesLeft)
		g.ins("BEQ %s", lastBundle)
		g.put(bundle)
		for row := range 2 {
			g.bundleRow(row)
			if !p.loop {
				g.lower(progs[p.chunk], unzip, bundleLanes, masks)
				continue
			}
			chunk := g.label("chunk")
			g.ins("MOVD R2, %s", bundleOff) // bytes left
			g.put(chunk)
			g.lower(progs[p.chunk], unzip, bundleLanes, masks)
			g.advance(p.chunk)
			g.ins("SUBS $%d, %s, %s", p.chunk, bundleOff, bundleOff)
			g.ins("BGT %s", chunk)
		}
		g.ins("ADD R2, %s, %s", bundleD, bundleD)
		g.ins("ADD R2<<2, %s, %s", bundleS, bundleS)
		g.ins("SUBS $1, %s, %s", bundlesLeft, bundlesLeft)
		g.ins("BNE %s", bundle)
		if !unzip {
			g.ins("CMP $1, R5")
			g.ins("BNE %s", next)
		}
		g.put(lastBundle)
		for row := range 2 {
			g.bundleRow(row)
			g.exactRow(progs[p.exact], p.exact, unzip, exactMasks)
		}
		g.put(next)
		g.ins("ADD R6, R0, R0")
		g.ins("ADD R6, R1, R1")
		g.ins("SUBS $1, R5, R5")
		g.ins("BNE %s", group)
		g.ins("RET")
	}
	return nil
}

// bundleRow points the lanes and the interleaved side at space row i of the
// bundle at bundleD and bundleS: planes 2i and 2i+1, and 2*i*n bytes into the
// bundle's space side.
func (g *Generator) bundleRow(i int) {
	g.ins("MOVD %s, %s", bundleD, bundleLanes[0])
	g.ins("MOVD %s, %s", bundleS, ilvPtr)
	if i == 1 {
		g.ins("ADD R4<<1, %s, %s", bundleLanes[0], bundleLanes[0])
		g.ins("ADD R2<<1, %s, %s", ilvPtr, ilvPtr)
	}
	g.ins("ADD R4, %s, %s", bundleLanes[0], bundleLanes[1])
}

// advance moves the lanes and the interleaved side on by one chunk.
func (g *Generator) advance(chunk int) {
	for _, r := range bundleLanes {
		g.ins("ADD $%d, %s, %s", chunk, r, r)
	}
	g.ins("ADD $%d, %s, %s", 2*chunk, ilvPtr, ilvPtr)
}

// exactRow moves the row the pointers are at exactly: chunks from its
// start, the last one backed up to end at the row's end (bundleLimit is
// n - chunk).
func (g *Generator) exactRow(p *vec.Prog, chunk int, unzip bool, masks map[string]int) {
	again, done := g.label("exact"), g.label("exactdone")
	g.ins("MOVD ZR, %s", bundleOff) // bytes done before this chunk
	g.put(again)
	g.lower(p, unzip, bundleLanes, masks)
	g.ins("CMP %s, %s", bundleLimit, bundleOff)
	g.ins("BEQ %s", done)
	// The next chunk starts min(off + chunk, limit) bytes in.
	g.ins("ADD $%d, %s, %s", chunk, bundleOff, tmp)
	g.ins("CMP %s, %s", bundleLimit, tmp)
	g.ins("CSEL GT, %s, %s, %s", bundleLimit, tmp, tmp)
	g.ins("SUB %s, %s, %s", bundleOff, tmp, addrTmp) // how far the pointers move
	for _, r := range bundleLanes {
		g.ins("ADD %s, %s, %s", addrTmp, r, r)
	}
	g.ins("ADD %s<<1, %s, %s", addrTmp, ilvPtr, ilvPtr)
	g.ins("MOVD %s, %s", tmp, bundleOff)
	g.ins("B %s", again)
	g.put(done)
}
