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
	g.c.VMOVDQU(g.constant(b[:]), y)
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
		c.VMOVDQU(g.constant(b[:]), ctl)
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
	"toFloat32": func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.toFloat(r, false) },
	"toFloat16": func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.toFloat(r, true) },
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
	// In 32-bit lanes, exactly image/color's arithmetic (ycbcr): the
	// sums shifted right by 16 fit 16 bits, and the two saturating packs
	// clamp them to [0, 255] as YCbCrToRGB does.
	"ycbcrToRGB": func(g *Generator, r map[string]reg.GPVirtual) pixelStep {
		c := g.c
		k := g.ycbcrConstants()
		idx := g.dwordOrder()
		return pixelStep{func() {
			var out [3][2]reg.VecVirtual // r, g, b of pixels 0-7 and 8-15
			for h := range 2 {
				rgb := g.ycbcr(r, k, h)
				for ch := range rgb {
					out[ch][h] = rgb[ch]
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
	// ycbcr's values clamped to [0, 255] in their 32-bit lanes, then
	// converted as toFloat32 converts: no bytes in between.
	"ycbcr422ToFloat32": func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.ycbcr422(r) },
	"ycbcr420ToFloat32": func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.ycbcr420(r) },
	"ycbcrToFloat32": func(g *Generator, r map[string]reg.GPVirtual) pixelStep {
		c := g.c
		k := g.ycbcrConstants()
		k["255"] = g.dwords(255)
		var scale, bias [3]reg.VecVirtual
		for ch := range 3 {
			scale[ch], bias[ch] = c.YMM(), c.YMM()
			c.VBROADCASTSS(at(r["scale"], 4*ch), scale[ch])
			c.VBROADCASTSS(at(r["bias"], 4*ch), bias[ch])
		}
		zero := c.YMM()
		c.VPXOR(zero, zero, zero)
		return pixelStep{func() {
			for h := range 2 {
				for ch, v := range g.ycbcr(r, k, h) {
					c.VPMAXSD(zero, v, v)
					c.VPMINSD(k["255"], v, v)
					c.VCVTDQ2PS(v, v)
					c.VMULPS(scale[ch], v, v)
					c.VADDPS(bias[ch], v, v)
					c.VMOVUPS(v, at(r[[]string{"red", "green", "blue"}[ch]], 32*h))
				}
			}
		}, map[string]int{"y": 16, "cb": 16, "cr": 16, "red": 64, "green": 64, "blue": 64}}
	},
}

// ycbcr422 is ycbcr422ToFloat32's body: each chroma sample's terms are
// computed once, in 8 lanes, and VPERMD gives each to its two pixels;
// y*0x10101 is y's byte in the three low bytes of its lane (VPSHUFB).
func (g *Generator) ycbcr422(r map[string]reg.GPVirtual) pixelStep {
	c := g.c
	k := g.ycbcrConstants()
	k["255"] = g.dwords(255)
	var ctl [32]byte
	for i := range ctl {
		ctl[i] = byte(i &^ 3)
		if i%4 == 3 {
			ctl[i] = 0x80
		}
	}
	k["y3"] = g.constant(ctl[:])
	var scale, bias [3]reg.VecVirtual
	for ch := range 3 {
		scale[ch], bias[ch] = c.YMM(), c.YMM()
		c.VBROADCASTSS(at(r["scale"], 4*ch), scale[ch])
		c.VBROADCASTSS(at(r["bias"], 4*ch), bias[ch])
	}
	zero := c.YMM()
	c.VPXOR(zero, zero, zero)
	var pairs [2]reg.VecVirtual // the VPERMD indexes of pixels 0-7 and 8-15
	for h := range pairs {
		var b [32]byte
		for i := range 8 {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(4*h+i/2))
		}
		pairs[h] = c.YMM()
		c.VMOVDQU(g.constant(b[:]), pairs[h])
	}
	return pixelStep{func() {
		cb, cr := c.YMM(), c.YMM()
		c.VPMOVZXBD(at(r["cb"], 0), cb)
		c.VPSUBD(k["128"], cb, cb)
		c.VPMOVZXBD(at(r["cr"], 0), cr)
		c.VPSUBD(k["128"], cr, cr)
		terms := [3]reg.VecVirtual{c.YMM(), c.YMM(), c.YMM()}
		c.VPMULLD(k["rcr"], cr, terms[0])
		c.VPMULLD(k["gcb"], cb, terms[1])
		c.VPMULLD(k["gcr"], cr, cr)
		c.VPADDD(cr, terms[1], terms[1])
		c.VPMULLD(k["bcb"], cb, terms[2])
		for h := range 2 {
			y := c.YMM()
			c.VPMOVZXBD(at(r["y"], 8*h), y)
			c.VPSHUFB(k["y3"], y, y)
			for ch, t := range terms {
				v := c.YMM()
				c.VPERMD(t, pairs[h], v)
				c.VPADDD(y, v, v)
				c.VPSRAD(operand.U8(16), v, v)
				c.VPMAXSD(zero, v, v)
				c.VPMINSD(k["255"], v, v)
				c.VCVTDQ2PS(v, v)
				c.VMULPS(scale[ch], v, v)
				c.VADDPS(bias[ch], v, v)
				c.VMOVUPS(v, at(r[[]string{"red", "green", "blue"}[ch]], 32*h))
			}
		}
	}, map[string]int{"y": 16, "cb": 8, "cr": 8, "red": 64, "green": 64, "blue": 64}}
}

// ycbcr420 is ycbcr420ToFloat32's body: ycbcr422's, each pair of pixels'
// terms given to both rows. Zero is read from memory: the body takes all
// sixteen registers else.
func (g *Generator) ycbcr420(r map[string]reg.GPVirtual) pixelStep {
	c := g.c
	k := g.ycbcrConstants()
	k["255"], k["0"] = g.dwords(255), g.dwords(0)
	var ctl [32]byte
	for i := range ctl {
		ctl[i] = byte(i &^ 3)
		if i%4 == 3 {
			ctl[i] = 0x80
		}
	}
	k["y3"] = g.constant(ctl[:])
	var scale, bias [3]reg.VecVirtual
	for ch := range 3 {
		scale[ch], bias[ch] = c.YMM(), c.YMM()
		c.VBROADCASTSS(at(r["scale"], 4*ch), scale[ch])
		c.VBROADCASTSS(at(r["bias"], 4*ch), bias[ch])
	}
	var pairs [2]reg.VecVirtual
	for h := range pairs {
		var b [32]byte
		for i := range 8 {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(4*h+i/2))
		}
		pairs[h] = c.YMM()
		c.VMOVDQU(g.constant(b[:]), pairs[h])
	}
	rows := [2]func(name string, disp int) operand.Mem{
		func(name string, disp int) operand.Mem { return at(r[name], disp) },
		func(name string, disp int) operand.Mem {
			step := r["below"]
			if name == "y" {
				step = r["yStride"]
			}
			return operand.Mem{Base: r[name], Index: step, Scale: 1, Disp: disp}
		},
	}
	return pixelStep{func() {
		cb, cr := c.YMM(), c.YMM()
		c.VPMOVZXBD(at(r["cb"], 0), cb)
		c.VPSUBD(k["128"], cb, cb)
		c.VPMOVZXBD(at(r["cr"], 0), cr)
		c.VPSUBD(k["128"], cr, cr)
		terms := [3]reg.VecVirtual{c.YMM(), c.YMM(), c.YMM()}
		c.VPMULLD(k["rcr"], cr, terms[0])
		c.VPMULLD(k["gcb"], cb, terms[1])
		c.VPMULLD(k["gcr"], cr, cr)
		c.VPADDD(cr, terms[1], terms[1])
		c.VPMULLD(k["bcb"], cb, terms[2])
		for h := range 2 {
			var d [3]reg.VecVirtual
			for ch, t := range terms {
				d[ch] = c.YMM()
				c.VPERMD(t, pairs[h], d[ch])
			}
			for _, row := range rows {
				y := c.YMM()
				c.VPMOVZXBD(row("y", 8*h), y)
				c.VPSHUFB(k["y3"], y, y)
				for ch, name := range []string{"red", "green", "blue"} {
					v := c.YMM()
					c.VPADDD(y, d[ch], v)
					c.VPSRAD(operand.U8(16), v, v)
					c.VPMAXSD(k["0"], v, v)
					c.VPMINSD(k["255"], v, v)
					c.VCVTDQ2PS(v, v)
					c.VMULPS(scale[ch], v, v)
					c.VADDPS(bias[ch], v, v)
					c.VMOVUPS(v, row(name, 32*h))
				}
			}
		}
	}, map[string]int{"y": 16, "cb": 8, "cr": 8, "red": 64, "green": 64, "blue": 64}}
}

