package imagetensor

import (
	"image"
	"math/rand/v2"
	"testing"
)

// FuzzFromImage: an image of any kind, bounds and pixels against the
// per-pixel reference, with any of the tests' options.
func FuzzFromImage(f *testing.F) {
	for _, s := range [][6]uint8{{0, 1, 1, 0, 0, 0}, {6, 9, 3, 250, 3, 2}, {8, 255, 2, 1, 255, 4}, {12, 3, 5, 7, 9, 1}} {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5], uint64(s[0])*77)
	}
	f.Fuzz(func(t *testing.T, kind, w, h, x0, y0, opt uint8, seed uint64) {
		r := image.Rect(int(int8(x0)), int(int8(y0)), int(int8(x0))+1+int(w), int(int8(y0))+1+int(h)%64)
		imgs := testImages(rand.New(rand.NewPCG(seed, 1)), r)
		eachTier(t, func(t *testing.T) { checkFrom(t, imgs[int(kind)%len(imgs)], options[int(opt)%len(options)]) })
	})
}

// FuzzToImage: tensors of any values into every image type ToImage takes.
func FuzzToImage(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint64(1))
	f.Add(uint8(255), uint8(7), uint8(200), uint8(9), uint8(3), uint64(2))
	f.Fuzz(func(t *testing.T, w, h, x0, y0, opt uint8, seed uint64) {
		r := image.Rect(int(int8(x0)), int(int8(y0)), int(int8(x0))+1+int(w), int(int8(y0))+1+int(h)%64)
		eachTier(t, func(t *testing.T) { checkTo(t, rand.New(rand.NewPCG(seed, 2)), r, options[int(opt)%len(options)]) })
	})
}
