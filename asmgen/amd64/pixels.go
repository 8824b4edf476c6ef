package amd64

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
)

// Pixel adds one of imagetensor's pixel kernels, in AVX2 or AVX-512, to
// the file.
// Each is one loop over n blocks, n > 0 or nothing done.
func (g *Generator) Pixel(p table.Pixel, isa table.ISA) error {
	body := pixelBodies[p.Name]
	if isa.TwoTable() {
		body = pixelBodies512[p.Name]
	}
	if body == nil {
		return fmt.Errorf("%s: amd64 has no pixel kernel %s", isa, p.Name)
	}
	c := g.c
	c.Function(p.Name + string(isa))
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func" + p.Params())
	c.Doc(p.Name + string(isa) + " " + p.Doc)
	regs := map[string]reg.GPVirtual{}
	for _, name := range p.Names() {
		regs[name] = c.GP64()
		c.Load(c.Param(name), regs[name])
	}
	loop, done := g.label("block"), g.label("done")
	n := regs["n"]
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef(done))
	step := body(g, regs)
	c.Label(loop)
	step.block()
	for _, name := range p.Names() { // in order: the file is the same on every run
		if size := step.advance[name]; size != 0 {
			c.ADDQ(operand.I32(size), regs[name])
		}
	}
	c.DECQ(n)
	c.JNZ(operand.LabelRef(loop))
	c.Label(done)
	c.VZEROUPPER()
	c.RET()
	return nil
}

// A pixelStep is a kernel's loop body, after what it sets up once: block
// moves one block from the pointers, which advance then adds to.
type pixelStep struct {
	block   func()
	advance map[string]int
}

func at(r reg.GPVirtual, disp int) operand.Mem { return operand.Mem{Base: r, Disp: disp} }

// dwordOrder is the VPERMD index that puts the dwords of a register's two
// lanes in order after in-lane packs: 0, 4, 1, 5, 2, 6, 3, 7.
func (g *Generator) dwordOrder() reg.VecVirtual {
	var b [32]byte
	for i, d := range []uint32{0, 4, 1, 5, 2, 6, 3, 7} {
		binary.LittleEndian.PutUint32(b[4*i:], d)
	}
	y := g.c.YMM()
	g.loadYMM(b[:], y)
	return y
}

