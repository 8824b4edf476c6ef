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

// Pixel adds one of imagetensor's pixel kernels, in AVX2, to the file.
// Each is one loop over n blocks, n > 0 or nothing done.
func (g *Generator) Pixel(p table.Pixel, isa table.ISA) error {
	body := pixelBodies[p.Name]
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
	// In 32-bit lanes, exactly image/color's arithmetic: the sums shifted
	// right by 16 fit 16 bits, and the two saturating packs clamp them to
	// [0, 255] as YCbCrToRGB does.
	"ycbcrToRGB": func(g *Generator, r map[string]reg.GPVirtual) pixelStep {
		c := g.c
		k := map[string]operand.Mem{}
		for _, v := range []struct {
			name string
			v    int32
		}{{"y", 0x10101}, {"128", 128}, {"rcr", 91881}, {"gcb", -22554}, {"gcr", -46802}, {"bcb", 116130}} {
			k[v.name] = g.dwords(uint32(v.v))
		}
		idx := g.dwordOrder()
		return pixelStep{func() {
			var out [3][2]reg.VecVirtual // r, g, b of pixels 0-7 and 8-15
			for h := range 2 {
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
				for ch, v := range []reg.VecVirtual{red, green, blue} {
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
