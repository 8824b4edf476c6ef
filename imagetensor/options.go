package imagetensor

import (
	"errors"
	"fmt"
	"math"

	"github.com/blockshuffle/blockshuffle"
	"github.com/x448/float16"
)

// Options say how pixels become tensor elements and back.
type Options struct {
	// Layout is the tensor's order: NCHW (the zero value), a [C, H, W]
	// tensor, or NHWC, [H, W, C].
	Layout blockshuffle.Layout
	// BGR puts the colour channels in the order blue, green, red (as
	// models trained with OpenCV expect) instead of red, green, blue.
	BGR bool
	// Mean and Std normalize float elements per channel, in the tensor's
	// channel order: element = (v/255 - Mean[c]) / Std[c] for a pixel
	// value v. A zero Std means none (1); otherwise each of its entries
	// must be finite and nonzero. uint8 tensors ignore both, which are
	// still checked.
	Mean, Std [3]float32
	// Workers bounds the goroutines a call may use, as Params.Workers
	// does: 1 the caller's alone, k > 1 at most k, 0 chosen from the
	// machine and the image's size.
	Workers int
}

// Errors. Every error the package returns wraps one of these or one of
// blockshuffle's (ErrLength: dst or src does not hold the image's
// elements; ErrLayout; ErrWorkers; ErrOverlap: a uint8 tensor shares
// memory with the image's pixels), names the offending values, and leaves
// dst untouched.
var (
	// ErrImage: a nil image, or one of no pixels.
	ErrImage = errors.New("imagetensor: no image")
	// ErrImageType: ToImage into an image other than *image.RGBA,
	// *image.NRGBA and *image.Gray.
	ErrImageType = errors.New("imagetensor: unsupported image type")
	// ErrNormalize: a Mean or Std entry that is not finite, or a Std with
	// a zero entry among nonzero ones.
	ErrNormalize = errors.New("imagetensor: bad Mean or Std")
)

// check checks o and returns the per-channel coefficients of its float
// arithmetic.
func (o *Options) check() (affine, error) {
	if o.Layout != blockshuffle.NCHW && o.Layout != blockshuffle.NHWC {
		return affine{}, fmt.Errorf("imagetensor: Layout %d: %w", o.Layout, blockshuffle.ErrLayout)
	}
	if o.Workers < 0 {
		return affine{}, fmt.Errorf("imagetensor: Workers = %d: %w", o.Workers, blockshuffle.ErrWorkers)
	}
	std := o.Std
	if std == [3]float32{} {
		std = [3]float32{1, 1, 1}
	}
	var a affine
	for c := range 3 {
		m, s := float64(o.Mean[c]), float64(std[c])
		if math.IsInf(m, 0) || math.IsNaN(m) || math.IsInf(s, 0) || math.IsNaN(s) || s == 0 {
			return affine{}, fmt.Errorf("imagetensor: channel %d: Mean %v, Std %v: %w", c, o.Mean[c], o.Std[c], ErrNormalize)
		}
		a.scale[c], a.bias[c] = float32(1/(255*s)), float32(-m/s)
		a.unscale[c], a.unbias[c] = float32(255*s), float32(255*m)
	}
	return a, nil
}

// affine holds the float arithmetic of both directions, per channel in
// the tensor's order, each coefficient computed in float64 and rounded to
// float32 once:
//
//	FromImage: x = float32(float32(v) * scale) + bias, scale = 1/(255 std), bias = -mean/std
//	ToImage:   v = clamp(roundEven(float32(x * unscale) + unbias)), unscale = 255 std, unbias = 255 mean
//
// Each product is rounded to float32 before the sum (no fused
// multiply-add, on every tier), so every tier gets the same bits.
type affine struct {
	scale, bias, unscale, unbias [3]float32
}

// toFloat is FromImage's arithmetic for channel c.
func (a *affine) toFloat(c int, v uint8) float32 {
	return float32(float32(v)*a.scale[c]) + a.bias[c]
}

// toByte is ToImage's arithmetic for channel c: rounded to nearest, ties
// to even, clamped to [0, 255], NaN to 0.
func (a *affine) toByte(c int, x float32) uint8 {
	v := float32(x*a.unscale[c]) + a.unbias[c]
	switch {
	case !(v >= 0): // NaN too
		return 0
	case v >= 255:
		return 255
	}
	return uint8(float32(v+0x1p23) - 0x1p23) // 2^23 + v keeps no fraction: rounded to even, as the hardware rounds
}

// float32Table and float16Table map each channel's byte values to their
// elements: FromImage's arithmetic done once per value.
func (a *affine) float32Table() (t [3][256]float32) {
	for c := range 3 {
		for v := range 256 {
			t[c][v] = a.toFloat(c, uint8(v))
		}
	}
	return t
}

func (a *affine) float16Table() (t [3][256]float16.Float16) {
	for c := range 3 {
		for v := range 256 {
			t[c][v] = float16.Fromfloat32(a.toFloat(c, uint8(v)))
		}
	}
	return t
}
