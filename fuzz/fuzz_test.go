package fuzz

import (
	"bytes"
	"math"
	"slices"
	"testing"
	"unsafe"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/generic"
	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/verify"
)

// shapeSeeds are the interesting cases every run starts from: b = 1, the
// common block sizes, C == b*b, H or W = 1, N > 1, widths that straddle
// vector sizes, every element width, and short NCHW rows of b = 2.
func shapeSeeds(f *testing.F) {
	for _, s := range [][8]uint8{
		// n, C', h, w, b, width index, order, layout
		{0, 0, 0, 0, 0, 0, 0, 0},
		{0, 0, 1, 2, 1, 2, 0, 0},
		{1, 1, 3, 12, 1, 3, 1, 0},
		{0, 2, 6, 31, 1, 1, 0, 1},
		{2, 4, 2, 32, 2, 4, 1, 1},
		{0, 0, 0, 63, 3, 0, 0, 0},
		{1, 3, 4, 64, 3, 5, 1, 0},
		{0, 1, 8, 7, 7, 6, 0, 1},
		{0, 2, 0, 16, 7, 2, 1, 1},
		{2, 0, 12, 5, 8, 3, 0, 0},
		{1, 2, 4, 12, 1, 0, 1, 0}, // NCHW b = 2, rows of 13 bytes: AVX2's bundles
		{0, 1, 3, 40, 1, 1, 0, 0}, // and rows of 82 bytes, in chunks of 32
		{0, 2, 1, 31, 2, 4, 0, 1}, // NHWC DCR b = 3, runs of 72 bytes: streamRuns when streaming
		{1, 2, 2, 3, 2, 4, 1, 1},  // NHWC CRD b = 3, C' = 3, 8-byte, 4 pixels: a streaming transpose's chunk
		{0, 7, 3, 9, 1, 0, 1, 1},  // NHWC CRD b = 2, C' = 8, 1-byte: the transposing kernels of 8 channels
		{1, 1, 2, 5, 7, 1, 1, 1},  // NHWC CRD b = 8, C' = 2, 2-byte: and of 8x8 blocks of 2 channels
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5], s[6] == 1, s[7] == 1, []byte{s[0], s[3], 0xff, 0x00, 0x80})
	}
}

// decode turns fuzz arguments into a case of moderate size.
func decode(op bs.Op, n, cp, h, w, b, width uint8, crd, nhwc bool) shape.Geometry {
	p := bs.Params{
		N: 1 + int(n)%3, C: 1 + int(cp)%8, H: 1 + int(h)%13, W: 1 + int(w)%70,
		BlockSize: 1 + int(b)%9, Workers: 1,
	}
	if crd {
		p.Order = bs.CRD
	}
	if nhwc {
		p.Layout = bs.NHWC
	}
	bb := p.BlockSize
	// Keep every execution quick (the reference moves one element at a
	// time), so that the fuzzer's deadline never lands in a slow one.
	for p.N*p.C*bb*bb*p.H*p.W > maxFuzzElems {
		if p.W >= p.H {
			p.W = (p.W + 1) / 2
		} else {
			p.H = (p.H + 1) / 2
		}
		if p.W == 1 && p.H == 1 {
			p.N, p.C = 1, 1
		}
	}
	if op == bs.OpDepthToSpace {
		p.C *= bb * bb
	} else {
		p.H, p.W = p.H*bb, p.W*bb
	}
	r := request(op, p, widths[int(width)%len(widths)])
	g, err := r.Check()
	if err != nil {
		panic(err) // decode makes valid calls
	}
	return g
}

// widths are the element sizes the shape fuzzers draw: the comparisons'
// (cases.Widths), and 5, 6 and 7 bytes, elements of several words that
// take other paths than 3 and 12.
var widths = append(slices.Clone(cases.Widths), 5, 6, 7)

// maxFuzzElems bounds the tensors the shape fuzzers build.
const maxFuzzElems = 1 << 15

// fill repeats seed (mixed with the position, so runs never repeat) over n bytes.
func fill(seed []byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(i*131 + i>>8)
		if len(seed) > 0 {
			out[i] ^= seed[i%len(seed)]
		}
	}
	return out
}

// compare runs the case through the public API, generic, and every tier
// this machine can run, against the reference; then every tier again with
// the streaming paths large tensors take (non-temporal kernels).
func compare(t *testing.T, g shape.Geometry, seed []byte) {
	src := fill(seed, g.Len()*g.Elem)
	paths := append(verify.Tiers(), verify.Path{Name: "api", Run: apiBytes}, verify.Path{Name: "generic", Run: genericBytes})
	for _, path := range paths {
		verify.Check(t, path.Name, path.Run, &g, make([]byte, len(src)), src)
	}
	defer engine.SetStreamMin(0)()
	for _, path := range verify.Tiers() {
		verify.Check(t, path.Name+" streaming", path.Run, &g, make([]byte, len(src)), src)
	}
}

func FuzzDepthToSpace(f *testing.F) {
	shapeSeeds(f)
	f.Fuzz(func(t *testing.T, n, cp, h, w, b, width uint8, crd, nhwc bool, seed []byte) {
		compare(t, decode(bs.OpDepthToSpace, n, cp, h, w, b, width, crd, nhwc), seed)
	})
}

