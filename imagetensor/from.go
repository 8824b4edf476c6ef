package imagetensor

import (
	"fmt"
	"image"
	"unsafe"

	"github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/imagetensor/internal/kernels"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/x448/float16"
)

// Element is a tensor element type: float32, float16 (as
// github.com/x448/float16 defines it) or uint8.
type Element interface {
	float32 | float16.Float16 | uint8
}

// FromImage writes img's pixels into dst as a tensor of C channels, H rows
// and W columns (the image's bounds): [C, H, W] for NCHW, the default, or
// [H, W, C] for NHWC. C is 1 for *image.Gray and *image.Gray16, 3 for
// every other image (red, green, blue, or blue, green, red with o.BGR;
// alpha dropped). len(dst) must be C*H*W.
//
// A pixel's channel value v is its byte: the stored byte of *image.RGBA
// (premultiplied by alpha), *image.NRGBA (not) and *image.Gray; the high
// byte of the 16-bit images; for *image.YCbCr, what image/color's
// YCbCrToRGB makes of it (as image/draw converts, for every subsample
// ratio); for any other image, At(x, y).RGBA() >> 8, a call per pixel and
// far slower. float32 and float16 elements hold (v/255 - o.Mean[c]) /
// o.Std[c], computed as Options describes; uint8 elements hold v.
//
// Sub-images, bounds that do not start at (0, 0) and strides wider than
// a row all work. Large images are split over goroutines as o.Workers
// allows.
func FromImage[T Element](dst []T, img image.Image, o Options) error {
	a, err := o.check()
	if err != nil {
		return err
	}
	p, err := pixelsOf(img)
	if err != nil {
		return err
	}
	if n := p.elements(); n < 0 || len(dst) != n {
		return fmt.Errorf("imagetensor: len(dst) = %d, want %d for %s: %w", len(dst), n, p.shape(o.Layout), blockshuffle.ErrLength)
	}
	if p.overlaps(engine.Bytes(dst)) {
		return fmt.Errorf("imagetensor: dst shares memory with the image: %w", blockshuffle.ErrOverlap)
	}
	nhwc, k := o.Layout == blockshuffle.NHWC, kit
	var pats patterns
	if k != nil {
		pats = a.patterns()
	}
	switch d := any(dst).(type) {
	case []float32:
		pairs := !engine.Streams(engine.Rows, 4*len(d))
		converter[float32]{p: p, dst: d, table: a.float32Table(), nhwc: nhwc, bgr: o.BGR, kit: k, pats: pats, pairRows: pairs}.run(o.Workers)
	case []float16.Float16:
		converter[float16.Float16]{p: p, dst: d, table: a.float16Table(), nhwc: nhwc, bgr: o.BGR, kit: k, pats: pats}.run(o.Workers)
	case []uint8:
		converter[uint8]{p: p, dst: d, table: identity, nhwc: nhwc, bgr: o.BGR, kit: k}.run(o.Workers)
	}
	return nil
}

// identity is uint8 elements' table: each value itself.
var identity = func() (t [3][256]uint8) {
	for c := range 3 {
		for v := range 256 {
			t[c][v] = uint8(v)
		}
	}
	return t
}()

// A converter moves an image into a tensor, row by row, each channel's
// values through its table, or with a kit through the kernels (simd.go).
type converter[E Element] struct {
	p         pixels
	dst       []E
	table     [3][256]E
	nhwc, bgr bool
	kit       *kernels.Kit
	pats      patterns // with a kit, for float elements
	// pairRows: YCbCr rows that share their chroma go through one kernel
	// together, which writes six rows of the tensor at once; where the
	// tensor goes to memory (it streams, by the engine's rule), that lost
	// to one row at a time: YCbCr 4:2:0 1920x1080 to float32 NCHW (25 MB)
	// at 0.83 of its speed on a Zen 4, where 640x480 (3.7 MB) gained 1.1.
	pairRows bool
}

