package kernels

import (
	"testing"

	"github.com/blockshuffle/blockshuffle"
)

// BenchmarkKernels runs each conversion kernel of the tier in use on one
// row of 640 pixels in the first-level cache: the kernels' own speed.
func BenchmarkKernels(b *testing.B) {
	k := For(blockshuffle.Tier())
	if k == nil {
		b.Skip("no pixel kernels on this tier")
	}
	const n = 640
	y, cb, cr := make([]byte, n), make([]byte, n), make([]byte, n)
	for i := range y {
		y[i], cb[i], cr[i] = byte(i), byte(i*7), byte(i*13)
	}
	out := [3][]float32{make([]float32, n), make([]float32, n), make([]float32, n)}
	rgb := [3][]byte{make([]byte, n), make([]byte, n), make([]byte, n)}
	s, bias := [3]float32{1, 2, 3}, [3]float32{}
	p := Interleaved(s, bias)
	for _, c := range []struct {
		name string
		run  func()
	}{
		{"YCbCrToFloat32", func() { k.YCbCrToFloat32(&out, y, cb, cr, &s, &bias) }},
		{"YCbCr422ToFloat32", func() { k.YCbCr422ToFloat32(&out, y, cb[:n/2], cr[:n/2], &s, &bias) }},
		{"YCbCrToRGB", func() { k.YCbCrToRGB(rgb[0], rgb[1], rgb[2], y, cb, cr) }},
		{"DoubleBytes", func() { k.DoubleBytes(y, cb[:n/2]) }},
		{"ToFloat32", func() { k.ToFloat32(out[0], y, p) }},
		{"SplitRGBA", func() { k.SplitRGBA(rgb[0][:n/4], rgb[1][:n/4], rgb[2][:n/4], y) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				c.run()
			}
		})
	}
}
