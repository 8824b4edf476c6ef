package arm64

import (
	"fmt"
	"math"

	"github.com/blockshuffle/blockshuffle/asmgen/table"
)

// Pixel adds one of imagetensor's pixel kernels, in NEON, to the file.
// Each is one loop over n blocks, n > 0 or nothing done.
func (g *Generator) Pixel(p table.Pixel, isa table.ISA) error {
	body := pixelBodies[p.Name]
	if body == nil {
		return fmt.Errorf("%s: arm64 has no pixel kernel %s", isa, p.Name)
	}
	name := p.Name + string(isa)
	g.function(name, p.Doc, p.Signature)
	regs := map[string]string{}
	for i, param := range p.Names() {
		regs[param] = fmt.Sprintf("R%d", i)
	}
	g.params(p.Signature, regs)
	done, loop := g.label("done"), g.label("block")
	g.ins("CBZ %s, %s", regs["n"], done)
	step := body(g, regs)
	g.put(loop)
	step()
	g.ins("SUBS $1, %[1]s, %[1]s", regs["n"])
	g.ins("BNE %s", loop)
	g.put(done)
	g.ins("RET")
	return nil
}

// The vector instructions Go's assembler lacks, encoded (the .4S forms,
// and the narrowings' lower and upper halves), each as llvm-mc encodes it.
func (g *Generator) word(name string, op uint32, d, n, m int) {
	g.ins("WORD $0x%08x // %s V%d, V%d, V%d", op|uint32(m)<<16|uint32(n)<<5|uint32(d), name, d, n, m)
}
func (g *Generator) fadd(d, n, m int)   { g.word("FADD.4S", 0x4e20d400, d, n, m) }
func (g *Generator) fmul(d, n, m int)   { g.word("FMUL.4S", 0x6e20dc00, d, n, m) }
func (g *Generator) fmaxnm(d, n, m int) { g.word("FMAXNM.4S", 0x4e20c400, d, n, m) }
func (g *Generator) fminnm(d, n, m int) { g.word("FMINNM.4S", 0x4ea0c400, d, n, m) }
func (g *Generator) mul(d, n, m int)    { g.word("MUL.4S", 0x4ea09c00, d, n, m) }
func (g *Generator) ucvtf(d, n int)     { g.word("UCVTF.4S", 0x6e21d800, d, n, 0) }
func (g *Generator) fcvtns(d, n int)    { g.word("FCVTNS.4S", 0x4e21a800, d, n, 0) }

// narrow halves each element of n into d's lower half, or with upper its
// upper half: FCVTN (4S to 4H), SQXTN (4S to 4H), SQXTUN (4S to 4H) and
// SQXTUN8 (8H to 8B).
func (g *Generator) narrow(name string, d, n int, upper bool) {
	ops := map[string]uint32{"FCVTN": 0x0e216800, "SQXTN": 0x0e614800, "SQXTUN": 0x2e612800, "SQXTUN8": 0x2e212800}
	op := ops[name]
	if upper {
		op |= 1 << 30
		name += "2"
	}
	g.word(name, op, d, n, 0)
}

// sshr16 shifts each 32-bit element of n right by 16, arithmetically.
func (g *Generator) sshr16(d, n int) {
	g.ins("WORD $0x%08x // SSHR.4S V%d, V%d, #16", 0x4f300400|uint32(n)<<5|uint32(d), d, n)
}

// splat fills vector d with the 32-bit value v in each element.
func (g *Generator) splat(d int, v uint32, scratch string) {
	g.ins("MOVW $%d, %s", v, scratch)
	g.ins("VDUP %s, V%d.S4", scratch, d)
}

// widen zero-extends the 16 bytes of vector b into the 32-bit elements of
// vectors d, d+1, d+2 and d+3, using t and t+1.
func (g *Generator) widen(d, b, t int) {
	g.ins("VUXTL V%d.B8, V%d.H8", b, t)
	g.ins("VUXTL2 V%d.B16, V%d.H8", b, t+1)
	g.ins("VUXTL V%d.H4, V%d.S4", t, d)
	g.ins("VUXTL2 V%d.H8, V%d.S4", t, d+1)
	g.ins("VUXTL V%d.H4, V%d.S4", t+1, d+2)
	g.ins("VUXTL2 V%d.H8, V%d.S4", t+1, d+3)
}