// dwords is a constant of 8 equal dwords.
func (g *Generator) dwords(v uint32) operand.Mem {
	var b [32]byte
	for i := range 8 {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return g.constant(b[:])
}

var pixelBodies = map[string]func(g *Generator, r map[string]reg.GPVirtual) pixelStep{
	// Each 16-byte lane gathers its four pixels' bytes by channel
	// (VPSHUFB), VPERMD puts each channel's 8 bytes in a quadword, and
	// quadword unpacks of the two registers join 16 bytes per channel.
	"splitRGBA": func(g *Generator, r map[string]reg.GPVirtual) pixelStep {
		c := g.c
		var b [32]byte
		for i := range 16 {
			b[i], b[16+i] = byte(i%4*4+i/4), byte(i%4*4+i/4)
		}
		ctl := c.YMM()
		g.loadYMM(b[:], ctl)
		idx := g.dwordOrder()
		return pixelStep{func() {
			y0, y1, lo, hi := c.YMM(), c.YMM(), c.YMM(), c.YMM()
			c.VMOVDQU(at(r["src"], 0), y0)
			c.VMOVDQU(at(r["src"], 32), y1)
			c.VPSHUFB(ctl, y0, y0)
			c.VPSHUFB(ctl, y1, y1)
			c.VPERMD(y0, idx, y0)
			c.VPERMD(y1, idx, y1)
			c.VPUNPCKLQDQ(y1, y0, lo) // red, then blue
			c.VPUNPCKHQDQ(y1, y0, hi) // green, then the fourth bytes
			c.VMOVDQU(lo.AsX(), at(r["red"], 0))
			c.VEXTRACTI128(operand.U8(1), lo, at(r["blue"], 0))
			c.VMOVDQU(hi.AsX(), at(r["green"], 0))
		}, map[string]int{"src": 64, "red": 16, "green": 16, "blue": 16}}
	},
	// Four pixels a 16-byte register: VPSHUFB makes 12 bytes of each and
	// zeroes the rest, and byte shifts join them into three registers.
	"packRGB": func(g *Generator, r map[string]reg.GPVirtual) pixelStep {
		c := g.c
		var rgb, bgr [16]byte
		for i := range 16 {
			rgb[i], bgr[i] = 0x80, 0x80
		}
		for px := range 4 {
			for ch := range 3 {
				rgb[3*px+ch], bgr[3*px+ch] = byte(4*px+ch), byte(4*px+2-ch)
			}
		}
		addr, other := c.GP64(), c.GP64()
		c.LEAQ(g.constant(rgb[:]), addr)
		c.LEAQ(g.constant(bgr[:]), other)
		c.TESTQ(r["bgr"], r["bgr"])
		c.CMOVQNE(other, addr)
		ctl := c.XMM()
		c.VMOVDQU(at(addr, 0), ctl)
		return pixelStep{func() {
			x := [4]reg.VecVirtual{c.XMM(), c.XMM(), c.XMM(), c.XMM()}
			for i := range x {
				c.VMOVDQU(at(r["src"], 16*i), x[i])
				c.VPSHUFB(ctl, x[i], x[i])
			}
			for i := range 3 { // out i: x[i] from byte 4i, then x[i+1]'s first 4(i+1) bytes
				lo, hi := c.XMM(), c.XMM()
				c.VPSRLDQ(operand.U8(4*i), x[i], lo)
				c.VPSLLDQ(operand.U8(12-4*i), x[i+1], hi)
				c.VPOR(hi, lo, lo)
				c.VMOVDQU(lo, at(r["dst"], 16*i))
			}
		}, map[string]int{"src": 64, "dst": 48}}
	},
	"joinRGBA": func(g *Generator, r map[string]reg.GPVirtual) pixelStep {
		c := g.c
		ones := c.XMM()
		c.VPCMPEQB(ones, ones, ones)
		return pixelStep{func() {
			xr, xg, xb := c.XMM(), c.XMM(), c.XMM()
			c.VMOVDQU(at(r["red"], 0), xr)
			c.VMOVDQU(at(r["green"], 0), xg)
			c.VMOVDQU(at(r["blue"], 0), xb)
			rg := [2]reg.VecVirtual{c.XMM(), c.XMM()}
			ba := [2]reg.VecVirtual{c.XMM(), c.XMM()}
			c.VPUNPCKLBW(xg, xr, rg[0])
			c.VPUNPCKHBW(xg, xr, rg[1])
			c.VPUNPCKLBW(ones, xb, ba[0])
			c.VPUNPCKHBW(ones, xb, ba[1])
			for i := range 2 {
				lo, hi := c.XMM(), c.XMM()
				c.VPUNPCKLWD(ba[i], rg[i], lo)
				c.VPUNPCKHWD(ba[i], rg[i], hi)
				c.VMOVDQU(lo, at(r["dst"], 32*i))
				c.VMOVDQU(hi, at(r["dst"], 32*i+16))
			}
		}, map[string]int{"dst": 64, "red": 16, "green": 16, "blue": 16}}
	},
	"doubleBytes": func(g *Generator, r map[string]reg.GPVirtual) pixelStep {
		c := g.c
		return pixelStep{func() {
			x, lo, hi := c.XMM(), c.XMM(), c.XMM()
			c.VMOVDQU(at(r["src"], 0), x)
			c.VPUNPCKLBW(x, x, lo)
			c.VPUNPCKHBW(x, x, hi)
			c.VMOVDQU(lo, at(r["dst"], 0))
			c.VMOVDQU(hi, at(r["dst"], 16))
		}, map[string]int{"src": 16, "dst": 32}}
	},
	"toFloat32": func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.toFloat(r, false, g.ymm()) },
	"toFloat16": func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.toFloat(r, true, g.ymm()) },
	// Four registers of values a step, packed with signed then unsigned
	// saturation within lanes, and put in order by VPERMD. VMAXPS takes
	// its second operand where the first is NaN: zero.
	"toBytes": func(g *Generator, r map[string]reg.GPVirtual) pixelStep {
		c := g.c
		scale, bias, zero, top := c.YMM(), c.YMM(), c.YMM(), c.YMM()
		c.VBROADCASTSS(at(r["scale"], 0), scale)
		c.VBROADCASTSS(at(r["bias"], 0), bias)
		c.VXORPS(zero, zero, zero)
		c.VBROADCASTSS(g.dwords(math.Float32bits(255)), top)
		idx := g.dwordOrder()
		return pixelStep{func() {
			var v [4]reg.VecVirtual
			for i := range v {
				v[i] = c.YMM()
				c.VMULPS(at(r["src"], 32*i), scale, v[i])
				c.VADDPS(bias, v[i], v[i])
				c.VMAXPS(zero, v[i], v[i])
				c.VMINPS(top, v[i], v[i])
				c.VCVTPS2DQ(v[i], v[i])
			}
			w0, w1 := c.YMM(), c.YMM()
			c.VPACKSSDW(v[1], v[0], w0)
			c.VPACKSSDW(v[3], v[2], w1)
			c.VPACKUSWB(w1, w0, w0)
			c.VPERMD(w0, idx, w0)
			c.VMOVDQU(w0, at(r["dst"], 0))
		}, map[string]int{"src": 128, "dst": 32}}
	},
	// In 32-bit lanes, exactly image/color's arithmetic (chromaTerms):
	// the sums shifted right by 16 fit 16 bits, and the two saturating
	// packs clamp them to [0, 255] as YCbCrToRGB does.
	"ycbcrToRGB": func(g *Generator, r map[string]reg.GPVirtual) pixelStep {
		c := g.c
		k := g.ycbcrConstants(g.ymm(), "y", "128", "rcr", "gcb", "gcr", "bcb")
		idx := g.dwordOrder()
		return pixelStep{func() {
			var out [3][2]reg.VecVirtual // r, g, b of pixels 0-7 and 8-15
			for h := range 2 {
				y := g.luma(at(r["y"], 8*h), k, g.ymm())
				for ch, v := range g.chromaTerms(r, lookup(k), c.YMM, 8*h) {
					c.VPADDD(y, v, v)
					c.VPSRAD(operand.U8(16), v, v)
					out[ch][h] = v
				}
			}
			for ch, name := range []string{"red", "green", "blue"} {
				w := c.YMM()
				c.VPACKSSDW(out[ch][1], out[ch][0], w)
				c.VPACKUSWB(w, w, w)
				c.VPERMD(w, idx, w)
				c.VMOVDQU(w.AsX(), at(r[name], 0))
			}
		}, map[string]int{"y": 16, "cb": 16, "cr": 16, "red": 16, "green": 16, "blue": 16}}
	},
	"ycbcrToFloat32":    func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.ycbcrFloats(r, g.ymm()) },
	"ycbcr422ToFloat32": func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.ycbcrPairs(r, 1, g.ymm()) },
	"ycbcr420ToFloat32": func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.ycbcrPairs(r, 2, g.ymm()) },
}

