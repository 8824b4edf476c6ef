package blockshuffle_test

import (
	"bytes"
	"errors"
	"math"
	"math/bits"
	"strings"
	"testing"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/generic"
)

type badCase struct {
	name           string
	d2s            bool
	p              bs.Params
	dstLen, srcLen int // elements; -1 means the element count of p
	elemSize       int // for the byte API; 0 means 4
	overlap        bool
	want           error // nil: a valid call
	mention        string
}

func badCases() []badCase {
	ok := bs.Params{N: 1, C: 8, H: 2, W: 3, BlockSize: 2}
	with := func(f func(p *bs.Params)) bs.Params { p := ok; f(&p); return p }
	huge := math.MaxInt/2 + 1
	bigB := 1 << (bits.UintSize / 2) // bigB*bigB overflows int
	return []badCase{
		{"block size 0", true, with(func(p *bs.Params) { p.BlockSize = 0 }), -1, -1, 0, false, bs.ErrBlockSize, "BlockSize = 0"},
		{"block size -2", false, with(func(p *bs.Params) { p.BlockSize = -2 }), -1, -1, 0, false, bs.ErrBlockSize, "BlockSize = -2"},
		{"C not a multiple of b*b", true, with(func(p *bs.Params) { p.C = 6 }), -1, -1, 0, false, bs.ErrNotDivisible, "C = 6"},
		{"C not a multiple of an overflowing b*b", true, with(func(p *bs.Params) { p.C, p.H, p.W, p.BlockSize = 1, 1, 1, bigB }), -1, -1, 0, false, bs.ErrNotDivisible, "C = 1"},
		{"H not a multiple of b", false, with(func(p *bs.Params) { p.H = 3 }), -1, -1, 0, false, bs.ErrNotDivisible, "H = 3"},
		{"W not a multiple of b", false, with(func(p *bs.Params) { p.H, p.W = 2, 3 }), -1, -1, 0, false, bs.ErrNotDivisible, "W = 3"},
		{"negative N", true, with(func(p *bs.Params) { p.N = -1 }), 0, 0, 0, false, bs.ErrNegativeDim, "N = -1"},
		{"negative C", false, with(func(p *bs.Params) { p.C = -4 }), 0, 0, 0, false, bs.ErrNegativeDim, "C = -4"},
		{"negative H", true, with(func(p *bs.Params) { p.H = -2 }), 0, 0, 0, false, bs.ErrNegativeDim, "H = -2"},
		{"negative W", false, with(func(p *bs.Params) { p.W = math.MinInt }), 0, 0, 0, false, bs.ErrNegativeDim, "W = "},
		{"element count overflows", true, with(func(p *bs.Params) { p.N, p.C, p.H, p.W = huge, 4, 2, 2 }), 0, 0, 0, false, bs.ErrOverflow, "N="},
		{"byte count overflows", true, with(func(p *bs.Params) { p.N, p.C, p.H, p.W = 1, 4, 1, math.MaxInt/8 }), 0, 0, 16, false, bs.ErrOverflow, "elemSize=16"},
		{"output height overflows", true, with(func(p *bs.Params) { p.N, p.C, p.H, p.W = 1, 4, huge, 0 }), 0, 0, 0, false, bs.ErrOverflow, "H*BlockSize"},
		{"output channels overflow", false, with(func(p *bs.Params) { p.N, p.C, p.H, p.W = 1, huge, 0, 2 }), 0, 0, 0, false, bs.ErrOverflow, "C*BlockSize*BlockSize"},
		{"short src", true, ok, -1, 47, 0, false, bs.ErrLength, "len(src)"},
		{"long src", false, with(func(p *bs.Params) { p.C, p.H, p.W = 2, 4, 6 }), -1, 49, 0, false, bs.ErrLength, "len(src)"},
		{"short dst", true, ok, 40, -1, 0, false, bs.ErrLength, "len(dst)"},
		{"nil dst", false, with(func(p *bs.Params) { p.C, p.H, p.W = 2, 4, 6 }), 0, -1, 0, false, bs.ErrLength, "len(dst) = 0"},
		{"dst and src overlap", true, ok, -1, -1, 0, true, bs.ErrOverlap, "share memory"},
		{"element size 0", true, ok, -1, -1, -1, false, bs.ErrElemSize, "elemSize = 0"},
		{"unknown order", true, with(func(p *bs.Params) { p.Order = 2 }), -1, -1, 0, false, bs.ErrOrder, "Order = 2"},
		{"unknown layout", false, with(func(p *bs.Params) { p.Layout = 9 }), -1, -1, 0, false, bs.ErrLayout, "Layout = 9"},
		{"negative workers", true, with(func(p *bs.Params) { p.Workers = -1 }), -1, -1, 0, false, bs.ErrWorkers, "Workers = -1"},
		// Zero-sized tensors are valid and write nothing.
		{"N = 0", true, with(func(p *bs.Params) { p.N = 0 }), 0, 0, 0, false, nil, ""},
		{"C = 0, huge b", true, with(func(p *bs.Params) { p.C, p.BlockSize = 0, bigB*16 }), 0, 0, 0, false, nil, ""},
		{"W = 0", false, with(func(p *bs.Params) { p.H, p.W = 4, 0 }), 0, 0, 0, false, nil, ""},
	}
}

