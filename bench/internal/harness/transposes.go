package harness

import (
	"fmt"
	"strconv"
	"strings"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/dispatch"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/transpose"
)

// A Transpose is a transpose of a row-major tensor the report measures:
// output dim k is input dim Perm[k].
type Transpose struct {
	What        string // where models have it
	Shape, Perm []int
}

// Transposes are the report's transpose section: those graphs carry
// (tf2onnx's layout changes around convolutions, images entering a model,
// attention heads split and merged, keys transposed), matrices square and
// thin, and perms of rank 5 and 6. None is a block shuffle.
var Transposes = []Transpose{
	{"NCHW to NHWC, C = 3 (a model's input)", []int{1, 3, 224, 224}, []int{0, 2, 3, 1}},
	{"NCHW to NHWC, C = 16", []int{1, 16, 112, 112}, []int{0, 2, 3, 1}},
	{"NCHW to NHWC, C = 64", []int{1, 64, 56, 56}, []int{0, 2, 3, 1}},
	{"NCHW to NHWC, C = 256", []int{1, 256, 28, 28}, []int{0, 2, 3, 1}},
	{"NCHW to NHWC, large", []int{1, 64, 270, 480}, []int{0, 2, 3, 1}},
	{"NHWC to NCHW, C = 3 (an image into a model)", []int{1, 224, 224, 3}, []int{0, 3, 1, 2}},
	{"NHWC to NCHW, C = 3, 640x480", []int{1, 480, 640, 3}, []int{0, 3, 1, 2}},
	{"NHWC to NCHW, C = 16", []int{1, 112, 112, 16}, []int{0, 3, 1, 2}},
	{"NHWC to NCHW, C = 64", []int{1, 56, 56, 64}, []int{0, 3, 1, 2}},
	{"NHWC to NCHW, C = 256", []int{1, 28, 28, 256}, []int{0, 3, 1, 2}},
	{"heads split, 32 tokens", []int{1, 32, 12, 64}, []int{0, 2, 1, 3}},
	{"heads split, 128 tokens", []int{1, 128, 12, 64}, []int{0, 2, 1, 3}},
	{"heads split, 512 tokens", []int{1, 512, 12, 64}, []int{0, 2, 1, 3}},
	{"K transposed", []int{1, 12, 128, 64}, []int{0, 1, 3, 2}},
	{"matrix, square", []int{1024, 1024}, []int{1, 0}},
	{"matrix, thin", []int{4096, 3}, []int{1, 0}},
	{"matrix, wide", []int{3, 4096}, []int{1, 0}},
	{"rank 5", []int{2, 8, 16, 8, 16}, []int{0, 3, 1, 4, 2}},
	{"rank 6", []int{4, 6, 8, 5, 7, 3}, []int{5, 3, 1, 0, 4, 2}},
	{"rank 6, ViT patchify of 224x224 RGB", []int{1, 3, 14, 16, 14, 16}, []int{0, 2, 4, 3, 5, 1}},
	{"rank 6, PyTorch's pixel_shuffle by 2 into HWC", []int{1, 3, 2, 2, 135, 240}, []int{0, 4, 2, 5, 3, 1}},
}

// ParseTranspose reads a transpose from its dims, 1x64x56x56, and perm,
// 0,2,3,1: every dim at least 1, perm a permutation of the dims, at most
// blockshuffle.MaxTransposeRank of them.
func ParseTranspose(dims, perm string) (Transpose, error) {
	t := Transpose{What: "from -shapes"}
	for _, f := range strings.Split(dims, "x") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return Transpose{}, fmt.Errorf("transpose %s:%s: dim %q is not a whole number of at least 1", dims, perm, f)
		}
		t.Shape = append(t.Shape, n)
	}
	for _, f := range strings.Split(perm, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return Transpose{}, fmt.Errorf("transpose %s:%s: %q is not a whole number", dims, perm, f)
		}
		t.Perm = append(t.Perm, n)
	}
	if _, err := bs.NewTransposePlan(t.Shape, t.Perm, 1, 1); err != nil {
		return Transpose{}, fmt.Errorf("transpose %s:%s: %w", dims, perm, err)
	}
	return t, nil
}