// run moves every row, on the goroutines the engine's policy grants for
// the tensor's bytes within the bound workers. c comes by value and goes
// to the heap only where goroutines share it (spread): a call on one
// goroutine allocates nothing.
func (c converter[E]) run(workers int) {
	want, bytes := policy(workers, c.dst)
	if want.Workers(bytes, c.p.h) == 1 {
		c.rows(0, c.p.h)
		return
	}
	c.spread(want, bytes)
}

func (c converter[E]) spread(want engine.Want, bytes int) {
	engine.Spread(want, bytes, c.p.h, c.rows)
}

// policy is the engine's Want for a tensor t within the bound workers, and
// t's size in bytes.
func policy[E Element](workers int, t []E) (engine.Want, int) {
	return engine.WantOf(workers, engine.Rows), len(t) * int(unsafe.Sizeof(*new(E)))
}

func (c *converter[E]) rows(lo, hi int) {
	var r row
	p := &c.p
	for y := lo; y < hi; y++ {
		switch {
		case c.kit == nil && p.kind == rgba4:
			c.rgbaRow(y)
			continue
		case c.kit == nil && p.kind == ycbcr:
			c.ycbcrRow(y)
			continue
		case p.kind == ycbcr && !c.nhwc && isFloat32(c.dst):
			rows := 1
			if c.pairRows && p.cy == 1 && y+1 < hi && half(p.min.Y+y, 1) == half(p.min.Y+y+1, 1) {
				rows = 2 // rows that share their chroma samples go together
			}
			for x0 := 0; x0 < p.w; x0 += chunk {
				c.ycbcrPlanes(y, rows, x0, min(chunk, p.w-x0), any(c.dst).([]float32))
			}
			y += rows - 1
			continue
		}
		for x0 := 0; x0 < p.w; x0 += chunk {
			n := min(chunk, p.w-x0)
			switch {
			case p.kind == rgba4 && c.nhwc:
				c.packRGBA(y, x0, n)
				continue
			case p.kind == rgba4:
				c.splitRGBA(y, x0, n, &r)
			case p.kind == ycbcr:
				c.ycbcr(y, x0, n, &r)
			default:
				p.read(y, x0, n, &r)
			}
			c.write(y, x0, n, &r)
		}
	}
}

// rgbaRow moves row y of a 4-byte-a-pixel image straight from its bytes
// to the tensor, the most common and simplest source: 1920x1080 RGBA to
// float32 NCHW took half the time through a row of bytes per channel.
func (c *converter[E]) rgbaRow(y int) {
	p := &c.p
	s := p.pix[y*p.stride:][:4*p.w]
	i0, i2 := redBlue(c.bgr)
	t0, t1, t2 := &c.table[0], &c.table[1], &c.table[2]
	if c.nhwc {
		out := c.dst[3*y*p.w:][:3*p.w]
		for x := range p.w {
			px, o := s[4*x:4*x+4], out[3*x:3*x+3]
			o[0], o[1], o[2] = t0[px[i0]], t1[px[1]], t2[px[i2]]
		}
		return
	}
	plane := p.h * p.w
	o0 := c.dst[y*p.w:][:p.w]
	o1 := c.dst[plane+y*p.w:][:p.w]
	o2 := c.dst[2*plane+y*p.w:][:p.w]
	for x := range p.w {
		px := s[4*x : 4*x+4]
		o0[x], o1[x], o2[x] = t0[px[i0]], t1[px[1]], t2[px[i2]]
	}
}

