// Command asmgen writes blockshuffle's generated code from the kernel
// families (asmgen/table) and the ISA table (internal/isa): for each ISA
// its assembly, the assembly's Go declarations and a table of the kernels
// that registers them at init, all in kernels/; the families' Go side in
// internal/simd (the limits, each signature's types and trampolines, the
// Table type and its merge with a base's); and dispatch's Tier constants.
// Run it through go generate in the kernels package:
//
//	go generate ./...
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"

	"github.com/blockshuffle/blockshuffle/asmgen/amd64"
	"github.com/blockshuffle/blockshuffle/asmgen/arm64"
	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/internal/isa"
)

func main() {
	// avo's build package registers its own flags on the default set.
	flags := flag.NewFlagSet("asmgen", flag.ExitOnError)
	root := flags.String("root", "..", "the root of the blockshuffle module")
	flags.Parse(os.Args[1:])
	log.SetFlags(0)
	log.SetPrefix("asmgen: ")
	f := folds{}
	for _, i := range table.ISAs() {
		var err error
		switch i.GOARCH {
		case "amd64":
			err = writeAMD64(*root, i, f)
		case "arm64":
			err = writeARM64(*root, i, f)
		default:
			err = fmt.Errorf("%s: no back end for %s", i.Name, i.GOARCH)
		}
		if err != nil {
			log.Fatal(err)
		}
	}
	if err := writeFamilies(filepath.Join(*root, "internal", "simd", "families.go")); err != nil {
		log.Fatal(err)
	}
	if err := writeTrampolines(filepath.Join(*root, "internal", "simd")); err != nil {
		log.Fatal(err)
	}
	if err := writePixels(*root); err != nil {
		log.Fatal(err)
	}
	if err := writeTiers(filepath.Join(*root, "dispatch", "tiers.go")); err != nil {
		log.Fatal(err)
	}
}

// cfg names the generator in the files' headers the same way on every run.
var cfg = printer.Config{Argv: []string{"go", "run", "./cmd/asmgen"}, Pkg: "kernels"}

// constraint keeps assembly out of builds without it: the purego tag, and
// compilers other than gc, which do not read Go assembly.
const constraint = "gc && !purego"

// backEnd adds kernels of the table to an assembly file and returns the
// shortest row, in bytes, each fixed-b kernel takes (0 for the others).
type backEnd interface {
	Kernel(k table.Kernel) (minN int, err error)
}

// addAll adds an ISA's kernels to a back end.
func addAll(g backEnd, ks []table.Kernel) (map[table.Kernel]int, error) {
	minN := map[table.Kernel]int{}
	for _, k := range ks {
		n, err := g.Kernel(k)
		if err != nil {
			return nil, err
		}
		minN[k] = n
	}
	return minN, nil
}

// base is the start of an ISA's file names, e.g. kernels/avx2_amd64.
func base(root string, i *isa.ISA) string {
	return filepath.Join(root, "kernels", strings.ToLower(i.Name)+"_"+i.GOARCH)
}

// tablePath is the file of an ISA's table, e.g. kernels/avx2_table_amd64.go:
// the architecture ends the name, so that only its builds compile it.
func tablePath(root string, i *isa.ISA) string {
	return filepath.Join(root, "kernels", strings.ToLower(i.Name)+"_table_"+i.GOARCH+".go")
}

