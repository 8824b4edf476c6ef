package imagetensor

import (
	"unsafe"

	"github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/imagetensor/internal/kernels"
	"github.com/x448/float16"
)

// kit is the pixel kernels of the tier blockshuffle runs (nil on generic,
// where the Go rows of from.go and to.go run instead). With a kit, a row
// moves in chunks through a few rows of bytes in the first-level cache,
// each pass a kernel over as many whole blocks as it has, Go the rest:
//
//	RGBA, NRGBA   splitRGBA (NCHW) or packRGB (NHWC), then a conversion
//	YCbCr         doubleBytes (chroma subsampled across by 2), ycbcrToRGB
//	the others    read in Go
//	to tensors    per channel toFloat32, toFloat16 or a copy (NCHW), or
//	              joinRGBA and packRGB, then one of them over the
//	              interleaved values (NHWC)
//	to images     toBytes per channel (float32 NCHW), then joinRGBA
//
// Every kernel computes exactly what the Go code does, so the results are
// the same bits on every tier.
var kit = kernels.For(blockshuffle.Tier())

// useKit makes later calls use k, and returns what restores the one
// before: for the tests, which run every tier this machine has.
func useKit(k *kernels.Kit) (restore func()) {
	old := kit
	kit = k
	return func() { kit = old }
}

// patterns are a converter's scales and biases for the kernels: of all
// three channels interleaved (NHWC), then of each channel alone.
type patterns [4]kernels.Pattern

func (a *affine) patterns() (p patterns) {
	p[0] = *kernels.Interleaved(a.scale, a.bias)
	for c := range 3 {
		s, b := a.scale[c], a.bias[c]
		p[c+1] = *kernels.Interleaved([3]float32{s, s, s}, [3]float32{b, b, b})
	}
	return p
}

// convert writes the byte values v to out as elements, those of tensor
// channel ch, or with ch = -1 of the three channels interleaved.
func (c *converter[E]) convert(out []E, v []byte, ch int) {
	done := 0
	switch o := any(out).(type) {
	case []float32:
		done = c.kit.ToFloat32(o, v, &c.pats[ch+1])
	case []float16.Float16:
		done = c.kit.ToFloat16(unsafe.Slice((*uint16)(unsafe.SliceData(o)), len(o)), v, &c.pats[ch+1])
	case []uint8:
		done = copy(o, v)
	}
	if ch < 0 {
		for i := done; i < len(v); i++ {
			out[i] = c.table[i%3][v[i]]
		}
		return
	}
	t := &c.table[ch]
	for i := done; i < len(v); i++ {
		out[i] = t[v[i]]
	}
}

// splitRGBA puts n pixels of row y of a 4-byte-a-pixel image, from column
// x0 on, in r.
func (c *converter[E]) splitRGBA(y, x0, n int, r *row) {
	p := &c.p
	s := p.pix[y*p.stride+4*x0:][:4*n]
	done := c.kit.SplitRGBA(r[0][:n], r[1][:n], r[2][:n], s)
	for i := done; i < n; i++ {
		r[0][i], r[1][i], r[2][i] = s[4*i], s[4*i+1], s[4*i+2]
	}
}

// packRGBA writes n pixels of row y of a 4-byte-a-pixel image, from column
// x0 on, to an NHWC tensor: three bytes a pixel, then their elements.
func (c *converter[E]) packRGBA(y, x0, n int) {
	p := &c.p
	s := p.pix[y*p.stride+4*x0:][:4*n]
	var buf [3 * chunk]byte
	c.packed(buf[:3*n], s, c.bgr)
	at := y*p.w + x0
	c.convert(c.dst[3*at:3*(at+n)], buf[:3*n], -1)
}

// packed writes the 4-byte pixels of s to dst as 3-byte ones, their first
// three bytes, reversed with bgr.
func (c *converter[E]) packed(dst, s []byte, bgr bool) {
	i0, i2 := 0, 2
	if bgr {
		i0, i2 = 2, 0
	}
	for i := c.kit.PackRGB(dst, s, bgr); i < len(dst)/3; i++ {
		dst[3*i], dst[3*i+1], dst[3*i+2] = s[4*i+i0], s[4*i+1], s[4*i+i2]
	}
}

