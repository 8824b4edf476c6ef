package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"

	"github.com/blockshuffle/blockshuffle/asmgen/amd64"
	"github.com/blockshuffle/blockshuffle/asmgen/arm64"
	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// pixelDir is where imagetensor's kernels go: a package only it imports,
// so that the root package's programs do not link them.
func pixelDir(root string) string { return filepath.Join(root, "imagetensor", "internal", "kernels") }

// writePixels writes the pixel kernels of each ISA that has them (the
// assembly, its Go declarations and a file registering its Kit) and the
// Kit type.
func writePixels(root string) error {
	dir := pixelDir(root)
	for _, i := range table.PixelISAs {
		d := isa.Named(string(i))
		var asm, stubs []byte
		var err error
		switch d.GOARCH {
		case "amd64":
			asm, stubs, err = amd64Pixels(i)
		case "arm64":
			g := arm64.New()
			for _, p := range table.Pixels {
				if err = g.Pixel(p, i); err != nil {
					return err
				}
			}
			header := cfg.GeneratedWarning()
			asm, stubs = []byte(g.Assembly(header, constraint)), []byte(g.Stubs(header, constraint))
		}
		if err != nil {
			return err
		}
		file := filepath.Join(dir, strings.ToLower(d.Name)+"_"+d.GOARCH)
		if err := os.WriteFile(file+".s", asm, 0o644); err != nil {
			return err
		}
		if err := writeGo(file+".go", stubs); err != nil {
			return err
		}
		if err := writeKit(filepath.Join(dir, strings.ToLower(d.Name)+"_kit_"+d.GOARCH+".go"), d); err != nil {
			return err
		}
	}
	return writeKitType(filepath.Join(dir, "kit.go"))
}

// amd64Pixels lowers one x86 ISA's pixel kernels with avo.
func amd64Pixels(i table.ISA) (asm, stubs []byte, err error) {
	g := amd64.New("gc,!purego")
	for _, p := range table.Pixels {
		if err := g.Pixel(p, i); err != nil {
			return nil, nil, err
		}
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

// writeKitType writes the Kit type: one field per pixel kernel.
func writeKitType(path string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage kernels\n\n", cfg.GeneratedWarning())
	b.WriteString("// A Kit is one ISA's pixel kernels, nil where it has none. Its fields are\n// unexported: only this package's checked calls reach them.\ntype Kit struct {\n")
	b.WriteString("// ISA is the instruction set's name in internal/isa.\nISA string\n")
	for _, p := range table.Pixels {
		fmt.Fprintf(&b, "// %s %s\n%s func%s\n", p.Name, p.Doc, p.Name, p.Params())
	}
	b.WriteString("}\n\n// fill takes base's kernels where k has none.\nfunc (k *Kit) fill(base *Kit) {\n")
	for _, p := range table.Pixels {
		fmt.Fprintf(&b, "if k.%[1]s == nil {\nk.%[1]s = base.%[1]s\n}\n", p.Name)
	}
	b.WriteString("}\n\n// Blocks are how many elements each kernel moves a block: its n counts them.\nconst (\n")
	for _, p := range table.Pixels {
		fmt.Fprintf(&b, "%sBlock = %d\n", p.Name, p.Block)
	}
	b.WriteString(")\n")
	return writeGo(path, b.Bytes())
}

// writeKit writes the file that registers one ISA's Kit.
func writeKit(path string, d *isa.ISA) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\n//go:build %s\n\npackage kernels\n\n", cfg.GeneratedWarning(), constraint)
	fmt.Fprintf(&b, "func init() {\nregister(&Kit{\nISA: %q,\n", d.Name)
	for _, p := range table.Pixels {
		fmt.Fprintf(&b, "%s: %s%s,\n", p.Name, p.Name, d.Name)
	}
	b.WriteString("})\n}\n")
	return writeGo(path, b.Bytes())
}
