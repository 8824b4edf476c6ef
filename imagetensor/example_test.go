package imagetensor_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"

	"github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/imagetensor"
)

// The whole super-resolution path: a JPEG in, its pixels as a model's
// input, the model's output (here made by hand: every pixel repeated into
// a 2x2 block, as an upscaler's last layer lays it out), DepthToSpace CRD
// to the upscaled image's planes, and a PNG out.
func Example_superResolution() {
	// A 64x48 JPEG, as a file or an HTTP body would hold it.
	src := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i := range src.Pix {
		src.Pix[i] = uint8(i * 7)
	}
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, src, nil); err != nil {
		panic(err)
	}

	img, err := jpeg.Decode(&jpg) // an *image.YCbCr, 4:2:0
	if err != nil {
		panic(err)
	}
	b := img.Bounds()
	h, w := b.Dy(), b.Dx()
	x := make([]float32, 3*h*w) // the model's input, [3, H, W]
	if err := imagetensor.FromImage(x, img, imagetensor.Options{}); err != nil {
		panic(err)
	}

	// The model's output: [3*2*2, H, W], channel c*4 + i*2 + j holding
	// channel c of the output pixel (2y+i, 2x+j), as DepthToSpace CRD reads it.
	const r = 2
	y := make([]float32, 3*r*r*h*w)
	for c := range 3 {
		for k := range r * r {
			copy(y[(c*r*r+k)*h*w:][:h*w], x[c*h*w:][:h*w])
		}
	}

	up := make([]float32, len(y)) // [3, 2H, 2W]
	p := blockshuffle.Params{N: 1, C: 3 * r * r, H: h, W: w, BlockSize: r, Order: blockshuffle.CRD}
	if err := blockshuffle.DepthToSpace(up, y, p); err != nil {
		panic(err)
	}

	out := image.NewRGBA(image.Rect(0, 0, r*w, r*h))
	if err := imagetensor.ToImage(out, up, imagetensor.Options{}); err != nil {
		panic(err)
	}
	var pngOut bytes.Buffer
	if err := png.Encode(&pngOut, out); err != nil {
		panic(err)
	}

	fmt.Println(img.Bounds(), "->", out.Bounds())
	fmt.Println(out.RGBAAt(10, 20) == out.RGBAAt(11, 21), out.RGBAAt(10, 20) == color.RGBAModel.Convert(img.At(5, 10)))
	// Output:
	// (0,0)-(64,48) -> (0,0)-(128,96)
	// true true
}
