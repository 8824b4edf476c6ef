// Package arm64 writes the NEON kernels of the kernel table as Go arm64
// assembly. avo has no arm64 back end, so this package prints the
// instructions itself.
//
// Zips and unzips of 2, 3 and 4 lanes are single structure stores and
// loads (VST2..VST4, VLD2..VLD4); 8 lanes are zipped in pairs first. Every
// other kernel lowers the same verified vec programs as the AVX2 back end,
// in 16-byte registers, with VTBL for byte shuffles.
package arm64

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
)

// Signatures of the kernels, as in the kernels package.
const (
	ZipSignature  = "(space, depth *byte, n, rows, spaceStride, depthStride, lane, laneI, groups, groupSpace, groupDepth int)"
	ZipNSignature = "(space, depth *byte, n, rows, spaceStride, depthStride, lane, groups, groupSpace, groupDepth, b int)"
	RunsSignature = "(dst, src *byte, e, w, dstX, srcX, rows, dstRow, srcRow, groups, dstGroup, srcGroup int)"
)

// Generator accumulates the kernels of one assembly file.
type Generator struct {
	text   strings.Builder
	stubs  strings.Builder
	data   strings.Builder
	consts map[string]string // mask bytes -> symbol
	labels int
}

// New starts a file of NEON kernels.
func New() *Generator { return &Generator{consts: map[string]string{}} }

// Assembly returns the .s file, with header as its first comment line.
func (g *Generator) Assembly(header string) string {
	return "// " + header + "\n\n//go:build !purego\n\n#include \"textflag.h\"\n" + g.text.String() + g.data.String()
}

// Stubs returns the Go declarations of the kernels.
func (g *Generator) Stubs(header string) string {
	return "// " + header + "\n\n//go:build !purego\n\npackage kernels\n" + g.stubs.String()
}

func (g *Generator) label(what string) string {
	g.labels++
	return fmt.Sprintf("%s%d", what, g.labels)
}

// ins writes one instruction.
func (g *Generator) ins(format string, args ...any) {
	fmt.Fprintf(&g.text, "\t"+format+"\n", args...)
}

func (g *Generator) put(label string) { fmt.Fprintf(&g.text, "%s:\n", label) }

// function starts a kernel: its Go declaration and its TEXT line, with the
// frame size asmdecl expects for the signature's arguments.
func (g *Generator) function(name, doc, signature string) {
	args := strings.Count(signature, ",") + 1
	fmt.Fprintf(&g.stubs, "\n// %s %s\n//\n//go:noescape\nfunc %s%s\n", name, doc, name, signature)
	fmt.Fprintf(&g.text, "\n// func %s%s\nTEXT ·%s(SB), NOSPLIT|NOFRAME, $0-%d\n", name, signature, name, 8*args)
}

// params loads arguments into registers, by name in signature order.
func (g *Generator) params(signature string, regs map[string]string) {
	names := strings.Split(strings.NewReplacer("(", "", ")", "", " *byte", "", " int", "").Replace(signature), ", ")
	for i, name := range names {
		if r, ok := regs[name]; ok {
			g.ins("MOVD %s+%d(FP), %s", name, 8*i, r)
		}
	}
}

// Kernel adds one kernel of the table and returns the shortest row, in
// bytes, a fixed-b kernel handles (0 for the others).
func (g *Generator) Kernel(k table.Kernel) (int, error) {
	switch {
	case k.Kind == table.Runs:
		g.copyRuns(k)
		return 0, nil
	case k.B == 0:
		g.moveN(k)
		return 0, nil
	}
	bodies, err := Bodies(k)
	if err != nil {
		return 0, err
	}
	g.fixedB(k, bodies)
	return slices.Min(chunksOf(bodies)), nil
}

// A body moves one chunk: chunk bytes of every lane and b*chunk bytes of
// the interleaved side. Structure bodies are written out directly and
// advance the pointers themselves; the others are vec programs.
type body struct {
	prog *vec.Prog
	emit func(g *Generator, lanes []string, ilv string) // advances lanes and ilv
}