// interleave writes the rows of bytes s0, s1 and s2, in the tensor's
// channel order, to out as NHWC elements.
func (c *converter[E]) interleave(out []E, s0, s1, s2 []byte) {
	n := len(s0)
	var rgba [4 * chunk]byte
	var rgb [3 * chunk]byte
	for i := c.kit.JoinRGBA(rgba[:4*n], s0, s1, s2); i < n; i++ {
		rgba[4*i], rgba[4*i+1], rgba[4*i+2] = s0[i], s1[i], s2[i]
	}
	c.packed(rgb[:3*n], rgba[:4*n], false)
	c.convert(out, rgb[:3*n], -1)
}

// ycbcr puts n pixels of row y of a YCbCr image, from column x0 on, in r
// as image/color's YCbCrToRGB converts them: the chroma samples first
// made one per pixel (doubleBytes where the image is subsampled across by
// 2 and the pixels lie right of the origin, where each sample serves an
// aligned pair), then ycbcrToRGB.
func (c *converter[E]) ycbcr(y, x0, n int, r *row) {
	p := &c.p
	ys := p.pix[y*p.stride+x0:][:n]
	c0 := half(p.min.X, p.cx)
	crow := (half(p.min.Y+y, p.cy) - half(p.min.Y, p.cy)) * p.cstride
	var cbFull, crFull [chunk + 16]byte
	cb, cr := cbFull[:n], crFull[:n]
	x := p.min.X + x0
	switch {
	case p.cx == 0:
		cb, cr = p.cb[crow+x-c0:][:n], p.cr[crow+x-c0:][:n]
	case p.cx == 1 && x >= 0:
		odd := x & 1
		from, m := crow+x>>1-c0, (n+odd+1)/2 // the samples the pixels use
		c.double(cbFull[:2*m], p.cb[from:][:m])
		c.double(crFull[:2*m], p.cr[from:][:m])
		cb, cr = cbFull[odd:][:n], crFull[odd:][:n]
	default:
		for i := range n {
			at := crow + half(x+i, p.cx) - c0
			cb[i], cr[i] = p.cb[at], p.cr[at]
		}
	}
	for i := c.kit.YCbCrToRGB(r[0][:n], r[1][:n], r[2][:n], ys, cb, cr); i < n; i++ {
		yy1 := int32(ys[i]) * 0x10101
		cb1, cr1 := int32(cb[i])-128, int32(cr[i])-128
		r[0][i], r[1][i], r[2][i] = clamp16(yy1+91881*cr1), clamp16(yy1-22554*cb1-46802*cr1), clamp16(yy1+116130*cb1)
	}
}

// double writes each sample twice to full.
func (c *converter[E]) double(full, samples []byte) {
	for i := c.kit.DoubleBytes(full, samples); i < len(samples); i++ {
		full[2*i], full[2*i+1] = samples[i], samples[i]
	}
}

// toBytes puts the bytes of the float32 values s of tensor channel ch in
// dst.
func (v *inverse[E]) toBytes(dst []byte, s []float32, ch int) {
	a := &v.a
	for i := v.kit.ToBytes(dst, s, a.unscale[ch], a.unbias[ch]); i < len(dst); i++ {
		dst[i] = a.toByte(ch, s[i])
	}
}

// joinRGBA writes n pixels from r to row y of a 4-byte-a-pixel image,
// from column x0 on, the fourth byte 255.
func (p *pixels) joinRGBA(k *kernels.Kit, y, x0, n int, r *row) {
	d := p.pix[y*p.stride+4*x0:][:4*n]
	for i := k.JoinRGBA(d, r[0][:n], r[1][:n], r[2][:n]); i < n; i++ {
		px := d[4*i : 4*i+4]
		px[0], px[1], px[2], px[3] = r[0][i], r[1][i], r[2][i], 255
	}
}
