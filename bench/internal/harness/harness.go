// Package harness is what blockshuffle's benchmarks (bench/) and the
// report command (bench/cmd/report) share: realistic tensors from
// super-resolution, detection and patchify models, each run through both
// operators, both orders, both layouts and the ONNX element widths, the
// typical Go loop they are compared with, and the timing of several
// functions side by side.
package harness

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/dispatch"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Shape is a DepthToSpace input [N, C, H, W] with its block size; the
// SpaceToDepth cases use the matching DepthToSpace output as their input.
type Shape struct{ N, C, H, W, B int }

// String reads like 1x256x13x13/b2.
func (s Shape) String() string { return fmt.Sprintf("%dx%dx%dx%d/b%d", s.N, s.C, s.H, s.W, s.B) }

// ParseShape reads a shape as String writes it, 1x256x13x13/b2: a valid
// DepthToSpace input with every dimension at least 1.
func ParseShape(text string) (Shape, error) {
	dims, b, ok := strings.Cut(text, "/b")
	fields := append(strings.Split(dims, "x"), b)
	if !ok || len(fields) != 5 {
		return Shape{}, fmt.Errorf("shape %q: want NxCxHxW/bB, such as 1x256x13x13/b2", text)
	}
	var v [5]int
	for i, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil {
			return Shape{}, fmt.Errorf("shape %q: %q is not a whole number", text, f)
		}
		if n < 1 {
			return Shape{}, fmt.Errorf("shape %q: %s = %d, want at least 1", text, [5]string{"N", "C", "H", "W", "b"}[i], n)
		}
		v[i] = n
	}
	s := Shape{v[0], v[1], v[2], v[3], v[4]}
	p := bs.Params{N: s.N, C: s.C, H: s.H, W: s.W, BlockSize: s.B}
	if _, err := p.DepthToSpaceDims(); err != nil {
		return Shape{}, fmt.Errorf("shape %q: %w", text, err)
	}
	return s, nil
}

// Shapes are the fixed set every report measures.
var Shapes = []Shape{
	{1, 256, 13, 13, 2},  // YOLOv2 reorg-sized: small planes, many channels
	{8, 16, 56, 56, 2},   // a batch of mid-sized feature maps
	{1, 64, 270, 480, 2}, // ESPCN x2 to 540x960: larger than the last-level cache
	{1, 27, 224, 224, 3}, // ESPCN x3, RGB
	{1, 48, 128, 128, 4}, // ESPCN x4, RGB
	{1, 64, 64, 64, 8},   // 8x8 patchify
	{1, 16, 64, 64, 2},   // a small feature map whose two tensors fit in L2 together
}

// LargeShapes are the tensors that outgrow the caches, where splitting a
// call over goroutines can pay: the report measures their parallel scaling.
var LargeShapes = []Shape{
	{1, 64, 270, 480, 2}, // Shapes' ESPCN x2: 8 MiB of bytes, 33 MiB of float32
	{8, 27, 224, 224, 3}, // a batch of 8 ESPCN x3 outputs: 10 MiB of bytes, 41 MiB of float32
}

// Widths are the element sizes measured: the ONNX widths up to 8 bytes.
var Widths = []int{1, 2, 4, 8}

// MaxWidth is the widest element the cases take, in bytes.
const MaxWidth = 16

// Case is one measurement.
type Case struct {
	Shape
	Op     bs.Op
	Order  bs.Order
	Layout bs.Layout
	Width  int
}

// String names the case op/order/layout/width/shape, as benchmarks and the report do.
func (c Case) String() string {
	op := "d2s"
	if c.Op == bs.OpSpaceToDepth {
		op = "s2d"
	}
	return fmt.Sprintf("%s/%v/%v/w%d/%v", op, c.Order, c.Layout, c.Width, c.Shape)
}

// Key names the case in key=value parts, as the benchmarks do, so that
// benchstat can group by any of them (-col /tier):
// op=d2s/order=DCR/layout=NCHW/width=4/shape=1x256x13x13_b2.
func (c Case) Key() string {
	op := "d2s"
	if c.Op == bs.OpSpaceToDepth {
		op = "s2d"
	}
	return fmt.Sprintf("op=%s/order=%v/layout=%v/width=%d/shape=%s", op, c.Order, c.Layout, c.Width, c.Shape.Key())
}

// Key is the shape as a benchmark name's value, without a slash:
// 1x256x13x13_b2.
func (s Shape) Key() string { return fmt.Sprintf("%dx%dx%dx%d_b%d", s.N, s.C, s.H, s.W, s.B) }

// Params are the call's parameters, on one goroutine.
func (c Case) Params() bs.Params {
	p := bs.Params{N: c.N, C: c.C, H: c.H, W: c.W, BlockSize: c.B, Order: c.Order, Layout: c.Layout, Workers: 1}
	if c.Op == bs.OpSpaceToDepth {
		p.C, p.H, p.W = c.C/(c.B*c.B), c.H*c.B, c.W*c.B
	}
	return p
}