func chunksOf(bodies map[int]body) []int {
	var out []int
	for c := range bodies {
		out = append(out, c)
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out
}

// Bodies returns the chunk bodies of a fixed-b kernel, by chunk size.
func Bodies(k table.Kernel) (map[int]body, error) {
	out := map[int]body{}
	unzip := k.Kind == table.Unzip
	switch {
	case k.Cp == 0 && k.Width <= 8 && k.Width&(k.Width-1) == 0 && (k.B <= 4 || k.B == 8):
		chunks := []int{32, 16}
		if k.Width < 8 && k.B <= 4 { // 8-byte registers
			chunks = append(chunks, 8)
		}
		for _, c := range chunks {
			out[c] = body{emit: structBody(k.B, k.Width, c, unzip)}
		}
		return out, nil
	}
	var build func(chunk int) (*vec.Prog, error)
	var chunks []int
	switch {
	case k.Cp > 0 || k.Width&(k.Width-1) != 0:
		pd := vec.Runs(k.B, k.Width)
		if k.Cp > 0 {
			pd = vec.CRD(k.B, k.Cp, k.Width)
		}
		chunks = pd.Chunks()
		build = func(c int) (*vec.Prog, error) {
			if unzip {
				return vec.PeriodUnzip(pd, c)
			}
			return vec.PeriodZip(pd, c)
		}
	case k.Width == vec.LaneBytes:
		chunks = []int{16}
		build = func(c int) (*vec.Prog, error) {
			if unzip {
				return vec.LaneUnzip(k.B, c)
			}
			return vec.LaneZip(k.B, c)
		}
	default: // block sizes without structure instructions
		chunks = []int{16}
		build = func(c int) (*vec.Prog, error) {
			if unzip {
				return vec.ShuffleUnzip(k.B, k.Width, c)
			}
			return vec.ShuffleZip(k.B, k.Width, c)
		}
	}
	for _, c := range chunks {
		p, err := build(c)
		if err != nil {
			return nil, fmt.Errorf("%s, %d-byte chunks: %w", k.Name(), c, err)
		}
		if live := p.MaxLive(func(vec.Instr) int { return 0 }); live > dataRegs {
			return nil, fmt.Errorf("%s, %d-byte chunks: %d values live, %d registers", k.Name(), c, live, dataRegs)
		}
		out[c] = body{prog: p}
	}
	return out, nil
}

// arrangement is the NEON arrangement of a register of unit-byte elements,
// for 16-byte registers or for 8-byte ones.
func arrangement(unit, regBytes int) string {
	return map[[2]int]string{
		{1, 16}: "B16", {2, 16}: "H8", {4, 16}: "S4", {8, 16}: "D2",
		{1, 8}: "B8", {2, 8}: "H4", {4, 8}: "S2",
	}[[2]int{unit, regBytes}]
}

// regList is a register list such as [V0.B16, V1.B16].
func regList(first, n int, arr string) string {
	var r []string
	for i := range n {
		r = append(r, fmt.Sprintf("V%d.%s", first+i, arr))
	}
	return "[" + strings.Join(r, ", ") + "]"
}

// structBody is a zip (or unzip) chunk built on structure stores (loads):
// VST2..VST4 interleave 2 to 4 registers by element; 8 lanes are first
// zipped in pairs, which doubles the element, and stored with VST4 (with
// 16-byte pairs, stored in order with VST1). A chunk of 32 bytes is two of
// 16; a chunk of 8 uses the 8-byte registers.
func structBody(b, w, chunk int, unzip bool) func(g *Generator, lanes []string, ilv string) {
	return func(g *Generator, lanes []string, ilv string) {
		reg := min(chunk, 16)
		for half := range chunk / reg {
			base := 16 * half // V0..V7 for the first 16 bytes, V16..V23 for the second
			g.structPass(b, w, reg, base, unzip, lanes, ilv)
		}
	}
}

// structPass moves reg bytes of each lane (one register each).
func (g *Generator) structPass(b, w, reg, base int, unzip bool, lanes []string, ilv string) {
	load := func(v int, p string) {
		if reg == 16 {
			g.ins("VLD1.P %d(%s), [V%d.B16]", reg, p, v)
		} else {
			g.ins("FMOVD.P %d(%s), F%d", reg, p, v)
		}
	}
	store := func(v int, p string) {
		if reg == 16 {
			g.ins("VST1.P [V%d.B16], %d(%s)", v, reg, p)
		} else {
			g.ins("FMOVD.P F%d, %d(%s)", v, reg, p)
		}
	}
	if b <= 4 {
		list := regList(base, b, arrangement(w, reg))
		if unzip {
			g.ins("VLD%d.P %d(%s), %s", b, b*reg, ilv, list)
			for j := range b {
				store(base+j, lanes[j])
			}
		} else {
			for j := range b {
				load(base+j, lanes[j])
			}
			g.ins("VST%d.P %s, %d(%s)", b, list, b*reg, ilv)
		}
		return
	}
	// b = 8: pairs (2k, 2k+1) zipped at w make units of 2w, stored as 4
	// lanes: first the pairs' low halves (ZIP1), then their high halves.
	pairs := base + 8 // V8..V15 (V24..V31 for the second half): low halves, then high
	arr, pairArr := arrangement(w, reg), arrangement(2*w, reg)
	st := func(first int) string {
		if 2*w == 16 { // 16-byte units: just in order
			return fmt.Sprintf("VST1.P %s, %d(%s)", regList(first, 4, "B16"), 4*reg, ilv)
		}
		return fmt.Sprintf("VST4.P %s, %d(%s)", regList(first, 4, pairArr), 4*reg, ilv)
	}
	ld := func(first int) string {
		if 2*w == 16 {
			return fmt.Sprintf("VLD1.P %d(%s), %s", 4*reg, ilv, regList(first, 4, "B16"))
		}
		return fmt.Sprintf("VLD4.P %d(%s), %s", 4*reg, ilv, regList(first, 4, pairArr))
	}
	if unzip {
		g.ins("%s", ld(pairs))
		g.ins("%s", ld(pairs+4))
		for k := range 4 {
			g.ins("VUZP1 V%d.%s, V%d.%s, V%d.%s", pairs+4+k, arr, pairs+k, arr, base+2*k, arr)
			g.ins("VUZP2 V%d.%s, V%d.%s, V%d.%s", pairs+4+k, arr, pairs+k, arr, base+2*k+1, arr)
		}
		for j := range 8 {
			store(base+j, lanes[j])
		}
		return
	}
	for j := range 8 {
		load(base+j, lanes[j])
	}
	for k := range 4 {
		g.ins("VZIP1 V%d.%s, V%d.%s, V%d.%s", base+2*k+1, arr, base+2*k, arr, pairs+k, arr)
		g.ins("VZIP2 V%d.%s, V%d.%s, V%d.%s", base+2*k+1, arr, base+2*k, arr, pairs+4+k, arr)
	}
	g.ins("%s", st(pairs))
	g.ins("%s", st(pairs+4))
}