func FuzzSpaceToDepth(f *testing.F) {
	shapeSeeds(f)
	f.Fuzz(func(t *testing.T, n, cp, h, w, b, width uint8, crd, nhwc bool, seed []byte) {
		compare(t, decode(bs.OpSpaceToDepth, n, cp, h, w, b, width, crd, nhwc), seed)
	})
}

// FuzzValidate calls every entry point with arbitrary parameters and slice
// lengths: each either returns an error wrapping exactly one sentinel and
// leaves memory untouched, or returns the reference's result, also right
// after a call of the same parameters with the right lengths (which the
// API keeps a plan for). Nothing panics.
func FuzzValidate(f *testing.F) {
	f.Add(1, 8, 2, 3, 2, uint8(0), uint8(0), 0, 4, uint16(48), uint16(48), false, true)
	f.Add(1, 8, 2, 3, 2, uint8(1), uint8(1), 2, 4, uint16(48), uint16(48), true, false)
	f.Add(-1, 8, 2, 3, 2, uint8(0), uint8(0), 0, 4, uint16(48), uint16(48), false, true)
	f.Add(1, 8, 2, 3, 0, uint8(0), uint8(0), 0, 4, uint16(48), uint16(48), false, false)
	f.Add(math.MaxInt/2, 8, 2, 3, 2, uint8(0), uint8(0), 0, 4, uint16(0), uint16(0), false, true)
	f.Add(1, 0, math.MaxInt/4, 3, math.MaxInt/8, uint8(0), uint8(0), 0, 4, uint16(0), uint16(0), false, true)
	f.Add(1, 3, 4, 6, 2, uint8(0), uint8(1), 0, 0, uint16(72), uint16(72), false, false)
	f.Add(1, 3, 4, 6, 2, uint8(5), uint8(0), -3, 1, uint16(72), uint16(72), false, false)
	f.Add(1, 1, 4, 18, 2, uint8(0), uint8(0), 0, 188, uint16(72), uint16(72), true, false) // overlap, after a good call
	f.Fuzz(func(t *testing.T, n, c, h, w, b int, order, layout uint8, workers, es int, dstLen, srcLen uint16, overlap, d2s bool) {
		p := bs.Params{N: n, C: c, H: h, W: w, BlockSize: b, Order: bs.Order(order), Layout: bs.Layout(layout), Workers: workers % 5}
		op := bs.OpSpaceToDepth
		if d2s {
			op = bs.OpDepthToSpace
		}
		es = es % 20
		for _, api := range []string{"typed", "bytes", "generic", "generic bytes"} {
			size := 4
			if api == "bytes" || api == "generic bytes" {
				size = max(es, 1)
			}
			mem := fill([]byte{byte(n), byte(c)}, (int(dstLen)+int(srcLen))*size)
			dst, src := mem[:int(dstLen)*size], mem[int(dstLen)*size:]
			if overlap && len(src) > 0 {
				src = mem[:int(srcLen)*size]
			}
			if elems, ok := shape.Count(p.N, p.C, p.H, p.W); ok && p.N >= 0 && p.C >= 0 && p.H >= 0 && p.W >= 0 && elems <= 1<<12 {
				// A good call first, where the parameters allow one: the
				// call below must be judged as closely after it.
				good := make([]byte, elems*size)
				_ = call(api, op, good, bytes.Clone(good), es, p)
			}
			before := bytes.Clone(mem)
			err := call(api, op, dst, src, es, p)
			if err != nil {
				if matched := verify.Wrapped(err); matched != 1 {
					t.Fatalf("%s %+v: error %v wraps %d sentinels", api, p, err, matched)
				}
				if !bytes.Equal(mem, before) {
					t.Fatalf("%s %+v: memory changed on error %v", api, p, err)
				}
				continue
			}
			want := make([]byte, len(dst))
			r := request(op, p, size)
			g, err := r.Check()
			if err != nil || len(dst) != g.Len()*size || len(src) != len(dst) {
				t.Fatalf("%s %+v: accepted, but it is %v (or of other lengths)", api, p, err)
			}
			ref.RunBytes(&g, want, bytes.Clone(src))
			if !bytes.Equal(dst, want) {
				t.Fatalf("%s %+v: result differs from the reference", api, p)
			}
		}
	})
}

func call(api string, op bs.Op, dst, src []byte, es int, p bs.Params) error {
	d2s := op == bs.OpDepthToSpace
	switch api {
	case "typed":
		f := bs.SpaceToDepth[float32]
		if d2s {
			f = bs.DepthToSpace[float32]
		}
		return f(floats(dst), floats(src), p)
	case "bytes":
		if d2s {
			return bs.DepthToSpaceBytes(dst, src, es, p)
		}
		return bs.SpaceToDepthBytes(dst, src, es, p)
	case "generic":
		f := generic.SpaceToDepth[float32]
		if d2s {
			f = generic.DepthToSpace[float32]
		}
		return f(floats(dst), floats(src), p)
	}
	if d2s {
		return generic.DepthToSpaceBytes(dst, src, es, p)
	}
	return generic.SpaceToDepthBytes(dst, src, es, p)
}

// floats views b, whose length is a multiple of 4, as float32s.
func floats(b []byte) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}
