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

	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"

	"github.com/blockshuffle/blockshuffle/asmgen/amd64"
	"github.com/blockshuffle/blockshuffle/asmgen/table"
)

func main() {
	// avo's build package registers its own flags on the default set.
	flags := flag.NewFlagSet("asmgen", flag.ExitOnError)
	out := flags.String("out", "../kernels", "directory of the kernels package")
	flags.Parse(os.Args[1:])
	log.SetFlags(0)
	log.SetPrefix("asmgen: ")
	if err := writeAVX2(*out); err != nil {
		log.Fatal(err)
	}
}

// cfg names the generator in the files' headers the same way on every run.
var cfg = printer.Config{Argv: []string{"go", "run", "./cmd/asmgen"}, Pkg: "kernels"}

func writeAVX2(dir string) error {
	g := amd64.New()
	ks := table.Kernels(table.AVX2)
	for _, k := range ks {
		if err := g.Kernel(k); err != nil {
			return err
		}
	}
	f, err := g.Result()
	if err != nil {
		return err
	}
	if err := pass.Compile.Execute(f); err != nil {
		return err
	}
	for name, p := range map[string]printer.Printer{
		"avx2_amd64.s":  printer.NewGoAsm(cfg),
		"avx2_amd64.go": printer.NewStubs(cfg),
	} {
		b, err := p.Print(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return writeTable(filepath.Join(dir, "avx2_table_amd64.go"), "AVX2", ks)
}

// writeTable writes the Go table that maps block size and width to kernels.
func writeTable(path, isa string, ks []table.Kernel) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\n//go:build !purego\n\npackage kernels\n\n", cfg.GeneratedWarning())
	fmt.Fprintf(&b, "// %s holds the %s kernels.\nvar %s = Set{\n", isa, isa, isa)
	for _, kind := range []table.Kind{table.Zip, table.Unzip} {
		field := "Zip"
		if kind == table.Unzip {
			field = "Unzip"
		}
		fmt.Fprintf(&b, "\t%s: [MaxBlock + 1][5]Zip{\n", field)
		for _, blk := range table.Blocks {
			fmt.Fprintf(&b, "\t\t%d: {", blk)
			for i, w := range table.Widths {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(table.Kernel{ISA: table.ISA(isa), Kind: kind, B: blk, Width: w}.Name())
			}
			b.WriteString("},\n")
		}
		fmt.Fprintf(&b, "\t},\n\t%sN: %s,\n", field, table.Kernel{ISA: table.ISA(isa), Kind: kind, Width: 16}.Name())
	}
	fmt.Fprintf(&b, "\tCopyRuns: %s,\n\tSplit: [MaxBlock + 1]int{", table.Kernel{ISA: table.ISA(isa), Kind: table.Runs}.Name())
	for i, blk := range table.Blocks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d: %d", blk, table.Split(blk))
	}
	b.WriteString("},\n}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return err
	}
	return os.WriteFile(path, src, 0o644)
}
