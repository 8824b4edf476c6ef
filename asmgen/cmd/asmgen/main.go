// Command asmgen writes blockshuffle's generated code from the kernel table
// (asmgen/table) and the ISA table (internal/isa): for each ISA its
// assembly, the assembly's Go declarations and a table of the kernels that
// registers them at init, all in kernels/; the kernels' Go signatures and
// argument structs in internal/simd; and dispatch's Tier constants. Run it
// through go generate in the kernels package:
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
	"slices"
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
	for _, i := range table.ISAs() {
		var err error
		switch i.GOARCH {
		case "amd64":
			err = writeAMD64(*root, i)
		case "arm64":
			err = writeARM64(*root, i)
		default:
			err = fmt.Errorf("%s: no back end for %s", i.Name, i.GOARCH)
		}
		if err != nil {
			log.Fatal(err)
		}
	}
	if err := writeSignatures(filepath.Join(*root, "internal", "simd", "signatures.go")); err != nil {
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
// declarations and its table.
func writeAMD64(root string, i *isa.ISA) error {
	g := amd64.New("gc,!purego") // avo reads +build syntax: the same constraint
	ks := table.Kernels(table.ISA(i.Name))
	minN, err := addAll(g, ks)
	if err != nil {
		return err
	}
	f, err := g.Result()
	if err != nil {
		return err
	}
	if err := pass.Compile.Execute(f); err != nil {
		return err
	}
	for name, p := range map[string]printer.Printer{
		".s":  printer.NewGoAsm(cfg),
		".go": printer.NewStubs(cfg),
	} {
		b, err := p.Print(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(base(root, i)+name, b, 0o644); err != nil {
			return err
		}
	}
	return writeTable(tablePath(root, i), i, ks, minN)
}

// writeARM64 writes one arm64 ISA's kernels with the generator's own
// back end (avo has none for arm64).
func writeARM64(root string, i *isa.ISA) error {
	g := arm64.New()
	ks := table.Kernels(table.ISA(i.Name))
	minN, err := addAll(g, ks)
	if err != nil {
		return err
	}
	header := cfg.GeneratedWarning()
	if err := os.WriteFile(base(root, i)+".s", []byte(g.Assembly(header, constraint)), 0o644); err != nil {
		return err
	}
	if err := writeGo(base(root, i)+".go", []byte(g.Stubs(header, constraint))); err != nil {
		return err
	}
	return writeTable(tablePath(root, i), i, ks, minN)
}

// writeGo formats Go source and writes it.
func writeGo(path string, src []byte) error {
	src, err := format.Source(src)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return os.WriteFile(path, src, 0o644)
}

// varName is the Go variable of an ISA's table, e.g. avx2.
func varName(i *isa.ISA) string { return strings.ToLower(i.Name) }

// writeTable writes the Go table of one ISA's kernels, a simd.Table, and
// the init function that registers it.
func writeTable(path string, i *isa.ISA, ks []table.Kernel, minN map[table.Kernel]int) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\n//go:build %s\n\npackage kernels\n\nimport \"github.com/blockshuffle/blockshuffle/internal/simd\"\n\n", cfg.GeneratedWarning(), constraint)
	doc := fmt.Sprintf("%s holds the %s kernels.", varName(i), i.Name)
	if i.Base != "" {
		doc = fmt.Sprintf("%s holds the %s kernels; %s's serve the rest.", varName(i), i.Name, i.Base)
	}
	fmt.Fprintf(&b, "// %s\nvar %s = simd.Table{\n", doc, varName(i))
	entry := func(k table.Kernel) string { return fmt.Sprintf("{F: %s, MinN: %d}", k.Name(), minN[k]) }
	for _, kind := range []table.Kind{table.Zip, table.Unzip} {
		name := map[table.Kind]string{table.Zip: "Zip", table.Unzip: "Unzip"}[kind]
		for _, stream := range []bool{false, true} {
			if stream && !i.Streaming {
				continue
			}
			nt := map[bool]string{true: "NT"}[stream]
			fmt.Fprintf(&b, "%s%s: simd.LaneKernels{\n", name, nt)
			for _, blk := range table.Blocks {
				fmt.Fprintf(&b, "%d: {", blk)
				for _, k := range ks {
					if k.Kind == kind && k.B == blk && k.Cp == 0 && k.Streaming == stream {
						fmt.Fprintf(&b, "%d: %s, ", k.Width, entry(k))
					}
				}
				b.WriteString("},\n")
			}
			b.WriteString("},\n")
		}
		for _, stream := range []bool{false, true} {
			if stream && !i.Streaming {
				continue
			}
			nt := map[bool]string{true: "NT"}[stream]
			fmt.Fprintf(&b, "T%s%s: simd.TransposeKernels{\n", name, nt)
			for _, blk := range table.Blocks {
				cps, _ := table.Transposes(blk)
				if len(cps) == 0 {
					continue
				}
				fmt.Fprintf(&b, "%d: {", blk)
				for _, cp := range cps {
					fmt.Fprintf(&b, "%d: {", cp)
					for _, k := range ks {
						if k.Kind == kind && k.B == blk && k.Cp == cp && k.Streaming == stream {
							fmt.Fprintf(&b, "%d: %s, ", k.Width, entry(k))
						}
					}
					b.WriteString("}, ")
				}
				b.WriteString("},\n")
			}
			b.WriteString("},\n")
		}
		if k := (table.Kernel{ISA: table.ISA(i.Name), Kind: kind, Width: 16}); slices.Contains(ks, k) {
			fmt.Fprintf(&b, "%sN: %s,\n", name, k.Name())
		}
	}
	if n := table.ISA(i.Name).Windows().MaxGroups; n > 0 {
		b.WriteString("Gather: [simd.MaxGroups + 1]simd.GatherFunc{")
		for g := 1; g <= n; g++ {
			fmt.Fprintf(&b, "%d: %s, ", g, table.Kernel{ISA: table.ISA(i.Name), Kind: table.Gather, Groups: g}.Name())
		}
		b.WriteString("},\n")
	}
	if us := table.ISA(i.Name).StackUnits(); len(us) > 0 {
		for _, kind := range []table.Kind{table.StackZip, table.StackUnzip} {
			name := "StackZip"
			if kind == table.StackUnzip {
				name = "StackUnzip"
			}
			fmt.Fprintf(&b, "%s: simd.StackKernels{", name)
			for _, u := range us {
				fmt.Fprintf(&b, "%d: %s, ", u, table.Kernel{ISA: table.ISA(i.Name), Kind: kind, B: 2, Width: u}.Name())
			}
			b.WriteString("},\n")
		}
	}
	if ws := table.ISA(i.Name).UnitWidths(); len(ws) > 0 {
		for _, kind := range []table.Kind{table.UnitZip, table.UnitUnzip} {
			name := "UnitZip"
			if kind == table.UnitUnzip {
				name = "UnitUnzip"
			}
			fmt.Fprintf(&b, "%s: simd.UnitKernels{", name)
			for _, w := range ws {
				fmt.Fprintf(&b, "%d: %s, ", w, table.Kernel{ISA: table.ISA(i.Name), Kind: kind, B: 2, Width: w}.Name())
			}
			b.WriteString("},\n")
		}
	}
	fmt.Fprintf(&b, "CopyRuns: %s,\n", table.Kernel{ISA: table.ISA(i.Name), Kind: table.Copy}.Name())
	if i.Streaming {
		fmt.Fprintf(&b, "CopyRunsNT: %s,\n", table.Kernel{ISA: table.ISA(i.Name), Kind: table.Copy, Streaming: true}.Name())
		fmt.Fprintf(&b, "StreamRuns: %s,\n", table.Kernel{ISA: table.ISA(i.Name), Kind: table.Stream}.Name())
	}
	if i.Base != "" {
		fmt.Fprintf(&b, "Base: &%s,\n", varName(isa.Lookup(i.Base)))
	}
	b.WriteString("Split: [simd.MaxBlock + 1]int{")
	for _, blk := range table.Blocks {
		fmt.Fprintf(&b, "%d: %d, ", blk, table.Split(blk))
	}
	b.WriteString("},\n}\n\n")
	fmt.Fprintf(&b, "func init() { simd.Register(%q, &%s) }\n", i.Name, varName(i))
	return writeGo(path, b.Bytes())
}

// writeSignatures writes the Go side of the kernels' signatures: the
// table's limits, and for each family its function type, the struct of its
// arguments (with the slices its pointers point into) and the call that
// spreads the struct over the arguments.
func writeSignatures(path string) error {
	var b bytes.Buffer
	block, width, cp := table.Limits()
	fmt.Fprintf(&b, `// %s

package simd

import (
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/engine"
)

// The limits of the kernel table.
const (
	MaxBlock = %d // the largest block size with kernels of its own
	MaxWidth = %d // the largest element size, in bytes
	MaxCp    = %d // the largest C' of a transposing kernel
	MaxGroups = %d // the most groups of windows of a gather kernel
	MaxStackUnit = %d // the largest permute unit, in bytes, of a stacked-row kernel
	MaxUnitWidth = %d // the largest element, in bytes, of a row-unit kernel
)
`, cfg.GeneratedWarning(), block, width, cp, table.MaxGroups(), table.MaxStackUnit(), table.MaxUnitWidth())
	for _, sig := range []table.Signature{table.LaneSig, table.AnyBSig, table.CopySig, table.StreamSig, table.GatherSig, table.StackSig, table.UnitSig} {
		fields := func(names []string) string {
			var out []string
			for _, n := range names {
				out = append(out, exported(n))
			}
			return strings.Join(out, ", ")
		}
		var args []string
		for _, p := range sig.Ptrs {
			args = append(args, "unsafe.SliceData(a."+exported(p)+")")
		}
		for _, p := range sig.Ints {
			args = append(args, "a."+exported(p))
		}
		fmt.Fprintf(&b, `
// %[1]sFunc is the signature of %[2]s.
type %[1]sFunc func%[3]s

// %[1]sArgs are the arguments of %[7]s %[1]sFunc, with the slices its pointers point into.
type %[1]sArgs struct {
	%[4]s []byte
	%[5]s int

	// Report, if not nil, makes the call a dry run that names the kernel (see engine.Args).
	Report func(kernel string)
	// Bind, if not nil, is handed the call, bound (see engine.Binder).
	Bind *engine.Binder
}

// call calls f with a's arguments.
func (f %[1]sFunc) call(a *%[1]sArgs) {
	f(%[6]s)
}
`, sig.Name, sig.Doc, sig.Params(), fields(sig.Ptrs), fields(sig.Ints), strings.Join(args, ", "), article(sig.Name))
		fmt.Fprintf(&b, `
// bind hands a.Bind, if set, a function that makes a's call again on the
// tensors it is given, in the places a's slices have in this call's. It
// keeps no slice of this call's tensors, which the caller may free.
func (f %[1]sFunc) bind(a *%[1]sArgs) {
	if a.Bind == nil {
		return
	}
	args := *a
	%[2]s := %[3]s
	%[5]s, args.Bind = %[6]s, nil
	a.Bind.Set(func(space, depth []byte) {
		f(%[4]s)
	})
}
`, sig.Name, refs(sig.Ptrs), each(sig.Ptrs, "a.Bind.Ref(a.%s)"), boundArgs(sig),
			each(sig.Ptrs, "args.%s"), strings.TrimSuffix(strings.Repeat("nil, ", len(sig.Ptrs)), ", "))
	}
	fmt.Fprintf(&b, `
// LaneKernels are lane kernels by block size and element width.
type LaneKernels [MaxBlock + 1][MaxWidth + 1]LaneKernel

// TransposeKernels are transposing lane kernels by block size, C' and
// element width.
type TransposeKernels [MaxBlock + 1][MaxCp + 1][MaxWidth + 1]LaneKernel

// StackKernels are stacked-row kernels by the bytes of their permutes'
// units.
type StackKernels [MaxStackUnit + 1]StackFunc

// UnitKernels are row-unit kernels by element width.
type UnitKernels [MaxUnitWidth + 1]UnitFunc
`)
	return writeGo(path, b.Bytes())
}

// boundArgs are the arguments a bound call passes its kernel: its
// slices' places in the tensors it is given, and the integers of the call
// it was bound on, read where the closure holds them: copying them into
// an argument struct on each call made a 39 ns call take 45 on a Zen 4.
func boundArgs(sig table.Signature) string {
	return each(sig.Ptrs, "unsafe.SliceData(ref%s.In(space, depth))") + ", " + each(sig.Ints, "args.%s")
}

// refs names the Refs of a signature's slices, ref followed by the
// slice's field name.
func refs(ptrs []string) string { return each(ptrs, "ref%s") }

// each fills format with the field name of every slice, comma-separated.
func each(ptrs []string, format string) string {
	var out []string
	for _, p := range ptrs {
		out = append(out, fmt.Sprintf(format, exported(p)))
	}
	return strings.Join(out, ", ")
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
			name = exported(i.Tier)
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
