// Command asmgen writes blockshuffle's kernels from the kernel table:
// the assembly, its Go declarations and a Go table of the functions.
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
	"slices"
	"strings"

	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"

	"github.com/blockshuffle/blockshuffle/asmgen/amd64"
	"github.com/blockshuffle/blockshuffle/asmgen/arm64"
	"github.com/blockshuffle/blockshuffle/asmgen/table"
)

func main() {
	// avo's build package registers its own flags on the default set.
	flags := flag.NewFlagSet("asmgen", flag.ExitOnError)
	out := flags.String("out", "../kernels", "directory of the kernels package")
	flags.Parse(os.Args[1:])
	log.SetFlags(0)
	log.SetPrefix("asmgen: ")
	for _, isa := range []table.ISA{table.AVX2, table.AVX512BW, table.AVX512VBMI} {
		if err := writeAMD64(*out, isa); err != nil {
			log.Fatal(err)
		}
	}
	if err := writeNEON(*out); err != nil {
		log.Fatal(err)
	}
}

// cfg names the generator in the files' headers the same way on every run.
var cfg = printer.Config{Argv: []string{"go", "run", "./cmd/asmgen"}, Pkg: "kernels"}

// writeAMD64 writes one x86 ISA's kernels with avo: <isa>_amd64.s, its Go
// declarations and its table.
func writeAMD64(dir string, isa table.ISA) error {
	g := amd64.New()
	ks := table.Kernels(isa)
	minN := map[table.Kernel]int{}
	for _, k := range ks {
		n, err := g.Kernel(k)
		if err != nil {
			return err
		}
		minN[k] = n
	}
	f, err := g.Result()
	if err != nil {
		return err
	}
	if err := pass.Compile.Execute(f); err != nil {
		return err
	}
	base := strings.ToLower(string(isa)) + "_amd64"
	for name, p := range map[string]printer.Printer{
		base + ".s":  printer.NewGoAsm(cfg),
		base + ".go": printer.NewStubs(cfg),
	} {
		b, err := p.Print(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return writeTable(filepath.Join(dir, strings.ToLower(string(isa))+"_table_amd64.go"), isa, ks, minN)
}

func writeNEON(dir string) error {
	g := arm64.New()
	ks := table.Kernels(table.NEON)
	minN := map[table.Kernel]int{}
	for _, k := range ks {
		n, err := g.Kernel(k)
		if err != nil {
			return err
		}
		minN[k] = n
	}
	header := cfg.GeneratedWarning()
	if err := os.WriteFile(filepath.Join(dir, "neon_arm64.s"), []byte(g.Assembly(header)), 0o644); err != nil {
		return err
	}
	stubs, err := format.Source([]byte(g.Stubs(header)))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "neon_arm64.go"), stubs, 0o644); err != nil {
		return err
	}
	return writeTable(filepath.Join(dir, "neon_table_arm64.go"), table.NEON, ks, minN)
}

// writeTable writes the Go table of one ISA's kernels: a kernels.Set value,
// whose Base is the ISA's base ISA (see table.ISA.Base).
func writeTable(path string, isa table.ISA, ks []table.Kernel, minN map[table.Kernel]int) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\n//go:build !purego\n\npackage kernels\n\n", cfg.GeneratedWarning())
	doc := fmt.Sprintf("%s holds the %s kernels.", isa, isa)
	if base := isa.Base(); base != "" {
		doc = fmt.Sprintf("%s holds the %s kernels; %s runs the rest.", isa, isa, base)
	}
	fmt.Fprintf(&b, "// %s\nvar %s = Set{\n", doc, isa)
	entry := func(k table.Kernel) string { return fmt.Sprintf("{%s, %d}", k.Name(), minN[k]) }
	streams := slices.ContainsFunc(ks, func(k table.Kernel) bool { return k.Streaming })
	for _, kind := range []table.Kind{table.Zip, table.Unzip} {
		name := map[table.Kind]string{table.Zip: "Zip", table.Unzip: "Unzip"}[kind]
		for _, stream := range []bool{false, true} {
			if stream && !streams {
				continue
			}
			nt := map[bool]string{true: "NT"}[stream]
			fmt.Fprintf(&b, "%s%s: [MaxBlock + 1][MaxWidth + 1]ZipKernel{\n", name, nt)
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
		fmt.Fprintf(&b, "T%s: [MaxBlock + 1][MaxCp + 1][MaxWidth + 1]ZipKernel{\n", name)
		for _, blk := range table.Blocks {
			cps, _ := table.Transposes(blk)
			if len(cps) == 0 {
				continue
			}
			fmt.Fprintf(&b, "%d: {", blk)
			for _, cp := range cps {
				fmt.Fprintf(&b, "%d: {", cp)
				for _, k := range ks {
					if k.Kind == kind && k.B == blk && k.Cp == cp {
						fmt.Fprintf(&b, "%d: %s, ", k.Width, entry(k))
					}
				}
				b.WriteString("}, ")
			}
			b.WriteString("},\n")
		}
		b.WriteString("},\n")
		if k := (table.Kernel{ISA: isa, Kind: kind, Width: 16}); slices.Contains(ks, k) {
			fmt.Fprintf(&b, "%sN: %s,\n", name, k.Name())
		}
	}
	fmt.Fprintf(&b, "CopyRuns: %s,\n", table.Kernel{ISA: isa, Kind: table.Runs}.Name())
	if streams {
		fmt.Fprintf(&b, "CopyRunsNT: %s,\n", table.Kernel{ISA: isa, Kind: table.Runs, Streaming: true}.Name())
	}
	if base := isa.Base(); base != "" {
		fmt.Fprintf(&b, "Base: &%s,\n", base)
	}
	b.WriteString("Split: [MaxBlock + 1]int{")
	for _, blk := range table.Blocks {
		fmt.Fprintf(&b, "%d: %d, ", blk, table.Split(blk))
	}
	b.WriteString("},\n}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return err
	}
	return os.WriteFile(path, src, 0o644)
}
