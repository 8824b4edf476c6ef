package imagetensor

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/dispatch"
	"github.com/blockshuffle/blockshuffle/imagetensor/internal/kernels"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/x448/float16"
)

// eachTier runs test on the generic tier's Go rows and with the kernels
// of every other tier this machine runs, as a subtest each.
func eachTier(t *testing.T, test func(t *testing.T)) {
	for _, tier := range dispatch.Available() {
		k := kernels.For(tier.String())
		if tier.String() != "generic" && k == nil {
			continue // no pixel kernels in this build
		}
		t.Run(tier.String(), func(t *testing.T) {
			defer useKit(k)()
			test(t)
		})
	}
}

// ratios are every YCbCr subsample ratio.
var ratios = []image.YCbCrSubsampleRatio{
	image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420,
	image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410,
}

// paletted is an image type the package does not know: read through At.
type paletted struct{ *image.Paletted }

// testImages are images of every kind the package reads, of bounds r,
// filled from rng.
func testImages(rng *rand.Rand, r image.Rectangle) []image.Image {
	fill := func(b []byte) {
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
	}
	rgba, nrgba := image.NewRGBA(r), image.NewNRGBA(r)
	rgba64, nrgba64 := image.NewRGBA64(r), image.NewNRGBA64(r)
	gray, gray16 := image.NewGray(r), image.NewGray16(r)
	for _, b := range [][]byte{rgba.Pix, nrgba.Pix, rgba64.Pix, nrgba64.Pix, gray.Pix, gray16.Pix} {
		fill(b)
	}
	out := []image.Image{rgba, nrgba, rgba64, nrgba64, gray, gray16}
	for _, ratio := range ratios {
		y := image.NewYCbCr(r, ratio)
		fill(y.Y)
		fill(y.Cb)
		fill(y.Cr)
		out = append(out, y)
	}
	pal := image.NewPaletted(r, color.Palette{color.RGBA{1, 2, 3, 255}, color.RGBA{200, 100, 50, 255}, color.NRGBA{90, 180, 250, 128}})
	for i := range pal.Pix {
		pal.Pix[i] = uint8(rng.IntN(3))
	}
	return append(out, paletted{pal})
}

// refValues is the reference's reading of img: per pixel, in row-major
// order of its bounds, its channels' values as FromImage documents them.
func refValues(img image.Image) (c int, vals [][3]uint8) {
	b := img.Bounds()
	c = 3
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			var v [3]uint8
			switch m := img.(type) {
			case *image.NRGBA:
				p := m.NRGBAAt(x, y)
				v = [3]uint8{p.R, p.G, p.B}
			case *image.NRGBA64:
				p := m.NRGBA64At(x, y)
				v = [3]uint8{uint8(p.R >> 8), uint8(p.G >> 8), uint8(p.B >> 8)}
			case *image.Gray:
				c, v[0] = 1, m.GrayAt(x, y).Y
			case *image.Gray16:
				c, v[0] = 1, uint8(m.Gray16At(x, y).Y>>8)
			case *image.YCbCr:
				p := m.YCbCrAt(x, y)
				v[0], v[1], v[2] = color.YCbCrToRGB(p.Y, p.Cb, p.Cr)
			default: // RGBA and RGBA64 store what At returns; others convert
				r, g, bl, _ := img.At(x, y).RGBA()
				v = [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}
			}
			vals = append(vals, v)
		}
	}
	return c, vals
}

// index is where channel ch of pixel i of an h x w image of c channels
// lies in a tensor of layout l.
func index(l blockshuffle.Layout, c, h, w, i, ch int) int {
	if l == blockshuffle.NHWC {
		return i*c + ch
	}
	return ch*h*w + i
}

