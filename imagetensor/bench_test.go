package imagetensor

import (
	"image"
	"testing"
)

// BenchmarkFromImage: a 1920x1080 image of each kind the report times, to
// a normalized NCHW float32 tensor on one goroutine.
func BenchmarkFromImage(b *testing.B) {
	r := image.Rect(0, 0, 1920, 1080)
	imgs := map[string]image.Image{"RGBA": image.NewRGBA(r), "NRGBA": image.NewNRGBA(r), "YCbCr420": image.NewYCbCr(r, image.YCbCrSubsampleRatio420)}
	o := Options{Workers: 1, Mean: [3]float32{0.485, 0.456, 0.406}, Std: [3]float32{0.229, 0.224, 0.225}}
	for _, name := range []string{"RGBA", "NRGBA", "YCbCr420"} {
		dst := make([]float32, 3*1920*1080)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(dst)))
			for b.Loop() {
				if err := FromImage(dst, imgs[name], o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkToImage: a 3x1080x1920 float32 tensor into an RGBA image.
func BenchmarkToImage(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	src := make([]float32, 3*1920*1080)
	for i := range src {
		src[i] = float32(i%300) / 255
	}
	b.SetBytes(int64(4 * len(src)))
	for b.Loop() {
		if err := ToImage(img, src, Options{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
