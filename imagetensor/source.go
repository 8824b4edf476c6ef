package imagetensor

import (
	"fmt"
	"image"
)

// chunk is how many pixels of a row move at a time, through a buffer of
// one row of bytes per channel that stays in the first-level cache: a
// multiple of every pixel kernel's block, so that only a row's last chunk
// leaves a remainder to Go.
const chunk = 768

// A row is a chunk's pixel values, one row of bytes per channel, in the
// image's channel order (red, green, blue; or gray alone).
type row = [3][chunk]byte

// A pixels is an image as FromImage reads it and ToImage writes it: its
// kind, and the slices and strides of its pixels, each whose first byte
// is the pixel at Rect.Min.
type pixels struct {
	kind    kind
	c, h, w int // channels, rows, columns
	pix     []byte
	stride  int
	cb, cr  []byte // YCbCr; pix holds Y
	cstride int
	cx, cy  uint // YCbCr: log2 of the chroma subsampling across and down
	min     image.Point
	img     image.Image // anyImage: read through At
}

type kind uint8

const (
	none     kind = iota // no image
	rgba4                // 4 bytes a pixel, red, green, blue first: RGBA, NRGBA
	rgba8                // 8 bytes a pixel, big-endian 16-bit red, green, blue first: RGBA64, NRGBA64
	gray1                // 1 byte a pixel: Gray
	gray2                // 2 bytes a pixel, big-endian: Gray16
	ycbcr                // planes of Y, Cb, Cr: YCbCr
	anyImage             // any other image: At
)

// pixelsOf describes img, or says what is wrong with it: nil, of no
// pixels, or with fewer bytes than its Rect and strides need.
func pixelsOf(img image.Image) (pixels, error) {
	var p pixels // kind none where img is nil, or a nil pointer of a type below
	switch m := img.(type) {
	case nil:
	case *image.RGBA:
		if m != nil {
			p = pixels{kind: rgba4, pix: m.Pix, stride: m.Stride}
		}
	case *image.NRGBA:
		if m != nil {
			p = pixels{kind: rgba4, pix: m.Pix, stride: m.Stride}
		}
	case *image.RGBA64:
		if m != nil {
			p = pixels{kind: rgba8, pix: m.Pix, stride: m.Stride}
		}
	case *image.NRGBA64:
		if m != nil {
			p = pixels{kind: rgba8, pix: m.Pix, stride: m.Stride}
		}
	case *image.Gray:
		if m != nil {
			p = pixels{kind: gray1, pix: m.Pix, stride: m.Stride}
		}
	case *image.Gray16:
		if m != nil {
			p = pixels{kind: gray2, pix: m.Pix, stride: m.Stride}
		}
	case *image.YCbCr:
		if m == nil {
			break
		}
		p = pixels{kind: ycbcr, pix: m.Y, stride: m.YStride, cb: m.Cb, cr: m.Cr, cstride: m.CStride}
		switch m.SubsampleRatio {
		case image.YCbCrSubsampleRatio444:
		case image.YCbCrSubsampleRatio422:
			p.cx = 1
		case image.YCbCrSubsampleRatio420:
			p.cx, p.cy = 1, 1
		case image.YCbCrSubsampleRatio440:
			p.cy = 1
		case image.YCbCrSubsampleRatio411:
			p.cx = 2
		case image.YCbCrSubsampleRatio410:
			p.cx, p.cy = 2, 1
		default:
			return p, fmt.Errorf("imagetensor: *image.YCbCr of subsample ratio %v: %w", m.SubsampleRatio, ErrImage)
		}
	default:
		p = pixels{kind: anyImage, img: img}
	}
	if p.kind == none {
		return p, fmt.Errorf("imagetensor: nil image (%T): %w", img, ErrImage)
	}
	r := img.Bounds()
	if r.Empty() {
		return p, fmt.Errorf("imagetensor: image of bounds %v: %w", r, ErrImage)
	}
	p.min, p.w, p.h, p.c = r.Min, r.Dx(), r.Dy(), 3
	if p.kind == gray1 || p.kind == gray2 {
		p.c = 1
	}
	if !p.fits() {
		return p, fmt.Errorf("imagetensor: %T of bounds %v: its pixels' slices are shorter than its bounds and strides need: %w", img, r, ErrImage)
	}
	return p, nil
}

// fits reports whether the pixels' slices hold every pixel of the bounds
// at their strides.
func (p *pixels) fits() bool {
	holds := func(s []byte, stride, rows, rowBytes int) bool {
		return stride >= rowBytes && (rows-1) <= (len(s)-rowBytes)/stride && len(s) >= rowBytes
	}
	switch p.kind {
	case rgba4:
		return p.w <= maxInt/4 && holds(p.pix, p.stride, p.h, 4*p.w)
	case rgba8:
		return p.w <= maxInt/8 && holds(p.pix, p.stride, p.h, 8*p.w)
	case gray1:
		return holds(p.pix, p.stride, p.h, p.w)
	case gray2:
		return p.w <= maxInt/2 && holds(p.pix, p.stride, p.h, 2*p.w)
	case ycbcr:
		cw := half(p.min.X+p.w-1, p.cx) - half(p.min.X, p.cx) + 1
		ch := half(p.min.Y+p.h-1, p.cy) - half(p.min.Y, p.cy) + 1
		return holds(p.pix, p.stride, p.h, p.w) && holds(p.cb, p.cstride, ch, cw) && holds(p.cr, p.cstride, ch, cw)
	}
	return true
}

const maxInt = int(^uint(0) >> 1)

// elements is how many tensor elements the image makes, or -1 where that
// overflows an int.
func (p *pixels) elements() int {
	hw := p.h * p.w
	if p.w != 0 && hw/p.w != p.h || hw > maxInt/3 {
		return -1
	}
	return p.c * hw
}

// read puts the values of n pixels of row y (counted from the top of the
// bounds), from column x0 on, in r: for the kinds that have no row of
// their own (rgbaRow, ycbcrRow).
func (p *pixels) read(y, x0, n int, r *row) {
	switch p.kind {
	case rgba8:
		s := p.pix[y*p.stride+8*x0:][:8*n]
		for i := range n {
			r[0][i], r[1][i], r[2][i] = s[8*i], s[8*i+2], s[8*i+4]
		}
	case gray1:
		copy(r[0][:n], p.pix[y*p.stride+x0:])
	case gray2:
		s := p.pix[y*p.stride+2*x0:][:2*n]
		for i := range n {
			r[0][i] = s[2*i]
		}
	case anyImage:
		for i := range n {
			cr, cg, cb, _ := p.img.At(p.min.X+x0+i, p.min.Y+y).RGBA()
			r[0][i], r[1][i], r[2][i] = uint8(cr>>8), uint8(cg>>8), uint8(cb>>8)
		}
	}
}

// redBlue is where red and blue go among three channels: first and
// third, or with bgr third and first.
func redBlue(bgr bool) (red, blue int) {
	if bgr {
		return 2, 0
	}
	return 0, 2
}

// half is x / 2^k as image.YCbCr's COffset divides a coordinate: toward
// zero, for coordinates left of or above the origin too.
func half(x int, k uint) int {
	if x >= 0 {
		return x >> k
	}
	return -(-x >> k)
}

// clamp16 is v >> 16 clamped to [0, 255]: the last step of image/color's
// YCbCrToRGB, which image/jpeg's decoded images and image/draw follow.
// (Without branches it ran at 0.78 of this on the report's YCbCr images.)
func clamp16(v int32) uint8 {
	if uint32(v)&0xff000000 == 0 {
		return uint8(v >> 16)
	}
	return uint8(^(v >> 31))
}