// Request is the call as the internal packages take it, on workers
// goroutines.
func (c Case) Request(workers int) shape.Request {
	p := c.Params()
	return shape.Request{Op: uint8(c.Op), Order: uint8(c.Order), Layout: uint8(c.Layout), Elem: c.Width, Workers: workers,
		Dims: []int{p.N, p.C, p.H, p.W, p.BlockSize}}
}

// Bytes is the size of each tensor.
func (c Case) Bytes() int { return c.N * c.C * c.H * c.W * c.Width }

// Cases lists every combination of the shapes, ops, orders, layouts and widths.
func Cases(shapes []Shape, widths []int) []Case {
	var out []Case
	for _, s := range shapes {
		for _, op := range []bs.Op{bs.OpDepthToSpace, bs.OpSpaceToDepth} {
			for _, layout := range []bs.Layout{bs.NCHW, bs.NHWC} {
				for _, order := range []bs.Order{bs.DCR, bs.CRD} {
					for _, w := range widths {
						out = append(out, Case{s, op, order, layout, w})
					}
				}
			}
		}
	}
	return out
}

// Buffers are one case's input and output. Every function measured on a
// case runs on the same pair, so that none gains or loses from where its
// memory happens to lie (page offsets, cache sets).
type Buffers struct {
	c        Case
	src, dst []byte
}

// NewBuffers allocates c's tensors, the input filled with a byte pattern.
func NewBuffers(c Case) *Buffers {
	src, dst := tensors(c.Bytes())
	return &Buffers{c, src, dst}
}

// tensors are an input of n bytes filled with a pattern and an output.
func tensors(n int) (src, dst []byte) {
	src, dst = make([]byte, n), make([]byte, n)
	for i := range src {
		src[i] = byte(i)
	}
	return src, dst
}

// Tier returns a function that performs the case once with the given
// tier's kernels, on one goroutine.
func (b *Buffers) Tier(t dispatch.Tier) func() { return b.run(engine.Lookup(t.String()), 1) }

// Workers returns a function that performs the case once with the tier in
// use and Params.Workers = n.
func (b *Buffers) Workers(n int) func() {
	return b.run(engine.Active(), n)
}

func (b *Buffers) run(m *engine.Kit, workers int) func() {
	r := b.c.Request(workers)
	return func() {
		if err := m.Do(&r, engine.PlanOperator, 1, b.dst, b.src); err != nil {
			panic(err)
		}
	}
}

// Copy returns a function that copies the input to the output.
func (b *Buffers) Copy() func() { return func() { copy(b.dst, b.src) } }

// MemCopy returns a function that copies the input to the output in
// chunks that never stream (MemCopy).
func (b *Buffers) MemCopy() func() { return func() { MemCopy(b.dst, b.src) } }

// Result is a throughput measurement: the median of several samples and
// their spread.
type Result struct {
	Median, Min, Max float64   // bytes per second
	Samples          []float64 // bytes per second, in the order taken
}

// Spread is the range of the samples relative to their median.
func (r Result) Spread() float64 { return (r.Max - r.Min) / r.Median }

// Measure times each of fs, which all move n bytes per call, and reports
// their median throughputs. After a warm-up, it calibrates each to samples
// of at least minSample, then takes the samples round-robin, so that every
// function sees the machine in the same state: ratios between them hold up
// on a noisy machine better than the throughputs themselves. Samples keep
// the order of the rounds.
func Measure(fs []func(), n int, minSample time.Duration, samples int) []Result {
	iters := make([]int, len(fs))
	for i, f := range fs {
		// Warm-up, for one sample's time: page faults, caches, and for
		// functions that allocate, a heap grown to its steady size.
		for start := time.Now(); time.Since(start) < minSample; {
			f()
		}
		iters[i] = 1
		for {
			start := time.Now()
			for range iters[i] {
				f()
			}
			d := time.Since(start)
			if d >= minSample {
				break
			}
			if d <= 0 {
				iters[i] *= 100
			} else {
				iters[i] = max(iters[i]+1, int(float64(iters[i])*1.2*float64(minSample)/float64(d)))
			}
		}
	}
	rates := make([][]float64, len(fs))
	for round := range samples {
		for k := range fs {
			i := (round + k) % len(fs) // each round starts with the next function, so none is always first
			f := fs[i]
			start := time.Now()
			for range iters[i] {
				f()
			}
			rates[i] = append(rates[i], float64(n)*float64(iters[i])/time.Since(start).Seconds())
		}
	}
	out := make([]Result, len(fs))
	for i, r := range rates {
		sorted := slices.Sorted(slices.Values(r))
		out[i] = Result{Median: sorted[len(r)/2], Min: sorted[0], Max: sorted[len(r)-1], Samples: r}
	}
	return out
}