// ycbcrRow moves row y of a YCbCr image to the tensor in one pass, as
// image/color's YCbCrToRGB converts, each chroma sample's terms computed
// once for the pixels that share it.
func (c *converter[E]) ycbcrRow(y int) {
	p := &c.p
	ys := p.pix[y*p.stride:][:p.w]
	c0 := half(p.min.X, p.cx)
	crow := (half(p.min.Y+y, p.cy) - half(p.min.Y, p.cy)) * p.cstride
	cols := half(p.min.X+p.w-1, p.cx) - c0 + 1
	cbs, crs := p.cb[crow:][:cols], p.cr[crow:][:cols]
	i0, i2 := redBlue(c.bgr)
	t0, t1, t2 := &c.table[0], &c.table[1], &c.table[2]
	plane := p.h * p.w
	var o0, o1, o2, out []E
	if c.nhwc {
		out = c.dst[3*y*p.w:][:3*p.w]
	} else {
		o0, o1, o2 = c.dst[y*p.w:][:p.w], c.dst[plane+y*p.w:][:p.w], c.dst[2*plane+y*p.w:][:p.w]
	}
	last := -1
	var rc, gc, bc int32
	for x := range p.w {
		if ci := half(p.min.X+x, p.cx) - c0; ci != last {
			cb1, cr1 := int32(cbs[ci])-128, int32(crs[ci])-128
			rc, gc, bc = 91881*cr1, -22554*cb1-46802*cr1, 116130*cb1
			last = ci
		}
		yy1 := int32(ys[x]) * 0x10101
		v := [3]uint8{clamp16(yy1 + rc), clamp16(yy1 + gc), clamp16(yy1 + bc)}
		if c.nhwc {
			o := out[3*x : 3*x+3]
			o[0], o[1], o[2] = t0[v[i0]], t1[v[1]], t2[v[i2]]
		} else {
			o0[x], o1[x], o2[x] = t0[v[i0]], t1[v[1]], t2[v[i2]]
		}
	}
}

func isFloat32[E Element](s []E) bool {
	_, ok := any(s).([]float32)
	return ok
}

// write puts a chunk's values, in the tensor's channel order, into dst.
func (c *converter[E]) write(y, x0, n int, r *row) {
	p := &c.p
	at := y*p.w + x0 // the chunk's first pixel, counted over the image
	if p.c == 1 && c.kit != nil {
		c.convert(c.dst[at:at+n], r[0][:n], 0)
		return
	}
	if p.c == 1 {
		t, out := &c.table[0], c.dst[at:at+n]
		for i, v := range r[0][:n] {
			out[i] = t[v]
		}
		return
	}
	s0, s2 := &r[0], &r[2]
	if c.bgr {
		s0, s2 = s2, s0
	}
	s1 := &r[1]
	if c.kit != nil {
		if c.nhwc {
			c.interleave(c.dst[3*at:3*(at+n)], s0[:n], s1[:n], s2[:n])
			return
		}
		plane := p.h * p.w
		for ch, s := range [3]*[chunk]byte{s0, s1, s2} {
			c.convert(c.dst[ch*plane+at:][:n], s[:n], ch)
		}
		return
	}
	if c.nhwc {
		out := c.dst[3*at : 3*(at+n)]
		t0, t1, t2 := &c.table[0], &c.table[1], &c.table[2]
		for i := range n {
			o := out[3*i : 3*i+3]
			o[0], o[1], o[2] = t0[s0[i]], t1[s1[i]], t2[s2[i]]
		}
		return
	}
	plane := p.h * p.w
	for ch, s := range [3]*[chunk]byte{s0, s1, s2} {
		t, out := &c.table[ch], c.dst[ch*plane+at:][:n]
		for i, v := range s[:n] {
			out[i] = t[v]
		}
	}
}

// shape names the tensor of the image's pixels in layout l.
func (p *pixels) shape(l blockshuffle.Layout) string {
	if l == blockshuffle.NHWC {
		return fmt.Sprintf("a %dx%d image: [H W C] = [%d %d %d]", p.w, p.h, p.h, p.w, p.c)
	}
	return fmt.Sprintf("a %dx%d image: [C H W] = [%d %d %d]", p.w, p.h, p.c, p.h, p.w)
}

// overlaps reports whether b shares memory with the image's pixels.
func (p *pixels) overlaps(b []byte) bool {
	return engine.Overlap(b, p.pix) || engine.Overlap(b, p.cb) || engine.Overlap(b, p.cr)
}
