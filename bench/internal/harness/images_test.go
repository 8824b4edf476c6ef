package harness

import (
	"image"
	"math"
	"testing"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/imagetensor"
)

// TestImageBaselines: the At and Pix loops write what FromImage writes
// (float32 within rounding), and the clamp loop what ToImage writes, so
// that the report compares like with like; every case's functions run.
func TestImageBaselines(t *testing.T) {
	r := image.Rect(0, 0, 37, 5)
	rgba, nrgba, ycc := image.NewRGBA(r), image.NewNRGBA(r), image.NewYCbCr(r, image.YCbCrSubsampleRatio420)
	for _, p := range [][]byte{rgba.Pix, nrgba.Pix, ycc.Y, ycc.Cb, ycc.Cr} {
		for i := range p {
			p[i] = byte(i*29 + 3)
		}
	}
	for i := 3; i < len(nrgba.Pix); i += 4 { // opaque: At premultiplies
		nrgba.Pix[i] = 255
	}
	for _, img := range []image.Image{rgba, nrgba, ycc} {
		for _, l := range []bs.Layout{bs.NCHW, bs.NHWC} {
			o := ImageNet
			o.Layout = l
			want := make([]float32, 3*37*5)
			if err := imagetensor.FromImage(want, img, o); err != nil {
				t.Fatal(err)
			}
			f := func(v uint8, ch int) float32 { return (float32(v)/255 - o.Mean[ch]) / o.Std[ch] }
			at, pix := make([]float32, len(want)), make([]float32, len(want))
			atLoop(at, img, l, func(v uint32, ch int) float32 { return f(uint8(v), ch) })
			pixLoop(pix, img, l, f)
			for i := range want {
				if math.Abs(float64(at[i]-want[i])) > 1e-5 || math.Abs(float64(pix[i]-want[i])) > 1e-5 {
					t.Fatalf("%T %v: element %d: At loop %v, Pix loop %v, FromImage %v", img, l, i, at[i], pix[i], want[i])
				}
			}
		}
	}
	src := make([]float32, 3*37*5)
	for i := range src {
		src[i] = float32(i%293) / 255
	}
	a, b := image.NewRGBA(r), image.NewRGBA(r)
	clampLoop(a, src)
	if err := imagetensor.ToImage(b, src, imagetensor.Options{}); err != nil {
		t.Fatal(err)
	}
	for i := range a.Pix {
		if a.Pix[i] != b.Pix[i] {
			t.Fatalf("byte %d: clamp loop %d, ToImage %d", i, a.Pix[i], b.Pix[i])
		}
	}
	for _, c := range ImageCases {
		c.W, c.H = 19, 3
		runs := NewImageRuns(c)
		for _, f := range []func(){runs.Call, runs.At, runs.Pix, runs.Mem, runs.Draw} {
			if f != nil {
				f()
			}
		}
	}
}