// options are the options the tests try.
var options = []Options{
	{},
	{Layout: blockshuffle.NHWC},
	{BGR: true, Mean: [3]float32{0.485, 0.456, 0.406}, Std: [3]float32{0.229, 0.224, 0.225}},
	{Layout: blockshuffle.NHWC, BGR: true, Mean: [3]float32{0.5, 0.5, 0.5}, Std: [3]float32{0.5, 0.5, 0.5}},
	{Mean: [3]float32{-1, 3, 1e-7}, Std: [3]float32{-0.3, 1e-3, 7}},
}

// checkFrom converts img with o into every element type and compares
// with the reference: the documented arithmetic to the bit, and within the
// documented bound of the float64 formula.
func checkFrom(t *testing.T, img image.Image, o Options) {
	t.Helper()
	if err := FromImage(make([]uint8, 3*img.Bounds().Dx()*img.Bounds().Dy()), img, o); errors.Is(err, ErrImage) {
		// image.NewYCbCr makes too few chroma rows for some bounds above
		// the origin, which its own YCbCrAt then reads past: refused, as
		// long as Go cannot read it either.
		if !panics(func() { refValues(img) }) {
			t.Fatalf("%T %v: %v, but image reads it", img, img.Bounds(), err)
		}
		return
	}
	c, vals := refValues(img)
	b := img.Bounds()
	h, w := b.Dy(), b.Dx()
	n := c * h * w
	std := o.Std
	if std == [3]float32{} {
		std = [3]float32{1, 1, 1}
	}
	f32, f16, u8 := make([]float32, n), make([]float16.Float16, n), make([]uint8, n)
	for _, err := range []error{FromImage(f32, img, o), FromImage(f16, img, o), FromImage(u8, img, o)} {
		if err != nil {
			t.Fatalf("%T %v %+v: %v", img, b, o, err)
		}
	}
	for i, v := range vals {
		for ch := range c {
			src := ch
			if o.BGR && c == 3 {
				src = 2 - ch
			}
			at := index(o.Layout, c, h, w, i, ch)
			pv := v[src]
			if u8[at] != pv {
				t.Fatalf("%T %v %+v: uint8 pixel %d channel %d: %d, want %d", img, b, o, i, ch, u8[at], pv)
			}
			m, s := float64(o.Mean[ch]), float64(std[ch])
			scale, bias := float32(1/(255*s)), float32(-m/s)
			want := float32(float32(pv)*scale) + bias
			if math.Float32bits(f32[at]) != math.Float32bits(want) {
				t.Fatalf("%T %v %+v: float32 pixel %d channel %d: %v, want %v", img, b, o, i, ch, f32[at], want)
			}
			if f16[at] != float16.Fromfloat32(want) {
				t.Fatalf("%T %v %+v: float16 pixel %d channel %d: %v, want %v", img, b, o, i, ch, f16[at], float16.Fromfloat32(want))
			}
			exact := (float64(pv)/255 - m) / s
			bound := math.Ldexp(float64(pv)/(255*math.Abs(s))+math.Abs(m/s), -22)
			if d := math.Abs(float64(f32[at]) - exact); d > bound {
				t.Fatalf("%T %+v: value %d channel %d: %v is %g from %v, over the documented %g", img, o, pv, ch, f32[at], d, exact, bound)
			}
		}
	}
}

// TestFromImage: every image kind, at widths around the chunk, bounds off
// the origin, sub-images, every option, against the reference.
func TestFromImage(t *testing.T) { eachTier(t, testFromImage) }

func testFromImage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rects := []image.Rectangle{
		image.Rect(0, 0, 1, 1), image.Rect(0, 0, 7, 1), image.Rect(0, 0, 1, 9), image.Rect(0, 0, 5, 3),
		image.Rect(3, 2, 3+chunk+1, 5), image.Rect(-3, -5, -3+chunk, -1), image.Rect(-7, 4, 2*chunk-6, 7),
		image.Rect(1, 1, 40, 31),
	}
	for _, r := range rects {
		for _, img := range testImages(rng, r) {
			for _, o := range options {
				checkFrom(t, img, o)
			}
		}
		// Sub-images: strides wider than their rows, bounds inside.
		big := r.Inset(-5)
		for _, img := range testImages(rng, big) {
			sub := img.(interface {
				SubImage(image.Rectangle) image.Image
			}).SubImage(r.Add(image.Pt(1, 2)).Intersect(big))
			for _, o := range options[:3] {
				checkFrom(t, sub, o)
			}
		}
	}
}

