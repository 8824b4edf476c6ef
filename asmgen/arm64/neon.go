// Package arm64 writes the NEON kernels of the kernel table as Go arm64
// assembly. avo has no arm64 back end, so this package prints the
// instructions itself.
//
// Zips and unzips of 3 lanes are structure stores and loads (VST3, VLD3);
// 8 lanes are zipped in pairs first and stored with VST4. Every other
// kernel lowers the same verified vec programs as the AVX2 back end, in
// 16-byte registers: VZIP and VUZP networks for 2 and 4 lanes, whole
// registers for 16-byte elements, and VTBL and VTBX for byte shuffles.
package arm64

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/asmgen/vec"
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

// Assembly returns the .s file, with header as its first comment line,
// built under the given build constraint.
func (g *Generator) Assembly(header, constraint string) string {
	return "// " + header + "\n\n//go:build " + constraint + "\n\n#include \"textflag.h\"\n" + g.text.String() + g.data.String()
}

// Stubs returns the Go declarations of the kernels.
func (g *Generator) Stubs(header, constraint string) string {
	return "// " + header + "\n\n//go:build " + constraint + "\n\npackage kernels\n" + g.stubs.String()
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
func (g *Generator) function(name, doc string, sig table.Signature) {
	fmt.Fprintf(&g.stubs, "\n// %s %s\n//\n//go:noescape\nfunc %s%s\n", name, doc, name, sig.Params())
	fmt.Fprintf(&g.text, "\n// func %s%s\nTEXT ·%s(SB), NOSPLIT|NOFRAME, $0-%d\n", name, sig.Params(), name, 8*len(sig.Names()))
}

// params loads arguments into registers, by name.
func (g *Generator) params(sig table.Signature, regs map[string]string) {
	for i, name := range sig.Names() {
		if r, ok := regs[name]; ok {
			g.ins("MOVD %s+%d(FP), %s", name, 8*i, r)
		}
	}
}

// Kernel adds one kernel of the table and returns the shortest row, in
// bytes, a fixed-b kernel handles (0 for the others).
func (g *Generator) Kernel(k table.Kernel) (int, error) {
	lower := lowerings[k.Family]
	if lower == nil {
		return 0, fmt.Errorf("%s: arm64 has no lowering of the %s family", k.Name(), k.Family.Name)
	}
	return lower(g, k)
}

// lowerings are the functions that lower each family's kernels: those
// of the lane kernels, of 16-byte elements at any b and of the run
// copier are here (kernels.go holds them); every other family's
// registers in its own file.
var lowerings = map[*table.Family]func(g *Generator, k table.Kernel) (minN int, err error){
	table.Lanes: func(g *Generator, k table.Kernel) (int, error) {
		bodies, err := Bodies(k)
		if err != nil {
			return 0, err
		}
		g.fixedB(k, bodies)
		return vec.Smallest(bodies), nil
	},
	table.AnyB:    func(g *Generator, k table.Kernel) (int, error) { g.moveN(k); return 0, nil },
	table.Copiers: func(g *Generator, k table.Kernel) (int, error) { g.copyRuns(k); return 0, nil },
}

// A body moves one chunk: chunk bytes of every lane and b*chunk bytes of
// the interleaved side, from the current pointers, which the kernel then
// advances. Structure bodies are written out directly; the others are vec
// programs.
type body struct {
	prog *vec.Prog
	emit func(g *Generator, lanes []string, ilv string)
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
	unzip := k.Unzip
	pow2 := k.Width <= 8 && k.Width&(k.Width-1) == 0
	switch {
	case k.Cp == 0 && pow2 && (k.B == 3 || k.B == 8):
		// Structure stores and loads interleave 3 or 4 registers in one
		// instruction, where a zip network needs no network at all (b = 3)
		// or three levels (b = 8). For b = 2 and 4 the networks below, with
		// paired loads and stores, win on Neoverse V1, V2 and Apple M1 by
		// llvm-mca 19, whose V1 and V2 models run VST2 and VST4 at a half
		// to a third of the store bandwidth.
		for _, c := range []int{32, 16, 8} {
			if c == 8 && (k.Width == 8 || k.B == 8) { // no arrangement of one 8-byte element; pairs need 16
				continue
			}
			out[c] = body{emit: structBody(k.B, k.Width, c, unzip)}
		}
		return out, nil
	}
	var build func(chunk int) (*vec.Prog, error)
	var chunks []int
	pd, period := vec.KernelPeriod(k.B, k.Cp, k.Width)
	switch {
	case period:
		chunks, build = pd.Chunks(), vec.PeriodBuilder(pd, unzip, vec.LaneBytes)
	case k.Cp == 0 && pow2 && (k.B == 2 || k.B == 4):
		// b = 2, 4: log2(b) levels of VZIP (VUZP), 16 bytes of each lane at
		// a time, done twice for 32-byte chunks so that loads and stores
		// pair up.
		chunks = []int{32, 16}
		if k.Width < 8 {
			chunks = append(chunks, 8)
		}
		build = func(c int) (*vec.Prog, error) {
			one := vec.UnpackZip
			if unzip {
				one = vec.UnpackUnzip
			}
			p, err := one(k.B, k.Width, min(c, 16))
			if err != nil || c <= 16 {
				return p, err
			}
			return vec.Twice(p, k.B, k.Width, unzip)
		}
	case k.Width == vec.LaneBytes:
		// Whole-register moves; two elements per lane and chunk, so that
		// loads and stores pair up.
		chunks = []int{32, 16}
		build = func(c int) (*vec.Prog, error) {
			one := vec.LaneZip
			if unzip {
				one = vec.LaneUnzip
			}
			p, err := one(k.B, 16)
			if err != nil || c == 16 {
				return p, err
			}
			return vec.Twice(p, k.B, 16, unzip)
		}
	default: // block sizes 5 to 7
		chunks = []int{16}
		build = func(c int) (*vec.Prog, error) {
			if unzip {
				return vec.ShuffleUnzip(k.B, k.Width, c)
			}
			return vec.ShuffleZip(k.B, k.Width, c)
		}
	}
	// Where a shuffle's result is ORed into another value, one TBX does
	// both.
	progs, err := vec.Bodies(k.Name(), chunks, dataRegs, nil, func(c int) (*vec.Prog, error) {
		p, err := build(c)
		if err != nil {
			return nil, err
		}
		return p.MergeShuffles()
	})
	if err != nil {
		return nil, err
	}
	for c, p := range progs {
		out[c] = body{prog: p}
	}
	return out, nil
}

// arrangement is the NEON arrangement of a register of grain-byte elements,
// for 16-byte registers or for 8-byte ones.
func arrangement(grain, regBytes int) string {
	return map[[2]int]string{
		{1, 16}: "B16", {2, 16}: "H8", {4, 16}: "S4", {8, 16}: "D2",
		{1, 8}: "B8", {2, 8}: "H4", {4, 8}: "S2",
	}[[2]int{grain, regBytes}]
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
// 16; a chunk of 8 uses the 8-byte registers. Addresses are offsets from
// the pointers, not post-increments: a chain of writebacks to one register
// would serialize the loop.
func structBody(b, w, chunk int, unzip bool) func(g *Generator, lanes []string, ilv string) {
	return func(g *Generator, lanes []string, ilv string) {
		reg := min(chunk, 16)
		for pass := range chunk / reg {
			g.structPass(b, w, reg, 16*pass, pass*reg, unzip, lanes, ilv)
		}
	}
}

// structPass moves reg bytes of each lane, at offset off of the lanes and
// b*off of the interleaved side, through registers V<base>...
func (g *Generator) structPass(b, w, reg, base, off int, unzip bool, lanes []string, ilv string) {
	mov := "FMOVQ"
	if reg == 8 {
		mov = "FMOVD"
	}
	load := func(v int, p string) { g.ins("%s %d(%s), F%d", mov, off, p, v) }
	store := func(v int, p string) { g.ins("%s F%d, %d(%s)", mov, v, off, p) }
	// at returns an address register for byte o of the interleaved side;
	// consecutive calls use different registers, so stores can overlap.
	addrs := []string{addrTmp, tmp}
	at := func(i, o int) string {
		if o == 0 {
			return "(" + ilv + ")"
		}
		r := addrs[i%2]
		g.ins("ADD $%d, %s, %s", o, ilv, r)
		return "(" + r + ")"
	}
	if b <= 4 {
		list := regList(base, b, arrangement(w, reg))
		if unzip {
			g.ins("VLD%d %s, %s", b, at(0, b*off), list)
			for j := range b {
				store(base+j, lanes[j])
			}
		} else {
			for j := range b {
				load(base+j, lanes[j])
			}
			g.ins("VST%d %s, %s", b, list, at(0, b*off))
		}
		return
	}
	// b = 8: pairs (2k, 2k+1) zipped at w make grains of 2w, stored as 4
	// lanes: first the pairs' low halves (ZIP1), then their high halves.
	pairs := base + 8 // V8..V15 (V24..V31 for the second pass)
	arr, pairArr := arrangement(w, reg), arrangement(2*w, reg)
	list := func(first int) string {
		if 2*w == 16 { // 16-byte grains: in order
			return regList(first, 4, "B16")
		}
		return regList(first, 4, pairArr)
	}
	op := func(n int) string {
		if 2*w == 16 {
			return "1"
		}
		return fmt.Sprint(n)
	}
	if unzip {
		g.ins("VLD%s %s, %s", op(4), at(0, 8*off), list(pairs))
		g.ins("VLD%s %s, %s", op(4), at(1, 8*off+4*reg), list(pairs+4))
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
	g.ins("VST%s %s, %s", op(4), list(pairs), at(0, 8*off))
	g.ins("VST%s %s, %s", op(4), list(pairs+4), at(1, 8*off+4*reg))
}