// A width is the registers an x86 body computes in: 8 dwords (AVX2's
// YMM) or 16 (AVX-512's ZMM). AVX2's bodies read their constants from
// memory, for the sixteen registers they have; AVX-512's hold them.
type width struct {
	lanes int
	vec   func() reg.VecVirtual
}

func (g *Generator) ymm() width { return width{8, g.c.YMM} }
func (g *Generator) zmm() width { return width{16, g.c.ZMM} }

// wide is a 256-bit register's value as the width's register: itself, or
// its ZMM (VEX writes zero the bits above).
func (w width) wide(v reg.VecVirtual) operand.Op {
	if w.lanes == 16 {
		return v.AsZ()
	}
	return v
}

// narrow is a constant of the width as the operand of a 256-bit
// instruction.
func (w width) narrow(k operand.Op) operand.Op {
	if v, ok := k.(reg.VecVirtual); ok && w.lanes == 16 {
		return v.AsY()
	}
	return k
}

// ycbcrConstant is a constant of the YCbCr bodies, by name, filling a
// 256-bit register: image/color's YCbCrToRGB multipliers and offset
// ("y" 0x10101, "128", "rcr", "gcb", "gcr", "bcb"), "0", "255", and "y3",
// the VPSHUFB control that spreads a byte over the three low bytes of its
// dword (y*0x10101).
func (g *Generator) ycbcrConstant(name string, lanes int) operand.Mem {
	if name == "y3" {
		spread := make([]byte, 4*lanes)
		for i := range spread {
			spread[i] = byte(i % 16 &^ 3)
			if i%4 == 3 {
				spread[i] = 0x80
			}
		}
		return g.constant(spread)
	}
	v := map[string]int32{"y": 0x10101, "128": 128, "rcr": 91881, "gcb": -22554, "gcr": -46802, "bcb": 116130, "0": 0, "255": 255}[name]
	return g.dwords(uint32(v))
}

// ycbcrConstants are the named constants (ycbcrConstant) for a body of
// width w, in this order: in memory for AVX2, in registers for AVX-512.
func (g *Generator) ycbcrConstants(w width, names ...string) map[string]operand.Op {
	k := map[string]operand.Op{}
	for _, name := range names {
		m := g.ycbcrConstant(name, w.lanes)
		if w.lanes == 8 {
			k[name] = m
			continue
		}
		v := w.vec()
		if name == "y3" {
			g.c.VMOVDQU32(m, v)
		} else {
			g.c.VPBROADCASTD(m, v)
		}
		k[name] = v
	}
	return k
}