// TestParallel: images split over goroutines (shares of 1 KiB, 8 cores)
// convert as the reference says, both ways.
func TestParallel(t *testing.T) { eachTier(t, testParallel) }

func testParallel(t *testing.T) {
	defer engine.SetShares(1<<10, 8)()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, img := range testImages(rng, image.Rect(2, 3, 300, 201)) {
		for _, o := range options {
			checkFrom(t, img, o)
		}
	}
	for _, o := range options {
		checkTo(t, rng, image.Rect(-1, 0, 299, 200), o)
	}
}

// testFloats are tensor elements for ToImage: in range, out of it, near
// half-integers once scaled, and not numbers.
func testFloats(rng *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, -0.0, 1, -1, 0.5 / 255, 254.5 / 255, 1e30, -1e30}
	for i := range out {
		switch rng.IntN(4) {
		case 0:
			out[i] = special[rng.IntN(len(special))]
		case 1:
			out[i] = (float32(rng.IntN(256)) + 0.5) / 255
		default:
			out[i] = float32(rng.Float64()*1.4 - 0.2)
		}
	}
	return out
}

// refByte is ToImage's documented arithmetic for x, with unscale and
// unbias computed as documented, and the exact result's distance to it
// checked against the documented bound.
func refByte(t *testing.T, x float32, mean, std float64) uint8 {
	unscale, unbias := float32(255*std), float32(255*mean)
	v := float32(x*unscale) + unbias
	var b uint8
	switch {
	case !(v >= 0):
	case v >= 255:
		b = 255
	default:
		b = uint8(math.RoundToEven(float64(v)))
	}
	if xf := float64(x); !math.IsNaN(xf) && !math.IsInf(xf, 0) {
		exact := (xf*std + mean) * 255
		e := uint8(math.RoundToEven(min(max(exact, 0), 255)))
		near := math.Abs(exact-math.Floor(exact)-0.5) <= math.Ldexp(math.Abs(255*xf*std)+math.Abs(255*mean), -22)
		if e != b && !near {
			t.Fatalf("x %v, mean %v, std %v: %d, exact %v rounds to %d", x, mean, std, b, exact, e)
		}
	}
	return b
}