// pixelBodies set up a kernel and return its loop body, which moves one
// block and advances the pointers.
var pixelBodies = map[string]func(g *Generator, r map[string]string) func(){
	"splitRGBA": func(g *Generator, r map[string]string) func() {
		return func() {
			g.ins("VLD4.P 64(%s), [V0.B16, V1.B16, V2.B16, V3.B16]", r["src"])
			for i, ch := range []string{"red", "green", "blue"} {
				g.ins("VST1.P [V%d.B16], 16(%s)", i, r[ch])
			}
		}
	},
	// Structure loads and stores, red in V2: with bgr, V0 to V2 hold
	// blue, green and red for VST3.
	"packRGB": func(g *Generator, r map[string]string) func() {
		g.ins("MOVD $2, R5")
		g.ins("CBZ %s, 2(PC)", r["bgr"])
		g.ins("MOVD $0, R5")
		return func() {
			g.ins("VLD4.P 64(%s), [V2.B16, V3.B16, V4.B16, V5.B16]", r["src"])
			g.ins("VORR V4.B16, V4.B16, V0.B16")
			g.ins("VORR V3.B16, V3.B16, V1.B16")
			rgb, next := g.label("rgb"), g.label("stored")
			g.ins("CBNZ R5, %s", rgb)
			g.ins("VST3.P [V0.B16, V1.B16, V2.B16], 48(%s)", r["dst"])
			g.ins("B %s", next)
			g.put(rgb)
			g.ins("VST3.P [V2.B16, V3.B16, V4.B16], 48(%s)", r["dst"])
			g.put(next)
		}
	},
	"joinRGBA": func(g *Generator, r map[string]string) func() {
		g.ins("VMOVI $255, V3.B16")
		return func() {
			for i, ch := range []string{"red", "green", "blue"} {
				g.ins("VLD1.P 16(%s), [V%d.B16]", r[ch], i)
			}
			g.ins("VST4.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(%s)", r["dst"])
		}
	},
	"doubleBytes": func(g *Generator, r map[string]string) func() {
		return func() {
			g.ins("VLD1.P 16(%s), [V0.B16]", r["src"])
			g.ins("VORR V0.B16, V0.B16, V1.B16")
			g.ins("VST2.P [V0.B16, V1.B16], 32(%s)", r["dst"])
		}
	},
	"toFloat32": func(g *Generator, r map[string]string) func() { return g.toFloat(r, false) },
	"toFloat16": func(g *Generator, r map[string]string) func() { return g.toFloat(r, true) },
	// FMAXNM takes the number where one operand is NaN: zero.
	"toBytes": func(g *Generator, r map[string]string) func() {
		g.ins("VLD1R (%s), [V20.S4]", r["scale"])
		g.ins("VLD1R (%s), [V21.S4]", r["bias"])
		g.ins("VEOR V22.B16, V22.B16, V22.B16")
		g.splat(23, math.Float32bits(255), "R5")
		return func() {
			g.ins("VLD1.P 64(%s), [V0.S4, V1.S4, V2.S4, V3.S4]", r["src"])
			g.ins("VLD1.P 64(%s), [V4.S4, V5.S4, V6.S4, V7.S4]", r["src"])
			for v := range 8 {
				g.fmul(v, v, 20)
				g.fadd(v, v, 21)
				g.fmaxnm(v, v, 22)
				g.fminnm(v, v, 23)
				g.fcvtns(v, v)
			}
			for h := range 4 { // pairs of 4 values to 8 halfwords
				g.narrow("SQXTUN", 8+h, 2*h, false)
				g.narrow("SQXTUN", 8+h, 2*h+1, true)
			}
			for h := range 2 {
				g.narrow("SQXTUN8", 12+h, 8+2*h, false)
				g.narrow("SQXTUN8", 12+h, 8+2*h+1, true)
			}
			g.ins("VST1.P [V12.B16, V13.B16], 32(%s)", r["dst"])
		}
	},
	// In 32-bit lanes, exactly image/color's arithmetic (ycbcr): the
	// sums shifted right by 16 fit 16 bits, and the two saturating
	// narrowings clamp them to [0, 255] as YCbCrToRGB does.
	"ycbcrToRGB": func(g *Generator, r map[string]string) func() {
		g.ycbcrConstants("R9")
		return func() {
			g.ycbcrLoad(r)
			for ch, out := range []string{"red", "green", "blue"} {
				g.ycbcr(ch)
				g.narrow("SQXTN", 0, 16, false)
				g.narrow("SQXTN", 0, 17, true)
				g.narrow("SQXTN", 1, 18, false)
				g.narrow("SQXTN", 1, 19, true)
				g.narrow("SQXTUN8", 2, 0, false)
				g.narrow("SQXTUN8", 2, 1, true)
				g.ins("VST1.P [V2.B16], 16(%s)", r[out])
			}
		}
	},
	"ycbcr422ToFloat32": func(g *Generator, r map[string]string) func() { return g.ycbcrPairs(r, 1) },
	"ycbcr420ToFloat32": func(g *Generator, r map[string]string) func() { return g.ycbcrPairs(r, 2) },
	// ycbcr's values clamped to [0, 255] in their 32-bit lanes (V27
	// zero, V28 255), then converted as toFloat32 converts (finish): no
	// bytes in between. Each channel's scale and bias are loaded in turn
	// (V0, V1).
	"ycbcrToFloat32": func(g *Generator, r map[string]string) func() {
		g.ycbcrConstants("R10")
		g.ins("VEOR V27.B16, V27.B16, V27.B16")
		g.splat(28, 255, "R10")
		return func() {
			g.ycbcrLoad(r)
			for ch, out := range []string{"red", "green", "blue"} {
				g.ycbcr(ch)
				g.channelScale(r, ch, 0, 1, "R10")
				for q := 16; q < 20; q++ {
					g.finish(q, 27, 28, 0, 1)
				}
				g.ins("VST1.P [V16.S4, V17.S4, V18.S4, V19.S4], 64(%s)", r[out])
			}
		}
	},
}