// lookup is k's constants by name.
func lookup(k map[string]operand.Op) func(string) operand.Op {
	return func(name string) operand.Op { return k[name] }
}

// zeroed is a register of width w holding zero.
func (g *Generator) zeroed(w width) reg.VecVirtual {
	z := w.vec()
	if w.lanes == 16 {
		g.c.VPXORD(z, z, z)
	} else {
		g.c.VPXOR(z, z, z)
	}
	return z
}

// load loads a register of width w from m.
func (g *Generator) load(m operand.Mem, v reg.VecVirtual, w width) {
	if w.lanes == 16 {
		g.c.VMOVDQU32(m, v)
	} else {
		g.c.VMOVDQU(m, v)
	}
}

// channelScales loads each channel's scale and bias, one float32 each, in
// every lane of a register of width w.
func (g *Generator) channelScales(r map[string]reg.GPVirtual, w width) (scale, bias [3]reg.VecVirtual) {
	for ch := range 3 {
		scale[ch], bias[ch] = w.vec(), w.vec()
		g.c.VBROADCASTSS(at(r["scale"], 4*ch), scale[ch])
		g.c.VBROADCASTSS(at(r["bias"], 4*ch), bias[ch])
	}
	return scale, bias
}

// luma loads the luma bytes at m, a lane each, times 0x10101.
func (g *Generator) luma(m operand.Mem, k map[string]operand.Op, w width) reg.VecVirtual {
	y := w.vec()
	g.c.VPMOVZXBD(m, y)
	g.c.VPMULLD(k["y"], y, y)
	return y
}

// chromaTerms loads the chroma samples at disp of cb and cr into the
// registers vec makes (their lanes' count of samples) and returns each
// channel's terms as image/color's YCbCrToRGB adds them to y*0x10101:
// 91881*cr, -22554*cb - 46802*cr and 116130*cb, of cb and cr less 128.
// konst gives the constants as operands of those registers.
func (g *Generator) chromaTerms(r map[string]reg.GPVirtual, konst func(string) operand.Op, vec func() reg.VecVirtual, disp int) [3]reg.VecVirtual {
	c := g.c
	cb, cr := vec(), vec()
	c.VPMOVZXBD(at(r["cb"], disp), cb)
	c.VPSUBD(konst("128"), cb, cb)
	c.VPMOVZXBD(at(r["cr"], disp), cr)
	c.VPSUBD(konst("128"), cr, cr)
	terms := [3]reg.VecVirtual{vec(), vec(), vec()}
	c.VPMULLD(konst("rcr"), cr, terms[0])
	c.VPMULLD(konst("gcb"), cb, terms[1])
	c.VPMULLD(konst("gcr"), cr, cr)
	c.VPADDD(cr, terms[1], terms[1])
	c.VPMULLD(konst("bcb"), cb, terms[2])
	return terms
}

// finish ends a channel of pixels whose sum image/color's YCbCrToRGB
// computes is in v: shifted right by 16 and clamped to [0, 255] (zero
// and top hold 0 and 255), then scaled as toFloat32 does, and stored.
func (g *Generator) finish(v reg.VecVirtual, zero, top operand.Op, scale, bias reg.VecVirtual, dst operand.Mem) {
	c := g.c
	c.VPSRAD(operand.U8(16), v, v)
	c.VPMAXSD(zero, v, v)
	c.VPMINSD(top, v, v)
	c.VCVTDQ2PS(v, v)
	c.VMULPS(scale, v, v)
	c.VADDPS(bias, v, v)
	c.VMOVUPS(v, dst)
}

// ycbcrFloats is ycbcrToFloat32's body: in registers of width w, sums,
// then finish; no bytes in between.
func (g *Generator) ycbcrFloats(r map[string]reg.GPVirtual, w width) pixelStep {
	c := g.c
	k := g.ycbcrConstants(w, "y", "128", "rcr", "gcb", "gcr", "bcb", "255")
	scale, bias := g.channelScales(r, w)
	zero := g.zeroed(w)
	return pixelStep{func() {
		for h := range 16 / w.lanes {
			y := g.luma(at(r["y"], w.lanes*h), k, w)
			for ch, v := range g.chromaTerms(r, lookup(k), w.vec, w.lanes*h) {
				c.VPADDD(y, v, v)
				g.finish(v, zero, k["255"], scale[ch], bias[ch], at(r[[]string{"red", "green", "blue"}[ch]], 4*w.lanes*h))
			}
		}
	}, map[string]int{"y": 16, "cb": 16, "cr": 16, "red": 64, "green": 64, "blue": 64}}
}