// writeAMD64 writes one x86 ISA's kernels with avo: <isa>_amd64.s, its Go
// declarations and its table. Kernels the same as an earlier ISA's are
// folded onto them (fold.go).
func writeAMD64(root string, i *isa.ISA, f folds) error {
	ks := table.Kernels(table.ISA(i.Name))
	asm, stubs, minN, err := amd64Files(ks)
	if err != nil {
		return err
	}
	names, own := fold(f, i.GOARCH, asm, ks)
	if len(own) < len(ks) { // again, without the folded kernels
		if asm, stubs, _, err = amd64Files(own); err != nil {
			return err
		}
	}
	f.add(i.GOARCH, string(asm))
	if err := os.WriteFile(base(root, i)+".s", []byte(oneLine(string(asm))+entries(own)), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(base(root, i)+".go", stubs, 0o644); err != nil {
		return err
	}
	return writeTable(tablePath(root, i), i, ks, own, names, minN)
}

// amd64Files lowers kernels with avo: the assembly, its Go declarations,
// and the shortest row each fixed-b kernel takes.
func amd64Files(ks []table.Kernel) (asm, stubs []byte, minN map[table.Kernel]int, err error) {
	asm, stubs, err = avoFile(func(g *amd64.Generator) (err error) {
		minN, err = addAll(g, ks)
		return err
	})
	return asm, stubs, minN, err
}

// avoFile lowers with avo a file of the kernels add puts in it: the
// assembly and its Go declarations.
func avoFile(add func(g *amd64.Generator) error) (asm, stubs []byte, err error) {
	g := amd64.New("gc,!purego") // avo reads +build syntax: the same constraint
	if err := add(g); err != nil {
		return nil, nil, err
	}
	f, err := g.Result()
	if err != nil {
		return nil, nil, err
	}
	if err := pass.Compile.Execute(f); err != nil {
		return nil, nil, err
	}
	if asm, err = printer.NewGoAsm(cfg).Print(f); err != nil {
		return nil, nil, err
	}
	stubs, err = printer.NewStubs(cfg).Print(f)
	return asm, stubs, err
}

// fold returns the function each kernel's table entry names, and the
// kernels whose functions are not an earlier ISA's.
func fold(f folds, goarch string, asm []byte, ks []table.Kernel) (names map[table.Kernel]string, own []table.Kernel) {
	same := f.match(goarch, string(asm))
	names = map[table.Kernel]string{}
	for _, k := range ks {
		names[k] = k.Name()
		if other, ok := same[k.Name()]; ok {
			names[k] = other
			continue
		}
		own = append(own, k)
	}
	return names, own
}

// writeARM64 writes one arm64 ISA's kernels with the generator's own
// back end (avo has none for arm64), folded as writeAMD64 folds.
func writeARM64(root string, i *isa.ISA, f folds) error {
	ks := table.Kernels(table.ISA(i.Name))
	asm, stubs, minN, err := arm64Files(ks)
	if err != nil {
		return err
	}
	names, own := fold(f, i.GOARCH, []byte(asm), ks)
	if len(own) < len(ks) {
		if asm, stubs, _, err = arm64Files(own); err != nil {
			return err
		}
	}
	f.add(i.GOARCH, asm)
	if err := os.WriteFile(base(root, i)+".s", []byte(oneLine(asm)+entries(own)), 0o644); err != nil {
		return err
	}
	if err := writeGo(base(root, i)+".go", []byte(stubs)); err != nil {
		return err
	}
	return writeTable(tablePath(root, i), i, ks, own, names, minN)
}

// arm64Files writes kernels with the NEON back end: the assembly, its Go
// declarations, and the shortest row each fixed-b kernel takes.
func arm64Files(ks []table.Kernel) (asm, stubs string, minN map[table.Kernel]int, err error) {
	asm, stubs, err = neonFile(func(g *arm64.Generator) (err error) {
		minN, err = addAll(g, ks)
		return err
	})
	return asm, stubs, minN, err
}

// neonFile writes with the NEON back end a file of the kernels add puts
// in it: the assembly and its Go declarations.
func neonFile(add func(g *arm64.Generator) error) (asm, stubs string, err error) {
	g := arm64.New()
	if err := add(g); err != nil {
		return "", "", err
	}
	header := cfg.GeneratedWarning()
	return g.Assembly(header, constraint), g.Stubs(header, constraint), nil
}

// writeGo formats Go source and writes it.
func writeGo(path string, src []byte) error {
	src, err := format.Source(src)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return os.WriteFile(path, src, 0o644)
}

// entries defines the entry word of each kernel (see simd.LaneFunc): the
// tables name a kernel by the word's address, not by its Go func value, for
// which Go would link an ABI wrapper per kernel, 97 bytes of code and 180 of
// pclntab each, 0.13 MB of a hello world's binary in all.
func entries(own []table.Kernel) string {
	var b strings.Builder
	b.WriteString("\n// The entry words of the kernels.\n")
	for _, k := range own {
		fmt.Fprintf(&b, "DATA ·%[1]sEntry(SB)/8, $·%[1]s(SB)\nGLOBL ·%[1]sEntry(SB), RODATA, $8\n", k.Name())
	}
	return b.String()
}

// varName is the Go variable of an ISA's table, e.g. avx2.
func varName(i *isa.ISA) string { return strings.ToLower(i.Name) }

// writeTable writes the Go table of one ISA's kernels, a simd.Table, and
// the init function that registers it: each slot of each family, in the
// slot's form, with the kernels it holds.
func writeTable(path string, i *isa.ISA, ks, own []table.Kernel, names map[table.Kernel]string, minN map[table.Kernel]int) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\n//go:build %s\n\npackage kernels\n\nimport \"github.com/blockshuffle/blockshuffle/internal/simd\"\n\n", cfg.GeneratedWarning(), constraint)
	fmt.Fprintf(&b, "// The entry words of the %s kernels, defined in %s.\nvar (\n", i.Name, filepath.Base(base("", i))+".s")
	for _, k := range own {
		fmt.Fprintf(&b, "%sEntry simd.%sFunc\n", k.Name(), k.Signature().Name)
	}
	b.WriteString(")\n\n")
	doc := fmt.Sprintf("%s holds the %s kernels.", varName(i), i.Name)
	if i.Base != "" {
		doc = fmt.Sprintf("%s holds the %s kernels; %s's serve the rest.", varName(i), i.Name, i.Base)
	}
	fmt.Fprintf(&b, "// %s\nvar %s = simd.Table{\n", doc, varName(i))
	for _, f := range table.Families {
		for _, s := range f.Slots {
			held := s.Holds(f, ks)
			if len(held) == 0 {
				continue
			}
			if err := writeSlot(&b, f, s, held, names, minN); err != nil {
				return fmt.Errorf("%s: %v", i.Name, err)
			}
		}
	}
	if i.Base != "" {
		fmt.Fprintf(&b, "Base: &%s,\n", varName(isa.Named(i.Base)))
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(&b, "func init() { simd.Register(%q, &%s) }\n", i.Name, varName(i))
	return writeGo(path, b.Bytes())
}

// writeSlot writes the field of slot s of family f, which holds kernels
// held, in the slot's form.
func writeSlot(b *bytes.Buffer, f *table.Family, s table.Slot, held []table.Kernel, names map[table.Kernel]string, minN map[table.Kernel]int) error {
	fn := "simd." + f.Name + "Func"
	switch s.Form {
	case table.Single:
		if len(held) > 1 {
			return fmt.Errorf("slot %s holds one kernel, not %d", s.Field, len(held))
		}
		fmt.Fprintf(b, "%s: %s,\n", s.Field, entry(names[held[0]]))
	case table.Indexed:
		fmt.Fprintf(b, "%s: [simd.%s + 1]*%s{", s.Field, s.Bound, fn)
		for _, k := range held {
			fmt.Fprintf(b, "%d: %s, ", s.Index(k), entry(names[k]))
		}
		b.WriteString("},\n")
	case table.List:
		fmt.Fprintf(b, "%s: []simd.Entry[%s]{\n", s.Field, fn)
		for _, k := range held {
			fmt.Fprintf(b, "%s,\n", entryOf(f, k, names, minN))
		}
		b.WriteString("},\n")
	}
	return nil
}

// entryOf is the literal of kernel k's list entry, its zero fields left
// out.
func entryOf(f *table.Family, k table.Kernel, names map[table.Kernel]string, minN map[table.Kernel]int) string {
	e := f.EntryOf(k)
	parts := []string{"F: " + entry(names[k])}
	for _, v := range []struct {
		name string
		n    int
	}{{"B", e.B}, {"Cp", e.Cp}, {"W", e.W}, {"Chunk", e.Chunk}} {
		if v.n != 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", v.name, v.n))
		}
	}
	if e.Unzip {
		parts = append(parts, "Unzip: true")
	}
	if e.NT {
		parts = append(parts, "NT: true")
	}
	if n := minN[k]; n != 0 {
		parts = append(parts, fmt.Sprintf("MinN: %d", n))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// entry is how a table names a kernel: the address of its entry word.
func entry(name string) string { return "&" + name + "Entry" }

// writeFamilies writes the Go side of the kernel families: the limits of
// the runtime's arrays; for each family its function type, the struct of
// its arguments (its slices as spans of a call's tensors), the call that
// holds both and spreads the struct over the arguments, and what else the
// runtime reads of it; the Table type, a field per slot; and the merge of
// a table with its base's.
func writeFamilies(path string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage simd\n\nimport (\n\"slices\"\n\n\"github.com/blockshuffle/blockshuffle/internal/engine\"\n\"github.com/blockshuffle/blockshuffle/internal/isa\"\n)\n\n", cfg.GeneratedWarning())
	b.WriteString("// The limits of the kernel tables.\nconst (\n")
	for _, f := range table.Families {
		for _, l := range f.Limits {
			fmt.Fprintf(&b, "%s = %d // %s\n", l.Name, l.Value(f), l.Doc)
		}
	}
	b.WriteString(")\n")
	for _, f := range table.Families {
		sig := f.Signature
		fields := func(names []string) string {
			var out []string
			for _, n := range names {
				out = append(out, sig.Field(n))
			}
			return strings.Join(out, ", ")
		}
		var args []string
		for _, p := range sig.Ptrs {
			args = append(args, sig.Arg(p)+".Ptr(space, depth)")
		}
		for _, p := range sig.Ints {
			args = append(args, sig.Arg(p))
		}
		fmt.Fprintf(&b, `
// %[1]sFunc is one of %[2]s: the word holding its entry address, which the
// kernels' assembly defines next to it. A call jumps there through call%[1]s.
type %[1]sFunc uintptr

// %[1]sArgs are the arguments of %[7]s %[1]sFunc, its slices as spans of a call's tensors.
type %[1]sArgs struct {
	%[4]s engine.Span
	%[5]s int
}

// %[8]s %[1]sCall is a call of %[7]s %[1]sFunc, checked when %[1]sFunc.Call made it.
type %[1]sCall struct {
	F *%[1]sFunc
	%[1]sArgs
}

// Run makes the call on the tensors of a call.
func (c *%[1]sCall) Run(space, depth []byte) {
	call%[1]s(%[6]s, uintptr(*c.F))
}

// Kernel names the kernel.
func (c *%[1]sCall) Kernel() string { return name(c.F) }
`, sig.Name, sig.Doc, sig.Params(), fields(sig.Ptrs), fields(sig.Ints), strings.Join(args, ", "), article(sig.Name), strings.ToUpper(article(sig.Name)[:1])+article(sig.Name)[1:])
		if f.Extra != nil {
			b.WriteString(f.Extra())
		}
	}
	b.WriteString("\n// Table is one ISA's kernels, as generated: a field per slot of each\n// family; a nil function has no kernel. Register merges a table with its\n// base's into its tier's Kernels.\ntype Table struct {\n")
	var inherit bytes.Buffer
	inherit.WriteString("\n// inherit gives t what it has no kernel for from its base's table b:\n// b's functions where t has none, and b's list entries after t's (but\n// for the slots a tier keeps its own).\nfunc (t *Table) inherit(b *Table) {\n")
	for _, f := range table.Families {
		fn := f.Name + "Func"
		for _, s := range f.Slots {
			if s.Doc != "" {
				fmt.Fprintf(&b, "\n%s\n", comment(s.Field, s.Doc))
			}
			x, inherit := s.Field, &inherit
			if s.Own { // declared, not inherited
				inherit = new(bytes.Buffer)
			}
			switch s.Form {
			case table.Single:
				fmt.Fprintf(&b, "%s *%s\n", x, fn)
				fmt.Fprintf(inherit, "if t.%[1]s == nil {\nt.%[1]s = b.%[1]s\n}\n", x)
			case table.Indexed:
				fmt.Fprintf(&b, "%s [%s + 1]*%s\n", x, s.Bound, fn)
				fmt.Fprintf(inherit, "fill(t.%[1]s[:], b.%[1]s[:])\n", x)
			case table.List:
				fmt.Fprintf(&b, "%s []Entry[%s]\n", x, fn)
				fmt.Fprintf(inherit, "t.%[1]s = append(slices.Clip(t.%[1]s), b.%[1]s...)\n", x)
			}
		}
	}
	b.WriteString("\n// Base, if not nil, serves what this table has no kernel for, and rows\n// too short for its kernels (complete).\nBase *Table\n\nisa *isa.ISA // set by Register\n}\n")
	inherit.WriteString("}\n")
	b.Write(inherit.Bytes())
	return writeGo(path, b.Bytes())
}

// comment is a field's documentation: doc, made a sentence about the
// field where it does not name it first, wrapped to the width of Go's
// comments.
func comment(field, doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if !strings.HasPrefix(doc, field) {
		doc = field + " is " + doc
	}
	if !strings.HasSuffix(doc, ".") {
		doc += "."
	}
	var lines []string
	line := "//"
	for _, w := range strings.Fields(doc) {
		if len(line)+1+len(w) > 72 && line != "//" {
			lines = append(lines, line)
			line = "//"
		}
		line += " " + w
	}
	return strings.Join(append(lines, line), "\n")
}

// asmArchs are the architectures with a back end: a build for one of them
// by gc, without the purego tag, links the kernels.
const asmArchs = "amd64 || arm64"

// writeTrampolines writes simd's trampolines, one per family: a function
// that takes the kernel's arguments and then its entry address, and jumps
// there with the stack as it found it, so that the kernel reads its
// arguments where a direct call would put them and returns to the
// trampoline's caller. Builds without assembly get trampolines that panic:
// they register no table, so no call reaches one.
func writeTrampolines(dir string) error {
	var decls, other bytes.Buffer
	asm := map[string]*bytes.Buffer{"amd64": {}, "arm64": {}}
	header := "// " + cfg.GeneratedWarning() + "\n\n"
	fmt.Fprintf(&decls, "%s//go:build %s && (%s)\n\npackage simd\n", header, constraint, asmArchs)
	fmt.Fprintf(&other, "%s//go:build !(%s && (%s))\n\npackage simd\n", header, constraint, asmArchs)
	for _, b := range asm {
		fmt.Fprintf(b, "%s//go:build %s\n\n#include \"textflag.h\"\n", header, constraint)
	}
	for _, sig := range table.Signatures() {
		params := strings.TrimSuffix(sig.Params(), ")") + ", entry uintptr)"
		fmt.Fprintf(&decls, "\n// call%[1]s calls the %[1]sFunc at entry.\n//\n//go:noescape\nfunc call%[1]s%[2]s\n", sig.Name, params)
		fmt.Fprintf(&other, "\nfunc call%s%s { panic(\"simd: this build has no kernels\") }\n", sig.Name, params)
		off := 8 * len(sig.Names())
		fmt.Fprintf(asm["amd64"], "\nTEXT ·call%s(SB), NOSPLIT|NOFRAME, $0-%d\n\tMOVQ entry+%d(FP), AX\n\tJMP  AX\n", sig.Name, off+8, off)
		fmt.Fprintf(asm["arm64"], "\nTEXT ·call%s(SB), NOSPLIT|NOFRAME, $0-%d\n\tMOVD entry+%d(FP), R9\n\tJMP  (R9)\n", sig.Name, off+8, off)
	}
	if err := writeGo(filepath.Join(dir, "trampolines.go"), decls.Bytes()); err != nil {
		return err
	}
	if err := writeGo(filepath.Join(dir, "trampolines_other.go"), other.Bytes()); err != nil {
		return err
	}
	for arch, b := range asm {
		if err := os.WriteFile(filepath.Join(dir, "trampolines_"+arch+".s"), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// article is "an" before a vowel, else "a".
func article(word string) string {
	if strings.ContainsRune("AEIOUaeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// exported is a parameter's name as a struct field: spaceStride becomes
// SpaceStride.
func exported(name string) string {
	r := []rune(name)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// writeTiers writes dispatch's Tier constants, one per entry of
// internal/isa in its order.
func writeTiers(path string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage dispatch\n\n", cfg.GeneratedWarning())
	b.WriteString("// The tiers, from the most portable to the most specialized.\nconst (\n")
	for n, i := range isa.All {
		name := i.Name
		if name == "" {
			name = exported(i.TierName)
		}
		typ := ""
		if n == 0 {
			typ = " Tier = iota"
		}
		fmt.Fprintf(&b, "%s%s // %s\n", name, typ, i.CPUs)
	}
	b.WriteString("numTiers\n)\n")
	return writeGo(path, b.Bytes())
}