// A TransposeCase is one transpose at one element width.
type TransposeCase struct {
	Transpose
	Width int
}

// TransposeCases lists the transposes at every width.
func TransposeCases(ts []Transpose, widths []int) []TransposeCase {
	var out []TransposeCase
	for _, t := range ts {
		for _, w := range widths {
			out = append(out, TransposeCase{t, w})
		}
	}
	return out
}

// String names the case by its shape and perm: t/w4/1x3x224x224/0,2,3,1.
func (c TransposeCase) String() string {
	return fmt.Sprintf("t/w%d/%s/%s", c.Width, dims(c.Shape, "x"), dims(c.Perm, ","))
}

// Key names the case in key=value parts, as the benchmarks do:
// op=transpose/width=4/shape=1x3x224x224/perm=0.2.3.1.
func (c TransposeCase) Key() string {
	return fmt.Sprintf("op=transpose/width=%d/shape=%s/perm=%s", c.Width, dims(c.Shape, "x"), dims(c.Perm, "."))
}

func dims(d []int, sep string) string {
	s := make([]string, len(d))
	for i, v := range d {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, sep)
}

// Bytes is the size of each tensor.
func (c TransposeCase) Bytes() int {
	n := c.Width
	for _, d := range c.Shape {
		n *= d
	}
	return n
}

// TransposeBuffers are one transpose case's input and output.
type TransposeBuffers struct {
	c        TransposeCase
	src, dst []byte
}

// NewTransposeBuffers allocates c's tensors, the input filled with a byte
// pattern.
func NewTransposeBuffers(c TransposeCase) *TransposeBuffers {
	src, dst := tensors(c.Bytes())
	return &TransposeBuffers{c, src, dst}
}

// Describe says how the given tier moves the case, as Plan.String says
// it for blockshuffle.NewTransposePlan with that tier in use and one
// worker.
func (b *TransposeBuffers) Describe(t dispatch.Tier) string {
	return b.prepared(t).Describe().String()
}

// Tier returns a function that performs the case once with the given
// tier's kernels, as blockshuffle.TransposeBytes would with that tier in
// use and Workers = 1: a block shuffle as its op, any other transpose by
// its plan, on the caller's goroutine, as its baselines run.
func (b *TransposeBuffers) Tier(t dispatch.Tier) func() {
	c := b.prepared(t)
	return func() { c.Run(b.dst, b.src) }
}

// prepared is the case's prepared call on tier t.
func (b *TransposeBuffers) prepared(t dispatch.Tier) *engine.Prepared {
	r := shape.Request{Transpose: true, Elem: b.c.Width, Workers: 1, Dims: b.c.Shape, Perm: b.c.Perm}
	c, err := engine.Lookup(t.String()).Prepare(&r, transpose.Plan)
	if err != nil {
		panic(err)
	}
	return c
}

// API returns a function that calls blockshuffle.TransposeBytes, as a
// host would on every run of a node.
func (b *TransposeBuffers) API() func() {
	return func() {
		if ok, err := bs.TransposeBytes(b.dst, b.src, b.c.Width, b.c.Shape, b.c.Perm); !ok || err != nil {
			panic(fmt.Sprint(ok, err))
		}
	}
}

// Loop returns a function that runs TransposeLoop, the loop a Go
// programmer writes by hand, on the case's elements (elemsOf).
func (b *TransposeBuffers) Loop() func() { return byWidth[b.c.Width].transposeLoop(b) }

func transposeLoopOn[T any](b *TransposeBuffers) func() {
	d, s := cast[T](b.dst), cast[T](b.src)
	return func() { TransposeLoop(d, s, b.c.Shape, b.c.Perm) }
}

// Copy returns a function that copies the input to the output.
func (b *TransposeBuffers) Copy() func() { return func() { copy(b.dst, b.src) } }

// MemCopy returns a function that copies the input to the output in
// chunks that never stream (MemCopy).
func (b *TransposeBuffers) MemCopy() func() { return func() { MemCopy(b.dst, b.src) } }