// ycbcrPairs is the body of ycbcr422ToFloat32 (rows 1) and
// ycbcr420ToFloat32 (rows 2, the second at below and yStride): each
// chroma sample's terms are computed once, 8 in a 256-bit register, and
// VPERMD gives each to its two pixels' lanes, in each row; y*0x10101 is
// y's byte in the three low bytes of its lane (VPSHUFB). AVX2's pair of
// rows reads zero from memory: it takes all sixteen registers else.
func (g *Generator) ycbcrPairs(r map[string]reg.GPVirtual, rows int, w width) pixelStep {
	c := g.c
	names := []string{"128", "rcr", "gcb", "gcr", "bcb", "255", "y3"}
	if w.lanes == 8 && rows == 2 {
		names = append(names, "0")
	}
	k := g.ycbcrConstants(w, names...)
	scale, bias := g.channelScales(r, w)
	zero := k["0"]
	if zero == nil {
		zero = g.zeroed(w)
	}
	halves := 16 / w.lanes
	pairs := make([]reg.VecVirtual, halves) // the VPERMD indexes of each half's pixels
	for h := range pairs {
		b := make([]byte, 4*w.lanes)
		for i := range w.lanes {
			binary.LittleEndian.PutUint32(b[4*i:], uint32((w.lanes*h+i)/2))
		}
		pairs[h] = w.vec()
		g.load(g.constant(b), pairs[h], w)
	}
	mem := func(row int, name string, disp int) operand.Mem {
		if row == 0 {
			return at(r[name], disp)
		}
		step := r["below"]
		if name == "y" {
			step = r["yStride"]
		}
		return operand.Mem{Base: r[name], Index: step, Scale: 1, Disp: disp}
	}
	return pixelStep{func() {
		terms := g.chromaTerms(r, func(name string) operand.Op { return w.narrow(k[name]) }, c.YMM, 0)
		for h := range halves {
			var d [3]reg.VecVirtual
			for ch, t := range terms {
				d[ch] = w.vec()
				c.VPERMD(w.wide(t), pairs[h], d[ch])
			}
			for row := range rows {
				y := w.vec()
				c.VPMOVZXBD(mem(row, "y", w.lanes*h), y)
				c.VPSHUFB(k["y3"], y, y)
				for ch, name := range []string{"red", "green", "blue"} {
					v := w.vec()
					c.VPADDD(y, d[ch], v)
					g.finish(v, zero, k["255"], scale[ch], bias[ch], mem(row, name, 4*w.lanes*h))
				}
			}
		}
	}, map[string]int{"y": 16, "cb": 8, "cr": 8, "red": 64, "green": 64, "blue": 64}}
}

// toFloat is toFloat32's and, with half, toFloat16's body in registers
// of width w: 48 values a block, each register with its own third of the
// scale and bias pattern. VMULPS then VADDPS, never fused, as the Go code
// rounds.
func (g *Generator) toFloat(r map[string]reg.GPVirtual, half bool, w width) pixelStep {
	c := g.c
	var scale, bias [3]reg.VecVirtual
	for i := range 3 {
		scale[i], bias[i] = w.vec(), w.vec()
		c.VMOVUPS(at(r["scale"], 4*w.lanes*i), scale[i])
		c.VMOVUPS(at(r["bias"], 4*w.lanes*i), bias[i])
	}
	out := 4
	if half {
		out = 2
	}
	return pixelStep{func() {
		for i := range 48 / w.lanes {
			v := w.vec()
			c.VPMOVZXBD(at(r["src"], w.lanes*i), v)
			c.VCVTDQ2PS(v, v)
			c.VMULPS(scale[i%3], v, v)
			c.VADDPS(bias[i%3], v, v)
			if half {
				c.VCVTPS2PH(operand.U8(0), v, at(r["dst"], 2*w.lanes*i)) // 0: round to nearest even
			} else {
				c.VMOVUPS(v, at(r["dst"], 4*w.lanes*i))
			}
		}
	}, map[string]int{"src": 48, "dst": 48 * out}}
}

// pixelBodies512 are the AVX-512 kernels' bodies: the AVX2 bodies' in
// registers of 16 values.
var pixelBodies512 = map[string]func(g *Generator, r map[string]reg.GPVirtual) pixelStep{
	"toFloat16":         func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.toFloat(r, true, g.zmm()) },
	"ycbcrToFloat32":    func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.ycbcrFloats(r, g.zmm()) },
	"ycbcr422ToFloat32": func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.ycbcrPairs(r, 1, g.zmm()) },
	"ycbcr420ToFloat32": func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.ycbcrPairs(r, 2, g.zmm()) },
}