// ycbcrConstants are the multipliers and offset of image/color's
// YCbCrToRGB, each in 8 dwords.
func (g *Generator) ycbcrConstants() map[string]operand.Mem {
	k := map[string]operand.Mem{}
	for _, v := range []struct {
		name string
		v    int32
	}{{"y", 0x10101}, {"128", 128}, {"rcr", 91881}, {"gcb", -22554}, {"gcr", -46802}, {"bcb", 116130}} {
		k[v.name] = g.dwords(uint32(v.v))
	}
	return k
}

// ycbcr computes red, green and blue of pixels 8h to 8h+7 as image/color's
// YCbCrToRGB does before it clamps: the sums shifted right by 16.
func (g *Generator) ycbcr(r map[string]reg.GPVirtual, k map[string]operand.Mem, h int) [3]reg.VecVirtual {
	c := g.c
	y, cb, cr := c.YMM(), c.YMM(), c.YMM()
	c.VPMOVZXBD(at(r["y"], 8*h), y)
	c.VPMULLD(k["y"], y, y)
	c.VPMOVZXBD(at(r["cb"], 8*h), cb)
	c.VPSUBD(k["128"], cb, cb)
	c.VPMOVZXBD(at(r["cr"], 8*h), cr)
	c.VPSUBD(k["128"], cr, cr)
	red, green, blue, t := c.YMM(), c.YMM(), c.YMM(), c.YMM()
	c.VPMULLD(k["rcr"], cr, red)
	c.VPADDD(y, red, red)
	c.VPMULLD(k["gcb"], cb, green)
	c.VPMULLD(k["gcr"], cr, t)
	c.VPADDD(t, green, green)
	c.VPADDD(y, green, green)
	c.VPMULLD(k["bcb"], cb, blue)
	c.VPADDD(y, blue, blue)
	out := [3]reg.VecVirtual{red, green, blue}
	for _, v := range out {
		c.VPSRAD(operand.U8(16), v, v)
	}
	return out
}

