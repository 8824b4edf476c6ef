package harness

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/imagetensor"
	"github.com/x448/float16"
)

// An ImageCase is a conversion the report times: an image of a kind and
// size into a tensor (FromImage), or a float32 tensor into an RGBA image
// (ToImage, Kind "tensor").
type ImageCase struct {
	Kind   string // RGBA, NRGBA, YCbCr420, or tensor
	W, H   int
	Elem   string // float32 (normalized by ImageNet's mean and std), float16, uint8
	Layout bs.Layout
}

// ImageNet is the mean and std models trained on ImageNet normalize by.
var ImageNet = imagetensor.Options{Mean: [3]float32{0.485, 0.456, 0.406}, Std: [3]float32{0.229, 0.224, 0.225}}

// ImageCases are issue 48's: 640x480 and 1920x1080 RGBA, NRGBA and YCbCr
// 4:2:0 into normalized NCHW float32, NHWC float16 and NCHW uint8, and
// 3x1080x1920 float32 into an RGBA image.
var ImageCases = func() []ImageCase {
	var out []ImageCase
	for _, size := range [][2]int{{640, 480}, {1920, 1080}} {
		for _, kind := range []string{"RGBA", "NRGBA", "YCbCr420"} {
			for _, e := range []struct {
				elem   string
				layout bs.Layout
			}{{"float32", bs.NCHW}, {"float16", bs.NHWC}, {"uint8", bs.NCHW}} {
				out = append(out, ImageCase{kind, size[0], size[1], e.elem, e.layout})
			}
		}
	}
	return append(out, ImageCase{"tensor", 640, 480, "float32", bs.NCHW}, ImageCase{"tensor", 1920, 1080, "float32", bs.NCHW})
}()

func (c ImageCase) String() string {
	if c.Kind == "tensor" {
		return fmt.Sprintf("img/float32/3x%dx%d/to-RGBA", c.H, c.W)
	}
	return fmt.Sprintf("img/%s/%dx%d/to-%s-%s", c.Kind, c.W, c.H, c.Layout, c.Elem)
}

// Bytes is the size of the tensor.
func (c ImageCase) Bytes() int {
	size := map[string]int{"float32": 4, "float16": 2, "uint8": 1}[c.Elem]
	return 3 * c.W * c.H * size
}

// ImageRuns are a case's functions: the call, the per-pixel At loop Go
// projects write (a), the loop over Pix a careful Go programmer writes
// (b), mem (c: a copy of the tensor's bytes that never streams), and for
// YCbCr images image/draw's conversion to RGBA alone.
type ImageRuns struct {
	Call, At, Pix, Mem, Draw func()
}