// checkTo writes random tensors of every element type into every image
// type ToImage takes, of bounds r, and compares with the reference.
func checkTo(t *testing.T, rng *rand.Rand, r image.Rectangle, o Options) {
	t.Helper()
	h, w := r.Dy(), r.Dx()
	std := o.Std
	if std == [3]float32{} {
		std = [3]float32{1, 1, 1}
	}
	for _, img := range []drawable{image.NewRGBA(r), image.NewNRGBA(r), image.NewGray(r)} {
		c := 3
		if _, ok := img.(*image.Gray); ok {
			c = 1
		}
		f32 := testFloats(rng, c*h*w)
		f16 := make([]float16.Float16, len(f32))
		for i, x := range f32 {
			f16[i] = float16.Fromfloat32(x)
		}
		u8 := make([]uint8, len(f32))
		for i := range u8 {
			u8[i] = uint8(rng.Uint32())
		}
		for _, src := range []any{f32, f16, u8} {
			var err error
			switch s := src.(type) {
			case []float32:
				err = ToImage(img, s, o)
			case []float16.Float16:
				err = ToImage(img, s, o)
			case []uint8:
				err = ToImage(img, s, o)
			}
			if err != nil {
				t.Fatalf("%T %v %+v: %v", img, r, o, err)
			}
			for i := range h * w {
				x, y := r.Min.X+i%w, r.Min.Y+i/w
				var got [4]uint8
				switch m := img.(type) {
				case *image.RGBA:
					p := m.RGBAAt(x, y)
					got = [4]uint8{p.R, p.G, p.B, p.A}
				case *image.NRGBA:
					p := m.NRGBAAt(x, y)
					got = [4]uint8{p.R, p.G, p.B, p.A}
				case *image.Gray:
					got[0] = m.GrayAt(x, y).Y
				}
				for ch := range c {
					at := index(o.Layout, c, h, w, i, ch)
					var want uint8
					switch s := src.(type) {
					case []float32:
						want = refByte(t, s[at], float64(o.Mean[ch]), float64(std[ch]))
					case []float16.Float16:
						want = refByte(t, s[at].Float32(), float64(o.Mean[ch]), float64(std[ch]))
					case []uint8:
						want = s[at]
					}
					dst := ch
					if o.BGR && c == 3 {
						dst = 2 - ch
					}
					if got[dst] != want {
						t.Fatalf("%T %v %+v %T: pixel %d, tensor channel %d: %d, want %d", img, r, o, src, i, ch, got[dst], want)
					}
				}
				if c == 3 && got[3] != 255 {
					t.Fatalf("%T: pixel %d: alpha %d", img, i, got[3])
				}
			}
		}
	}
}

type drawable = interface {
	image.Image
	Set(x, y int, c color.Color)
}

// TestToImage: every image type ToImage takes, every element type and
// option, bounds off the origin, widths around the chunk.
func TestToImage(t *testing.T) { eachTier(t, testToImage) }

func testToImage(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, r := range []image.Rectangle{image.Rect(0, 0, 1, 1), image.Rect(0, 0, 1, 7), image.Rect(-4, 2, chunk-3, 5), image.Rect(0, 0, 2*chunk+1, 2)} {
		for _, o := range options {
			checkTo(t, rng, r, o)
		}
	}
}

// TestRoundTrip: FromImage then ToImage gives the pixels back, for every
// option and element type but float16 (which does not hold every value of
// v/255 exactly enough: it does here, but the test does not rely on it).
func TestRoundTrip(t *testing.T) { eachTier(t, testRoundTrip) }

func testRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	img := testImages(rng, image.Rect(0, 0, 33, 17))[0].(*image.RGBA)
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	for _, o := range options {
		x := make([]float32, 3*33*17)
		if err := FromImage(x, img, o); err != nil {
			t.Fatal(err)
		}
		back := image.NewRGBA(img.Rect)
		if err := ToImage(back, x, o); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back.Pix, img.Pix) {
			t.Fatalf("%+v: round trip changed the pixels", o)
		}
	}
}

