package imagetensor

import (
	"image/color"
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
//	YCbCr         doubleBytes (chroma subsampled across by 2), then
//	              ycbcrToFloat32 (to float32 NCHW), or ycbcrToRGB
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
	i0, i2 := redBlue(bgr)
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
// as image/color's YCbCrToRGB converts them.
func (c *converter[E]) ycbcr(y, x0, n int, r *row) {
	var ch chroma
	ys, cb, cr := c.samples(y, x0, n, &ch)
	for i := c.kit.YCbCrToRGB(r[0][:n], r[1][:n], r[2][:n], ys, cb, cr); i < n; i++ {
		r[0][i], r[1][i], r[2][i] = color.YCbCrToRGB(ys[i], cb[i], cr[i])
	}
}

// ycbcrPlanes writes n pixels of rows y to y+rows-1 (rows 1, or 2 where
// both rows share their chroma samples), from column x0 on, of a YCbCr
// image to a float32 NCHW tensor: converted and scaled in one kernel,
// which where the chroma is subsampled across by 2 (4:2:0, 4:2:2) and
// the pixels lie right of the origin reads each sample once for its pair
// of pixels (and for both rows).
func (c *converter[E]) ycbcrPlanes(y, rows, x0, n int, dst []float32) {
	p := &c.p
	plane := p.h * p.w
	i0, i2 := redBlue(c.bgr) // the tensor channels of red and blue
	var out [2][3][]float32
	var ys [2][]byte
	for r := range rows {
		at := (y+r)*p.w + x0
		out[r] = [3][]float32{dst[i0*plane+at:][:n], dst[plane+at:][:n], dst[i2*plane+at:][:n]}
		ys[r] = p.pix[(y+r)*p.stride+x0:][:n]
	}
	a := &c.pats
	scale := [3]float32{a[i0+1].Scale[0], a[2].Scale[0], a[i2+1].Scale[0]}
	bias := [3]float32{a[i0+1].Bias[0], a[2].Bias[0], a[i2+1].Bias[0]}
	var lo, hi [2]int // the pixels of each row a kernel converted
	if x := p.min.X + x0; p.cx == 1 && x >= 0 {
		first := x & 1 // an odd first pixel shares its sample with the one before
		from, m := p.chromaAt(x0+first, y), (n-first)/2
		var pairs [2][3][]float32
		for r := range rows {
			pairs[r] = [3][]float32{out[r][0][first:], out[r][1][first:], out[r][2][first:]}
		}
		both := 0
		if rows == 2 {
			both = c.kit.YCbCr420ToFloat32(&pairs[0], &pairs[1], ys[0][first:], ys[1][first:], p.cb[from:][:m], p.cr[from:][:m], &scale, &bias)
		}
		for r := range rows {
			done := both
			if both == 0 { // each row on its own
				done = c.kit.YCbCr422ToFloat32(&pairs[r], ys[r][first:], p.cb[from:][:m], p.cr[from:][:m], &scale, &bias)
			}
			lo[r], hi[r] = first, first+done
		}
	} else {
		for r := range rows {
			var ch chroma
			_, cb, cr := c.samples(y+r, x0, n, &ch)
			lo[r], hi[r] = 0, c.kit.YCbCrToFloat32(&out[r], ys[r], cb, cr, &scale, &bias)
		}
	}
	for r := range rows {
		for _, span := range [2][2]int{{0, lo[r]}, {hi[r], n}} {
			for i := span[0]; i < span[1]; i++ {
				at := p.chromaAt(x0+i, y+r)
				var v [3]uint8
				v[0], v[1], v[2] = color.YCbCrToRGB(ys[r][i], p.cb[at], p.cr[at])
				for k := range 3 {
					out[r][k][i] = float32(float32(v[k])*scale[k]) + bias[k]
				}
			}
		}
	}
}

// chromaAt is the index in cb and cr of the sample of the pixel in column
// x and row y, both counted from the bounds' corner.
func (p *pixels) chromaAt(x, y int) int {
	return (half(p.min.Y+y, p.cy)-half(p.min.Y, p.cy))*p.cstride + half(p.min.X+x, p.cx) - half(p.min.X, p.cx)
}

// A chroma holds the chroma samples of a chunk's pixels, one a pixel.
type chroma struct{ cb, cr [chunk + 16]byte }

// samples returns the luma and chroma samples of n pixels of row y of a
// YCbCr image, from column x0 on, one each a pixel: the image's own
// chroma where it is not subsampled across; else made in ch, by
// doubleBytes where it is subsampled by 2 and the pixels lie right of
// the origin (each sample serves an aligned pair), else one by one.
func (c *converter[E]) samples(y, x0, n int, ch *chroma) (ys, cb, cr []byte) {
	p := &c.p
	ys = p.pix[y*p.stride+x0:][:n]
	from, x := p.chromaAt(x0, y), p.min.X+x0
	switch {
	case p.cx == 0:
		return ys, p.cb[from:][:n], p.cr[from:][:n]
	case p.cx == 1 && x >= 0:
		odd := x & 1
		m := (n + odd + 1) / 2 // the samples the pixels use
		c.double(ch.cb[:2*m], p.cb[from:][:m])
		c.double(ch.cr[:2*m], p.cr[from:][:m])
		return ys, ch.cb[odd:][:n], ch.cr[odd:][:n]
	}
	for i := range n {
		at := p.chromaAt(x0+i, y)
		ch.cb[i], ch.cr[i] = p.cb[at], p.cr[at]
	}
	return ys, ch.cb[:n], ch.cr[:n]
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