// toFloat is toFloat32's and, with half, toFloat16's body: six registers
// of 8 values a block, each with its own third of the scale and bias
// pattern. VMULPS then VADDPS, never fused, as the Go code rounds.
func (g *Generator) toFloat(r map[string]reg.GPVirtual, half bool) pixelStep {
	c := g.c
	var scale, bias [3]reg.VecVirtual
	for i := range 3 {
		scale[i], bias[i] = c.YMM(), c.YMM()
		c.VMOVUPS(at(r["scale"], 32*i), scale[i])
		c.VMOVUPS(at(r["bias"], 32*i), bias[i])
	}
	out := 4
	if half {
		out = 2
	}
	return pixelStep{func() {
		for i := range 6 {
			v := c.YMM()
			c.VPMOVZXBD(at(r["src"], 8*i), v)
			c.VCVTDQ2PS(v, v)
			c.VMULPS(scale[i%3], v, v)
			c.VADDPS(bias[i%3], v, v)
			if half {
				c.VCVTPS2PH(operand.U8(0), v, at(r["dst"], 16*i)) // 0: round to nearest even
			} else {
				c.VMOVUPS(v, at(r["dst"], 32*i))
			}
		}
	}, map[string]int{"src": 48, "dst": 48 * out}}
}

// pixelBodies512 are the AVX-512 kernels' bodies: 16 values a register,
// as the AVX2 bodies compute them.
var pixelBodies512 = map[string]func(g *Generator, r map[string]reg.GPVirtual) pixelStep{
	"toFloat16": func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.toFloat16512(r) },
	"ycbcrToFloat32": func(g *Generator, r map[string]reg.GPVirtual) pixelStep {
		c := g.c
		k, scale, bias, zero := g.ycbcrSetup512(r)
		return pixelStep{func() {
			y, cb, cr := c.ZMM(), c.ZMM(), c.ZMM()
			c.VPMOVZXBD(at(r["y"], 0), y)
			c.VPMULLD(k["y"], y, y)
			c.VPMOVZXBD(at(r["cb"], 0), cb)
			c.VPSUBD(k["128"], cb, cb)
			c.VPMOVZXBD(at(r["cr"], 0), cr)
			c.VPSUBD(k["128"], cr, cr)
			terms := [3]reg.VecVirtual{c.ZMM(), c.ZMM(), c.ZMM()}
			c.VPMULLD(k["rcr"], cr, terms[0])
			c.VPMULLD(k["gcb"], cb, terms[1])
			c.VPMULLD(k["gcr"], cr, cr)
			c.VPADDD(cr, terms[1], terms[1])
			c.VPMULLD(k["bcb"], cb, terms[2])
			for ch, v := range terms {
				c.VPADDD(y, v, v)
				g.clampScale512(v, k, zero, scale[ch], bias[ch], at(r[[]string{"red", "green", "blue"}[ch]], 0))
			}
		}, map[string]int{"y": 16, "cb": 16, "cr": 16, "red": 64, "green": 64, "blue": 64}}
	},
	// As the AVX2 bodies: the terms of 8 chroma samples in a 256-bit
	// register, VPERMD giving each to its two pixels' lanes, in one row
	// or two.
	"ycbcr422ToFloat32": func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.ycbcrPairs512(r, 1) },
	"ycbcr420ToFloat32": func(g *Generator, r map[string]reg.GPVirtual) pixelStep { return g.ycbcrPairs512(r, 2) },
}