// TestErrors: bad input gets an error wrapping its sentinel, and dst is
// untouched.
func TestErrors(t *testing.T) {
	rgba := image.NewRGBA(image.Rect(0, 0, 4, 3))
	short := &image.RGBA{Pix: make([]byte, 40), Stride: 16, Rect: image.Rect(0, 0, 4, 3)}
	narrow := &image.RGBA{Pix: make([]byte, 48), Stride: 8, Rect: image.Rect(0, 0, 4, 3)}
	ycc := &image.YCbCr{Y: make([]byte, 12), Cb: make([]byte, 3), Cr: make([]byte, 4), YStride: 4, CStride: 2,
		SubsampleRatio: image.YCbCrSubsampleRatio420, Rect: image.Rect(0, 0, 4, 3)}
	huge := hugeImage{}
	for _, c := range []struct {
		name string
		img  image.Image
		n    int
		o    Options
		want error
	}{
		{"nil image", nil, 36, Options{}, ErrImage},
		{"nil *image.RGBA", (*image.RGBA)(nil), 36, Options{}, ErrImage},
		{"nil *image.YCbCr", (*image.YCbCr)(nil), 36, Options{}, ErrImage},
		{"empty", image.NewRGBA(image.Rect(2, 2, 2, 9)), 0, Options{}, ErrImage},
		{"Pix too short", short, 36, Options{}, ErrImage},
		{"stride too narrow", narrow, 36, Options{}, ErrImage},
		{"chroma too short", ycc, 36, Options{}, ErrImage},
		{"dst too short", rgba, 35, Options{}, blockshuffle.ErrLength},
		{"dst too long", rgba, 37, Options{}, blockshuffle.ErrLength},
		{"gray dst of colour", image.NewGray(rgba.Rect), 36, Options{}, blockshuffle.ErrLength},
		{"overflow", huge, 36, Options{}, blockshuffle.ErrLength},
		{"a zero Std entry", rgba, 36, Options{Std: [3]float32{1, 0, 1}}, ErrNormalize},
		{"NaN Mean", rgba, 36, Options{Mean: [3]float32{float32(math.NaN())}}, ErrNormalize},
		{"Inf Std", rgba, 36, Options{Std: [3]float32{1, float32(math.Inf(1)), 1}}, ErrNormalize},
		{"layout", rgba, 36, Options{Layout: 7}, blockshuffle.ErrLayout},
		{"workers", rgba, 36, Options{Workers: -1}, blockshuffle.ErrWorkers},
	} {
		dst := make([]float32, c.n)
		for i := range dst {
			dst[i] = 42
		}
		err := FromImage(dst, c.img, c.o)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: FromImage: %v, want %v", c.name, err, c.want)
		}
		if slices.ContainsFunc(dst, func(x float32) bool { return x != 42 }) {
			t.Errorf("%s: FromImage wrote dst", c.name)
		}
		if img, ok := c.img.(drawable); ok || c.img == nil {
			err := ToImage(img, dst, c.o)
			if !errors.Is(err, c.want) {
				t.Errorf("%s: ToImage: %v, want %v", c.name, err, c.want)
			}
		}
	}
	// uint8 tensors that share the image's memory.
	if err := FromImage(rgba.Pix[:36], rgba, Options{}); !errors.Is(err, blockshuffle.ErrOverlap) {
		t.Errorf("FromImage into the image's own pixels: %v", err)
	}
	if err := ToImage(rgba, rgba.Pix[8:44], Options{}); !errors.Is(err, blockshuffle.ErrOverlap) {
		t.Errorf("ToImage from the image's own pixels: %v", err)
	}
	// ToImage into types it does not write; the image untouched.
	for _, img := range []drawable{image.NewCMYK(rgba.Rect), image.NewAlpha(rgba.Rect), image.NewRGBA64(rgba.Rect), image.NewPaletted(rgba.Rect, color.Palette{color.Black})} {
		if err := ToImage(img, make([]float32, 36), Options{}); !errors.Is(err, ErrImageType) {
			t.Errorf("ToImage into %T: %v", img, err)
		}
	}
	before := slices.Clone(rgba.Pix)
	if err := ToImage(rgba, make([]float32, 35), Options{}); err == nil || !slices.Equal(before, rgba.Pix) {
		t.Errorf("ToImage of a short tensor: %v, image written: %v", err, !slices.Equal(before, rgba.Pix))
	}
}

// hugeImage has more pixels than an int counts: its tensor cannot exist.
type hugeImage struct{}

func (hugeImage) ColorModel() color.Model { return color.RGBAModel }
func (hugeImage) Bounds() image.Rectangle {
	return image.Rect(math.MinInt/2, math.MinInt/2, math.MaxInt/2, math.MaxInt/2)
}
func (hugeImage) At(x, y int) color.Color { return color.RGBA{} }

// TestAllocs: a call on one goroutine allocates nothing.
func TestAllocs(t *testing.T) { eachTier(t, testAllocs) }