// NewImageRuns makes a case's image, tensor and functions.
func NewImageRuns(c ImageCase) ImageRuns {
	r := image.Rect(0, 0, c.W, c.H)
	n := 3 * c.W * c.H
	o := ImageNet
	o.Layout, o.Workers = c.Layout, 1
	mem := make([]byte, c.Bytes())
	memSrc := make([]byte, c.Bytes())
	runs := ImageRuns{Mem: func() { MemCopy(mem, memSrc) }}
	if c.Kind == "tensor" {
		src := make([]float32, n)
		for i := range src {
			src[i] = float32(i%293) / 255
		}
		img := image.NewRGBA(r)
		runs.Call = func() { must(imagetensor.ToImage(img, src, imagetensor.Options{Workers: 1})) }
		runs.Pix = func() { clampLoop(img, src) }
		return runs
	}
	var img image.Image
	switch c.Kind {
	case "RGBA", "NRGBA":
		pix := make([]byte, 4*c.W*c.H)
		for i := range pix {
			pix[i] = byte(i * 7)
			if i%4 == 3 {
				pix[i] = 255 // opaque, as decoded photographs are: At would premultiply an NRGBA's colours
			}
		}
		if c.Kind == "RGBA" {
			img = &image.RGBA{Pix: pix, Stride: 4 * c.W, Rect: r}
		} else {
			img = &image.NRGBA{Pix: pix, Stride: 4 * c.W, Rect: r}
		}
	case "YCbCr420":
		y := image.NewYCbCr(r, image.YCbCrSubsampleRatio420)
		for _, p := range [][]byte{y.Y, y.Cb, y.Cr} {
			for i := range p {
				p[i] = byte(i * 13)
			}
		}
		img = y
		rgba := image.NewRGBA(r)
		runs.Draw = func() { draw.Draw(rgba, r, y, image.Point{}, draw.Src) }
	}
	switch c.Elem {
	case "float32":
		dst := make([]float32, n)
		runs.Call = func() { must(imagetensor.FromImage(dst, img, o)) }
		runs.At = func() {
			atLoop(dst, img, c.Layout, func(v uint32, ch int) float32 { return (float32(v)/255 - o.Mean[ch]) / o.Std[ch] })
		}
		runs.Pix = func() {
			pixLoop(dst, img, c.Layout, func(v uint8, ch int) float32 { return (float32(v)/255 - o.Mean[ch]) / o.Std[ch] })
		}
	case "float16":
		dst := make([]float16.Float16, n)
		runs.Call = func() { must(imagetensor.FromImage(dst, img, o)) }
		runs.At = func() {
			atLoop(dst, img, c.Layout, func(v uint32, ch int) float16.Float16 {
				return float16.Fromfloat32((float32(v)/255 - o.Mean[ch]) / o.Std[ch])
			})
		}
		runs.Pix = func() {
			pixLoop(dst, img, c.Layout, func(v uint8, ch int) float16.Float16 {
				return float16.Fromfloat32((float32(v)/255 - o.Mean[ch]) / o.Std[ch])
			})
		}
	case "uint8":
		dst := make([]uint8, n)
		runs.Call = func() { must(imagetensor.FromImage(dst, img, o)) }
		runs.At = func() { atLoop(dst, img, c.Layout, func(v uint32, ch int) uint8 { return uint8(v) }) }
		runs.Pix = func() { pixLoop(dst, img, c.Layout, func(v uint8, ch int) uint8 { return v }) }
	}
	return runs
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// at is where channel ch of pixel (x, y) of a w x h image goes.
func at(l bs.Layout, w, h, x, y, ch int) int {
	if l == bs.NHWC {
		return (y*w+x)*3 + ch
	}
	return (ch*h+y)*w + x
}

// atLoop is the loop of yalue/onnxruntime_go's examples and hugot's
// PreprocessImages: At(x, y).RGBA() per pixel.
func atLoop[T any](dst []T, img image.Image, l bs.Layout, f func(v uint32, ch int) T) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	for y := range h {
		for x := range w {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			dst[at(l, w, h, x, y, 0)] = f(r>>8, 0)
			dst[at(l, w, h, x, y, 1)] = f(g>>8, 1)
			dst[at(l, w, h, x, y, 2)] = f(bl>>8, 2)
		}
	}
}

// pixLoop is the loop a careful Go programmer writes over the pixels'
// slices: Pix for RGBA and NRGBA, the planes and color.YCbCrToRGB for
// YCbCr.
func pixLoop[T any](dst []T, img image.Image, l bs.Layout, f func(v uint8, ch int) T) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	var pix []byte
	stride := 0
	switch m := img.(type) {
	case *image.RGBA:
		pix, stride = m.Pix, m.Stride
	case *image.NRGBA:
		pix, stride = m.Pix, m.Stride
	case *image.YCbCr:
		for y := range h {
			for x := range w {
				yi, ci := m.YOffset(b.Min.X+x, b.Min.Y+y), m.COffset(b.Min.X+x, b.Min.Y+y)
				r, g, bl := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
				dst[at(l, w, h, x, y, 0)] = f(r, 0)
				dst[at(l, w, h, x, y, 1)] = f(g, 1)
				dst[at(l, w, h, x, y, 2)] = f(bl, 2)
			}
		}
		return
	}
	for y := range h {
		row := pix[y*stride : y*stride+4*w]
		for x := range w {
			p := row[4*x : 4*x+4]
			dst[at(l, w, h, x, y, 0)] = f(p[0], 0)
			dst[at(l, w, h, x, y, 1)] = f(p[1], 1)
			dst[at(l, w, h, x, y, 2)] = f(p[2], 2)
		}
	}
}

// clampLoop is the hand-written tail of a super-resolution program: a
// [3, H, W] float32 tensor of values in [0, 1] clamped and rounded into
// an RGBA image.
func clampLoop(img *image.RGBA, src []float32) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	for y := range h {
		for x := range w {
			p := img.Pix[y*img.Stride+4*x:]
			for ch := range 3 {
				v := src[(ch*h+y)*w+x]*255 + 0.5
				if v < 0 {
					v = 0
				} else if v > 255 {
					v = 255
				}
				p[ch] = uint8(v)
			}
			p[3] = 255
		}
	}
}