// TestBadInputs runs every case through all four entry points of both
// packages: each returns the expected sentinel, names the bad value, and
// leaves dst exactly as it was. It runs each case twice: as it comes, and
// right after a call of the same parameters with the right lengths, which
// a call of bad lengths or overlapping slices must not get past.
func TestBadInputs(t *testing.T) {
	for _, c := range badCases() {
		t.Run(c.name, func(t *testing.T) { badInput(t, c, false) })
		t.Run(c.name+" after a good call", func(t *testing.T) { badInput(t, c, true) })
	}
}

func badInput(t *testing.T, c badCase, primed bool) {
	n := 0
	if c.p.N >= 0 && c.p.C >= 0 && c.p.H >= 0 && c.p.W >= 0 && c.want != bs.ErrOverflow {
		n = c.p.Dims().Len()
	}
	dstLen, srcLen := n, n
	if c.dstLen >= 0 {
		dstLen = c.dstLen
	}
	if c.srcLen >= 0 {
		srcLen = c.srcLen
	}
	es := 4
	if c.elemSize != 0 {
		es = max(c.elemSize, 0)
	}
	for _, api := range entryPoints(c.d2s) {
		if c.elemSize != 0 && !api.bytes {
			continue // element sizes exist only in the byte API
		}
		mem := make([]byte, (dstLen+srcLen)*4+es*(dstLen+srcLen))
		for i := range mem {
			mem[i] = byte(i*7 + 1)
		}
		size := 4
		if api.bytes {
			size = es
		}
		dst := mem[:dstLen*size]
		src := mem[len(mem)-srcLen*size:]
		if c.overlap {
			src = mem[size : size+srcLen*size]
		}
		if primed && n > 0 {
			_ = api.call(make([]byte, n*size), make([]byte, n*size), size, c.p) // valid only where the parameters are
		}
		before := bytes.Clone(mem)
		err := api.call(dst, src, size, c.p)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Fatalf("%s: error %v, want %v", api.name, err, c.want)
		}
		if err != nil && !strings.Contains(err.Error(), c.mention) {
			t.Errorf("%s: error %q does not mention %q", api.name, err, c.mention)
		}
		if !bytes.Equal(mem, before) {
			t.Errorf("%s: memory changed", api.name)
		}
	}
}

type entryPoint struct {
	name  string
	bytes bool
	call  func(dst, src []byte, es int, p bs.Params) error
}

// entryPoints returns every public function of the operator; typed ones
// view the bytes as float32.
func entryPoints(d2s bool) []entryPoint {
	typed := func(f func(dst, src []float32, p bs.Params) error) func(dst, src []byte, es int, p bs.Params) error {
		return func(dst, src []byte, _ int, p bs.Params) error { return f(asFloats(dst), asFloats(src), p) }
	}
	op := bs.OpSpaceToDepth
	if d2s {
		op = bs.OpDepthToSpace
	}
	plans := []entryPoint{
		{"NewPlan, Run", true, func(dst, src []byte, es int, p bs.Params) error {
			pl, err := bs.NewPlan(op, p, es)
			if err != nil {
				return err
			}
			return pl.Run(dst, src)
		}},
		{"NewPlan, RunPlan", false, typed(func(dst, src []float32, p bs.Params) error {
			pl, err := bs.NewPlan(op, p, 4)
			if err != nil {
				return err
			}
			return bs.RunPlan(pl, dst, src)
		})},
	}
	if d2s {
		return append(plans, []entryPoint{
			{"DepthToSpace", false, typed(bs.DepthToSpace[float32])},
			{"DepthToSpaceBytes", true, bs.DepthToSpaceBytes},
			{"generic.DepthToSpace", false, typed(generic.DepthToSpace[float32])},
			{"generic.DepthToSpaceBytes", true, generic.DepthToSpaceBytes},
		}...)
	}
	return append(plans, []entryPoint{
		{"SpaceToDepth", false, typed(bs.SpaceToDepth[float32])},
		{"SpaceToDepthBytes", true, bs.SpaceToDepthBytes},
		{"generic.SpaceToDepth", false, typed(generic.SpaceToDepth[float32])},
		{"generic.SpaceToDepthBytes", true, generic.SpaceToDepthBytes},
	}...)
}

func asFloats(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return bitsAs[float32](b)
}