func testAllocs(t *testing.T) {
	img := image.NewYCbCr(image.Rect(0, 0, 64, 48), image.YCbCrSubsampleRatio420)
	dst := make([]float32, 3*64*48)
	o := Options{Workers: 1, Mean: [3]float32{0.485, 0.456, 0.406}, Std: [3]float32{0.229, 0.224, 0.225}}
	if n := testing.AllocsPerRun(10, func() { _ = FromImage(dst, img, o) }); n != 0 {
		t.Errorf("FromImage: %v allocations", n)
	}
	out := image.NewRGBA(img.Rect)
	if n := testing.AllocsPerRun(10, func() { _ = ToImage(out, dst, o) }); n != 0 {
		t.Errorf("ToImage: %v allocations", n)
	}
}

func ExampleFromImage() {
	img := image.NewRGBA(image.Rect(0, 0, 2, 1))
	img.SetRGBA(0, 0, color.RGBA{255, 0, 0, 255})
	img.SetRGBA(1, 0, color.RGBA{0, 128, 255, 255})
	x := make([]float32, 3*1*2) // [C, H, W]
	err := FromImage(x, img, Options{
		Mean: [3]float32{0.485, 0.456, 0.406}, // ImageNet's
		Std:  [3]float32{0.229, 0.224, 0.225},
	})
	fmt.Println(err)
	fmt.Printf("R %.3f\nG %.3f\nB %.3f\n", x[0:2], x[2:4], x[4:6])
	// Output:
	// <nil>
	// R [2.249 -2.118]
	// G [-2.036 0.205]
	// B [-1.804 2.640]
}

func ExampleToImage() {
	x := []float32{0, 0.5, 1, 2, -1, float32(math.NaN())} // [C, H, W] of a 2x1 image
	img := image.NewRGBA(image.Rect(0, 0, 2, 1))
	err := ToImage(img, x, Options{})
	fmt.Println(err, img.Pix)
	// Output: <nil> [0 255 0 255 128 255 0 255]
}

func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}

// TestApart: the root package does not import this one, so programs that
// do not convert images link none of it.
func TestApart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/blockshuffle/blockshuffle", "github.com/blockshuffle/blockshuffle/generic").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	if strings.Contains(string(out), "/imagetensor") {
		t.Errorf("the root package or generic imports imagetensor:\n%s", out)
	}
}

// TestPlainScale: without normalization every v/255 is within 2^-23 of
// it, relative, as the package documents.
func TestPlainScale(t *testing.T) {
	a, err := (&Options{}).check()
	if err != nil {
		t.Fatal(err)
	}
	for v := range 256 {
		x, exact := a.toFloat(0, uint8(v)), float64(v)/255
		if d := math.Abs(float64(x) - exact); d > math.Ldexp(exact, -23) {
			t.Errorf("%d/255: %v, %g from %v, over 2^-23 of it", v, x, d, exact)
		}
	}
}

// TestKernelsInUse: every path through the kernels on every tier here,
// on a few small images (odd bounds off the origin, each kind with a
// kernel path) in both directions. It is the test the emulated AVX-512
// tiers run (.ci/avx512), where the full tests would take too long.
func TestKernelsInUse(t *testing.T) {
	eachTier(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 10))
		for _, r := range []image.Rectangle{image.Rect(3, -3, 3+53, 4), image.Rect(-5, 2, 44, 5)} {
			imgs := testImages(rng, r)
			for _, img := range []image.Image{imgs[0], imgs[4], imgs[6], imgs[7], imgs[8], imgs[10]} { // RGBA, Gray, YCbCr 4:4:4, 4:2:2, 4:2:0, 4:1:1
				for _, o := range options[:4] {
					checkFrom(t, img, o)
				}
			}
			for _, o := range options[:4] {
				checkTo(t, rng, r, o)
			}
		}
	})
}