// ycbcrPairs is the body of ycbcr422ToFloat32 (rows 1) and
// ycbcr420ToFloat32 (rows 2): each chroma sample's terms are computed
// once, 4 a vector (red's in V12-V13, green's V10-V11, blue's V14-V15),
// and VZIP1 and VZIP2 give each to its two pixels (V16-V19), in each row.
// The rows' y*0x10101 are in V4-V7 and V0-V3, constants in V20-V25 and
// V8 (0) and V9 (255), values in V26-V29, a channel's scale and bias in
// V30 and V31.
func (g *Generator) ycbcrPairs(r map[string]string, rows int) func() {
	g.ycbcrConstants("R11")
	g.ins("VEOR V8.B16, V8.B16, V8.B16")
	g.splat(9, 255, "R11")
	return func() {
		g.ins("VLD1.P 8(%s), [V26.B8]", r["cb"])
		g.ins("VLD1.P 8(%s), [V27.B8]", r["cr"])
		for i, b := range []int{26, 27} { // cb in V16-V17, cr in V18-V19, less 128
			g.ins("VUXTL V%d.B8, V28.H8", b)
			g.ins("VUXTL V28.H4, V%d.S4", 16+2*i)
			g.ins("VUXTL2 V28.H8, V%d.S4", 17+2*i)
		}
		for v := 16; v < 20; v++ {
			g.ins("VSUB V21.S4, V%[1]d.S4, V%[1]d.S4", v)
		}
		for q := range 2 {
			cb, cr := 16+q, 18+q
			g.mul(10+q, cb, 23)
			g.mul(29, cr, 24)
			g.ins("VADD V29.S4, V%[1]d.S4, V%[1]d.S4", 10+q)
			g.mul(14+q, cb, 25)
			g.mul(12+q, cr, 22)
		}
		ys := []int{4, 0}
		if rows == 2 {
			g.ins("ADD %s, %s, R11", r["yStride"], r["y"])
			g.ins("VLD1 (R11), [V26.B16]")
			g.widen(0, 26, 28)
		}
		g.ins("VLD1.P 16(%s), [V26.B16]", r["y"])
		g.widen(4, 26, 28)
		for row := range rows {
			for q := range 4 {
				g.mul(ys[row]+q, ys[row]+q, 20)
			}
		}
		for ch, out := range []string{"red", "green", "blue"} {
			t := []int{12, 10, 14}[ch]
			for q := range 4 {
				op := "VZIP1"
				if q%2 == 1 {
					op = "VZIP2"
				}
				g.ins("%s V%d.S4, V%d.S4, V%d.S4", op, t+q/2, t+q/2, 16+q)
			}
			g.channelScale(r, ch, 30, 31, "R11")
			if rows == 2 {
				g.ins("ADD %s, %s, R12", r["below"], r[out])
			}
			for row := range rows {
				for q := range 4 {
					v := 26 + q
					g.ins("VADD V%d.S4, V%d.S4, V%d.S4", ys[row]+q, 16+q, v)
					g.sshr16(v, v)
					g.finish(v, 8, 9, 30, 31)
				}
				if row == 0 {
					g.ins("VST1.P [V26.S4, V27.S4, V28.S4, V29.S4], 64(%s)", r[out])
				} else {
					g.ins("VST1 [V26.S4, V27.S4, V28.S4, V29.S4], (R12)")
				}
			}
		}
	}
}