// ycbcrPairs512 is the AVX-512 body of ycbcr422ToFloat32 (rows 1) and
// ycbcr420ToFloat32 (rows 2).
func (g *Generator) ycbcrPairs512(r map[string]reg.GPVirtual, rows int) pixelStep {
	c := g.c
	k, scale, bias, zero := g.ycbcrSetup512(r)
	var b [64]byte
	for i := range 16 {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(i/2))
	}
	pairs := c.ZMM()
	c.VMOVDQU32(g.constant(b[:]), pairs)
	var ctl [64]byte
	for i := range ctl {
		ctl[i] = byte(i % 16 &^ 3)
		if i%4 == 3 {
			ctl[i] = 0x80
		}
	}
	y3 := c.ZMM()
	c.VMOVDQU32(g.constant(ctl[:]), y3)
	mem := func(row int, name string) operand.Mem {
		if row == 0 {
			return at(r[name], 0)
		}
		step := r["below"]
		if name == "y" {
			step = r["yStride"]
		}
		return operand.Mem{Base: r[name], Index: step, Scale: 1}
	}
	return pixelStep{func() {
		cb, cr := c.YMM(), c.YMM()
		c.VPMOVZXBD(at(r["cb"], 0), cb)
		c.VPSUBD(k["128"].AsY(), cb, cb)
		c.VPMOVZXBD(at(r["cr"], 0), cr)
		c.VPSUBD(k["128"].AsY(), cr, cr)
		terms := [3]reg.VecVirtual{c.YMM(), c.YMM(), c.YMM()}
		c.VPMULLD(k["rcr"].AsY(), cr, terms[0])
		c.VPMULLD(k["gcb"].AsY(), cb, terms[1])
		c.VPMULLD(k["gcr"].AsY(), cr, cr)
		c.VPADDD(cr, terms[1], terms[1])
		c.VPMULLD(k["bcb"].AsY(), cb, terms[2])
		var d [3]reg.VecVirtual
		for ch, t := range terms {
			d[ch] = c.ZMM()
			c.VPERMD(t.AsZ(), pairs, d[ch])
		}
		for row := range rows {
			y := c.ZMM()
			c.VPMOVZXBD(mem(row, "y"), y)
			c.VPSHUFB(y3, y, y)
			for ch, name := range []string{"red", "green", "blue"} {
				v := c.ZMM()
				c.VPADDD(y, d[ch], v)
				g.clampScale512(v, k, zero, scale[ch], bias[ch], mem(row, name))
			}
		}
	}, map[string]int{"y": 16, "cb": 8, "cr": 8, "red": 64, "green": 64, "blue": 64}}
}

