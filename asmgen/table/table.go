// Package table is the one list of kernels every generator works from: one
// line per family, so that a width, a block size or an ISA is added in one
// place.
package table

import "fmt"

// ISA is an instruction set a generator writes for.
type ISA string

const AVX2 ISA = "AVX2"

// Kind is what a kernel does.
type Kind uint8

const (
	Zip   Kind = iota // interleave b rows of elements into one (NCHW DepthToSpace)
	Unzip             // split one row into b rows (NCHW SpaceToDepth)
	Runs              // copy runs of 16 bytes or more between strided places (NHWC)
)

// Kernel is one generated function: it zips or unzips B rows of Width-byte
// elements. B = 0 means any block size, passed at run time.
type Kernel struct {
	ISA   ISA
	Kind  Kind
	B     int
	Width int
}

// Name is the function's name, e.g. zip3x2AVX2: zip 3 rows of 2-byte elements.
func (k Kernel) Name() string {
	if k.Kind == Runs {
		return "copyRuns" + string(k.ISA)
	}
	kind := "zip"
	if k.Kind == Unzip {
		kind = "unzip"
	}
	b := fmt.Sprint(k.B)
	if k.B == 0 {
		b = "N"
	}
	return fmt.Sprintf("%s%sx%d%s", kind, b, k.Width, k.ISA)
}

// Blocks are the block sizes with their own kernels: ESPCN x2/x3/x4
// super-resolution, YOLO reorg, 8x8 patchify.
var Blocks = []int{2, 3, 4, 8}

// Widths are the element sizes of every ONNX type; each gets a kernel per
// block size. 16-byte elements (complex128) also have a kernel per direction
// for any other block size, since moving them needs no byte shuffles.
var Widths = []int{1, 2, 4, 8, 16}

// Split is how the lanes of a b-row kernel are addressed: lane j sits at
// (j/Split(b))*laneI + (j%Split(b))*lane. NCHW rows are evenly spaced
// (laneI = Split(b)*lane); in NHWC CRD with b = 2 a 4-lane kernel's lanes
// (i, j) lie in two space rows.
func Split(b int) int {
	switch b {
	case 4:
		return 2
	case 8:
		return 4
	}
	return b
}

// Kernels lists the kernels of one ISA.
func Kernels(isa ISA) []Kernel {
	var out []Kernel
	for _, kind := range []Kind{Zip, Unzip} {
		for _, w := range Widths {
			for _, b := range Blocks {
				out = append(out, Kernel{isa, kind, b, w})
			}
		}
		out = append(out, Kernel{isa, kind, 0, 16})
	}
	return append(out, Kernel{ISA: isa, Kind: Runs})
}