// channelScale loads channel ch's scale and bias, one float32 each, into
// every element of vectors scale and bias, using scratch.
func (g *Generator) channelScale(r map[string]string, ch, scale, bias int, scratch string) {
	g.ins("ADD $%d, %s, %s", 4*ch, r["scale"], scratch)
	g.ins("VLD1R (%s), [V%d.S4]", scratch, scale)
	g.ins("ADD $%d, %s, %s", 4*ch, r["bias"], scratch)
	g.ins("VLD1R (%s), [V%d.S4]", scratch, bias)
}

// finish ends vector v of a channel's shifted sums: clamped to [0, 255]
// (vectors zero and top hold 0 and 255), converted, then scaled as
// toFloat32 does, FMUL then FADD, never fused.
func (g *Generator) finish(v, zero, top, scale, bias int) {
	g.word("SMAX.4S", 0x4ea06400, v, v, zero)
	g.word("SMIN.4S", 0x4ea06c00, v, v, top)
	g.ucvtf(v, v)
	g.fmul(v, v, scale)
	g.fadd(v, v, bias)
}

// ycbcrConstants puts image/color's multipliers and offset in V20-V25,
// using scratch.
func (g *Generator) ycbcrConstants(scratch string) {
	for i, v := range []int32{0x10101, 128, 91881, -22554, -46802, 116130} {
		g.splat(20+i, uint32(v), scratch)
	}
}

// ycbcrLoad loads 16 pixels: y*0x10101 in V4-V7, cb-128 in V8-V11 and
// cr-128 in V12-V15, 4 pixels a vector.
func (g *Generator) ycbcrLoad(r map[string]string) {
	g.ins("VLD1.P 16(%s), [V0.B16]", r["y"])
	g.ins("VLD1.P 16(%s), [V1.B16]", r["cb"])
	g.ins("VLD1.P 16(%s), [V2.B16]", r["cr"])
	g.widen(4, 0, 16)
	g.widen(8, 1, 16)
	g.widen(12, 2, 16)
	for q := range 4 {
		y, cb, cr := 4+q, 8+q, 12+q
		g.mul(y, y, 20)
		g.ins("VSUB V21.S4, V%[1]d.S4, V%[1]d.S4", cb)
		g.ins("VSUB V21.S4, V%[1]d.S4, V%[1]d.S4", cr)
	}
}

// ycbcr computes channel ch (red, green, blue) of the loaded pixels as
// image/color's YCbCrToRGB does before it clamps, the sums shifted right
// by 16, in V16-V19.
func (g *Generator) ycbcr(ch int) {
	for q := range 4 {
		y, cb, cr, v := 4+q, 8+q, 12+q, 16+q
		switch ch {
		case 0:
			g.mul(v, cr, 22)
		case 1:
			g.mul(v, cb, 23)
			g.mul(26, cr, 24)
			g.ins("VADD V26.S4, V%[1]d.S4, V%[1]d.S4", v)
		case 2:
			g.mul(v, cb, 25)
		}
		g.ins("VADD V%d.S4, V%[2]d.S4, V%[2]d.S4", y, v)
		g.sshr16(v, v)
	}
}

// toFloat is toFloat32's and, with half, toFloat16's body: 16 bytes
// widened to four vectors at a time, each with its own third of the scale
// and bias pattern (V20-V22, V23-V25). FMUL then FADD, never fused, as
// the Go code rounds.
func (g *Generator) toFloat(r map[string]string, half bool) func() {
	g.ins("VLD1 (%s), [V20.S4, V21.S4, V22.S4]", r["scale"])
	g.ins("VLD1 (%s), [V23.S4, V24.S4, V25.S4]", r["bias"])
	return func() {
		for q := range 3 {
			g.ins("VLD1.P 16(%s), [V0.B16]", r["src"])
			g.widen(4, 0, 1)
			for i := range 4 {
				v, k := 4+i, (4*q+i)%3
				g.ucvtf(v, v)
				g.fmul(v, v, 20+k)
				g.fadd(v, v, 23+k)
			}
			if half {
				g.narrow("FCVTN", 8, 4, false)
				g.narrow("FCVTN", 8, 5, true)
				g.narrow("FCVTN", 9, 6, false)
				g.narrow("FCVTN", 9, 7, true)
				g.ins("VST1.P [V8.H8, V9.H8], 32(%s)", r["dst"])
			} else {
				g.ins("VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(%s)", r["dst"])
			}
		}
	}
}