// ycbcrSetup512 loads the YCbCr kernels' constants into registers: the
// multipliers, 128 and 255, each channel's scale and bias, and zero.
func (g *Generator) ycbcrSetup512(r map[string]reg.GPVirtual) (k map[string]reg.VecVirtual, scale, bias [3]reg.VecVirtual, zero reg.VecVirtual) {
	c := g.c
	k = map[string]reg.VecVirtual{}
	for _, v := range []struct {
		name string
		v    int32
	}{{"y", 0x10101}, {"128", 128}, {"rcr", 91881}, {"gcb", -22554}, {"gcr", -46802}, {"bcb", 116130}, {"255", 255}} {
		k[v.name] = c.ZMM()
		c.VPBROADCASTD(g.dwords(uint32(v.v)), k[v.name])
	}
	for ch := range 3 {
		scale[ch], bias[ch] = c.ZMM(), c.ZMM()
		c.VBROADCASTSS(at(r["scale"], 4*ch), scale[ch])
		c.VBROADCASTSS(at(r["bias"], 4*ch), bias[ch])
	}
	zero = c.ZMM()
	c.VPXORD(zero, zero, zero)
	return k, scale, bias, zero
}

// clampScale512 finishes a channel of 16 pixels: the sum shifted right by
// 16 and clamped to [0, 255], then scaled as toFloat32 does, and stored.
func (g *Generator) clampScale512(v reg.VecVirtual, k map[string]reg.VecVirtual, zero, scale, bias reg.VecVirtual, dst operand.Mem) {
	c := g.c
	c.VPSRAD(operand.U8(16), v, v)
	c.VPMAXSD(zero, v, v)
	c.VPMINSD(k["255"], v, v)
	c.VCVTDQ2PS(v, v)
	c.VMULPS(scale, v, v)
	c.VADDPS(bias, v, v)
	c.VMOVUPS(v, dst)
}

// toFloat16512 is the AVX-512 toFloat16: three registers of 16 values a
// block.
func (g *Generator) toFloat16512(r map[string]reg.GPVirtual) pixelStep {
	c := g.c
	var scale, bias [3]reg.VecVirtual
	for i := range 3 {
		scale[i], bias[i] = c.ZMM(), c.ZMM()
		c.VMOVUPS(at(r["scale"], 64*i), scale[i])
		c.VMOVUPS(at(r["bias"], 64*i), bias[i])
	}
	return pixelStep{func() {
		for i := range 3 {
			v := c.ZMM()
			c.VPMOVZXBD(at(r["src"], 16*i), v)
			c.VCVTDQ2PS(v, v)
			c.VMULPS(scale[i], v, v)
			c.VADDPS(bias[i], v, v)
			c.VCVTPS2PH(operand.U8(0), v, at(r["dst"], 32*i))
		}
	}, map[string]int{"src": 48, "dst": 96}}
}
