package arm64

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

func init() {
	lowerings[table.Tiles] = func(g *Generator, k table.Kernel) (int, error) {
		return 0, g.tile(k)
	}
}

// tile writes a tile kernel: three loops, over bands, strips and tiles,
// around the proven tile program (vec.Tile16), its loads first, row by
// row, each stepping a pointer down src by srcRow, and its stores last,
// column by column, stepping one down dst by dstRow, so that no row or
// column needs a register of its own.
func (g *Generator) tile(k table.Kernel) error {
	p, err := vec.Tile16(k.Width)
	if err != nil {
		return err
	}
	b, chunk := k.TileShape()
	g.function(k.Name(), fmt.Sprintf("transposes tiles of %d rows of %d bytes of %d-byte words, in each strip of each band.", b, chunk, k.Width), table.Tiles.Signature)
	g.params(table.Tiles.Signature, map[string]string{
		"dst": "R0", "src": "R1", "tiles": "R2", "strips": "R3", "bands": "R4", "dstRow": "R5", "srcRow": "R6",
		"dstTile": "R7", "srcTile": "R8", "dstSkip": "R9", "srcSkip": "R10", "dstBandSkip": "R11", "srcBandSkip": "R12",
	})
	const strips, tiles, load, store = "R13", "R14", "R15", "R16"
	band, strip, tile := g.label("band"), g.label("strip"), g.label("tile")
	g.put(band)
	g.ins("MOVD R3, %s", strips)
	g.put(strip)
	g.ins("MOVD R2, %s", tiles)
	g.put(tile)
	g.ins("MOVD R1, %s", load)
	g.ins("MOVD R0, %s", store)
	g.lowerTile(p.Grouped(), load, store)
	g.ins("ADD R8, R1, R1")
	g.ins("ADD R7, R0, R0")
	g.ins("SUBS $1, %s, %s", tiles, tiles)
	g.ins("BNE %s", tile)
	g.ins("ADD R10, R1, R1")
	g.ins("ADD R9, R0, R0")
	g.ins("SUBS $1, %s, %s", strips, strips)
	g.ins("BNE %s", strip)
	g.ins("ADD R12, R1, R1")
	g.ins("ADD R11, R0, R0")
	g.ins("SUBS $1, R4, R4")
	g.ins("BNE %s", band)
	g.ins("RET")
	return nil
}

// lowerTile emits a tile program whose loads read rows 0, 1, ... and whose
// stores write columns 0, 1, ... in that order, whole registers each,
// with post-indexed loads and stores from pointers load and store, which
// step by srcRow (R6) and dstRow (R5).
func (g *Generator) lowerTile(p *vec.Prog, load, store string) {
	alloc := p.Allocate(vec.Alloc{Regs: vectorRegs})
	regs := alloc.Of
	loads, stores := 0, 0
	for _, in := range p.Instrs {
		switch in.Op {
		case vec.Load:
			if in.Mem != (vec.Mem{Stream: loads}) || in.Size != vec.LaneBytes {
				panic(fmt.Sprintf("arm64: tile load %d of %d bytes at %v", loads, in.Size, in.Mem))
			}
			g.ins("VLD1.P (%s)(R6), [V%d.B16]", load, regs[in.Dst])
			loads++
		case vec.Store:
			if in.Mem != (vec.Mem{Stream: stores}) || in.Size != vec.LaneBytes || in.Part != 0 {
				panic(fmt.Sprintf("arm64: tile store %d of %d bytes at %v", stores, in.Size, in.Mem))
			}
			g.ins("VST1.P [V%d.B16], (%s)(R5)", regs[in.A], store)
			stores++
		case vec.Interleave:
			op := map[bool]string{false: "VZIP1", true: "VZIP2"}[in.High]
			arr := arrangement(in.Grain, 16)
			g.ins("%s V%d.%s, V%d.%s, V%d.%s", op, regs[in.B], arr, regs[in.A], arr, regs[in.Dst], arr)
		default:
			panic(fmt.Sprintf("arm64: no lowering of %v in tile programs", in.Op))
		}
	}
}
