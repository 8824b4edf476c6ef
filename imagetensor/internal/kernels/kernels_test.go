package kernels

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/guard"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/x448/float16"
)

// tiers are the Kits of every tier this machine runs that has one, by
// tier name.
func tiers(t *testing.T) map[string]*Kit {
	out := map[string]*Kit{}
	for _, d := range isa.All {
		if k := For(d.TierName); k != nil {
			out[d.TierName] = k
		}
	}
	if len(out) == 0 {
		t.Log("no tier with pixel kernels runs here: nothing to test")
	}
	return out
}

func TestForNamesItsBase(t *testing.T) {
	if For("generic") != nil || For("no such tier") != nil {
		t.Error("For gave a Kit to a tier without pixel kernels")
	}
	for _, d := range isa.All {
		k := For(d.TierName)
		if !d.Supported() || d.Name == "" {
			if k != nil {
				t.Errorf("%s: a Kit for a tier this machine does not run", d.TierName)
			}
			continue
		}
		want := d.Name
		if len(kitTiers) == 0 { // purego, or gccgo
			if k != nil {
				t.Errorf("%s: a Kit in a build without pixel kernels", d.TierName)
			}
			continue
		}
		if k == nil || k.ISA != want {
			t.Errorf("%s: For gave %+v, want the %s Kit", d.TierName, k, want)
		}
	}
}

// A buffers hands out slices against inaccessible pages, in front of one
// (back) or behind one, so that a kernel reading or writing past either
// end faults.
type buffers struct {
	regions []guard.Region
	used    int
	back    bool
}

func (b *buffers) bytes(t *testing.T, n int) []byte {
	if b.used == len(b.regions) {
		b.regions = append(b.regions, guard.Region{})
	}
	r := &b.regions[b.used]
	b.used++
	front, back, ok := r.Slices(n)
	if !ok {
		return make([]byte, n)
	}
	if b.back {
		return back
	}
	return front
}

func (b *buffers) floats(t *testing.T, n int) []float32 {
	s := b.bytes(t, 4*n)
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&s[0])), n)
}

func (b *buffers) halves(t *testing.T, n int) []uint16 {
	s := b.bytes(t, 2*n)
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&s[0])), n)
}

func (b *buffers) release() {
	for i := range b.regions {
		b.regions[i].Release()
	}
}

// A kernelCase runs one method on n elements' worth of random inputs and
// checks the result against plain Go: got, the elements the method said
// it moved, must be n less its remainder of block, and every one right,
// the rest of dst untouched.
type kernelCase struct {
	name  string
	block int
	run   func(t *testing.T, k *Kit, buf *buffers, rng *rand.Rand, n int) (got int, err error)
}

const untouched = 0xA5

func fill(rng *rand.Rand, s []byte) {
	for i := range s {
		s[i] = byte(rng.Uint32())
	}
}

func sentinel(s []byte) {
	for i := range s {
		s[i] = untouched
	}
}

// checkBytes compares dst with want over the first done elements of size
// bytes, and checks the rest untouched.
func checkBytes(dst, want []byte) error {
	for i := range dst {
		if i < len(want) && dst[i] != want[i] {
			return fmt.Errorf("byte %d = %d, want %d", i, dst[i], want[i])
		}
		if i >= len(want) && dst[i] != untouched {
			return fmt.Errorf("byte %d, past what it said it wrote, = %d", i, dst[i])
		}
	}
	return nil
}

func bytesOfFloats(s []float32) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 4*len(s))
}

func bytesOfHalves(s []uint16) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 2*len(s))
}

// pattern is a random scale and bias per channel, sometimes extreme, so
// that float16 results overflow and underflow too.
func pattern(rng *rand.Rand) ([3]float32, [3]float32) {
	var s, b [3]float32
	for c := range 3 {
		s[c] = float32(math.Ldexp(rng.Float64()+0.5, rng.IntN(40)-30))
		if rng.IntN(2) == 0 {
			s[c] = -s[c]
		}
		b[c] = float32(rng.NormFloat64() * math.Ldexp(1, rng.IntN(20)-6))
	}
	return s, b
}

func toFloat(v byte, s, b float32) float32 { return float32(float32(v)*s) + b }

func toByte(x, s, b float32) byte {
	v := float32(x*s) + b
	switch {
	case !(v >= 0):
		return 0
	case v >= 255:
		return 255
	}
	return byte(math.RoundToEven(float64(v)))
}

var cases = []kernelCase{
	{"SplitRGBA", splitRGBABlock, func(t *testing.T, k *Kit, buf *buffers, rng *rand.Rand, n int) (int, error) {
		src, r, g, b := buf.bytes(t, 4*n), buf.bytes(t, n), buf.bytes(t, n), buf.bytes(t, n)
		fill(rng, src)
		sentinel(r)
		sentinel(g)
		sentinel(b)
		done := k.SplitRGBA(r, g, b, src)
		for c, dst := range [][]byte{r, g, b} {
			want := make([]byte, done)
			for i := range want {
				want[i] = src[4*i+c]
			}
			if err := checkBytes(dst, want); err != nil {
				return done, fmt.Errorf("channel %d: %v", c, err)
			}
		}
		return done, nil
	}},
	{"PackRGB", packRGBBlock, func(t *testing.T, k *Kit, buf *buffers, rng *rand.Rand, n int) (int, error) {
		src, dst := buf.bytes(t, 4*n), buf.bytes(t, 3*n)
		fill(rng, src)
		for _, bgr := range []bool{false, true} {
			sentinel(dst)
			done := k.PackRGB(dst, src, bgr)
			want := make([]byte, 3*done)
			for i := range done {
				for c := range 3 {
					from := c
					if bgr {
						from = 2 - c
					}
					want[3*i+c] = src[4*i+from]
				}
			}
			if err := checkBytes(dst, want); err != nil {
				return done, fmt.Errorf("bgr %v: %v", bgr, err)
			}
			if bgr {
				return done, nil
			}
		}
		panic("unreachable")
	}},
	{"JoinRGBA", joinRGBABlock, func(t *testing.T, k *Kit, buf *buffers, rng *rand.Rand, n int) (int, error) {
		r, g, b, dst := buf.bytes(t, n), buf.bytes(t, n), buf.bytes(t, n), buf.bytes(t, 4*n)
		fill(rng, r)
		fill(rng, g)
		fill(rng, b)
		sentinel(dst)
		done := k.JoinRGBA(dst, r, g, b)
		want := make([]byte, 4*done)
		for i := range done {
			want[4*i], want[4*i+1], want[4*i+2], want[4*i+3] = r[i], g[i], b[i], 255
		}
		return done, checkBytes(dst, want)
	}},
	{"DoubleBytes", doubleBytesBlock, func(t *testing.T, k *Kit, buf *buffers, rng *rand.Rand, n int) (int, error) {
		src, dst := buf.bytes(t, n), buf.bytes(t, 2*n)
		fill(rng, src)
		sentinel(dst)
		done := k.DoubleBytes(dst, src)
		want := make([]byte, 2*done)
		for i := range done {
			want[2*i], want[2*i+1] = src[i], src[i]
		}
		return done, checkBytes(dst, want)
	}},
	{"ToFloat32", toFloat32Block, func(t *testing.T, k *Kit, buf *buffers, rng *rand.Rand, n int) (int, error) {
		src, dst := buf.bytes(t, n), buf.floats(t, n)
		fill(rng, src)
		sentinel(bytesOfFloats(dst))
		s, b := pattern(rng)
		done := k.ToFloat32(dst, src, Interleaved(s, b))
		want := make([]float32, done)
		for i := range want {
			want[i] = toFloat(src[i], s[i%3], b[i%3])
		}
		return done, checkBytes(bytesOfFloats(dst), bytesOfFloats(want))
	}},
	{"ToFloat16", toFloat16Block, func(t *testing.T, k *Kit, buf *buffers, rng *rand.Rand, n int) (int, error) {
		src, dst := buf.bytes(t, n), buf.halves(t, n)
		fill(rng, src)
		sentinel(bytesOfHalves(dst))
		s, b := pattern(rng)
		done := k.ToFloat16(dst, src, Interleaved(s, b))
		want := make([]uint16, done)
		for i := range want {
			want[i] = float16.Fromfloat32(toFloat(src[i], s[i%3], b[i%3])).Bits()
		}
		return done, checkBytes(bytesOfHalves(dst), bytesOfHalves(want))
	}},
	{"ToBytes", toBytesBlock, func(t *testing.T, k *Kit, buf *buffers, rng *rand.Rand, n int) (int, error) {
		src, dst := buf.floats(t, n), buf.bytes(t, n)
		special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0.5, 1.5, 2.5, 254.5, 255.5, -0.5, -0.4, 1e30, -1e30, 0x1p23 + 1}
		for i := range src {
			switch rng.IntN(4) {
			case 0:
				src[i] = special[rng.IntN(len(special))]
			case 1:
				src[i] = float32(rng.IntN(600)-200) / 2 // ties
			default:
				src[i] = float32(rng.Float64()*320 - 40)
			}
		}
		sentinel(dst)
		s, b := float32(1), float32(0)
		if rng.IntN(2) == 0 {
			s, b = float32(rng.Float64()*2), float32(rng.NormFloat64()*20)
		}
		done := k.ToBytes(dst, src, s, b)
		want := make([]byte, done)
		for i := range want {
			want[i] = toByte(src[i], s, b)
		}
		return done, checkBytes(dst, want)
	}},
	{"YCbCrToRGB", ycbcrToRGBBlock, func(t *testing.T, k *Kit, buf *buffers, rng *rand.Rand, n int) (int, error) {
		y, cb, cr := buf.bytes(t, n), buf.bytes(t, n), buf.bytes(t, n)
		r, g, b := buf.bytes(t, n), buf.bytes(t, n), buf.bytes(t, n)
		fill(rng, y)
		fill(rng, cb)
		fill(rng, cr)
		for _, s := range [][]byte{r, g, b} {
			sentinel(s)
		}
		done := k.YCbCrToRGB(r, g, b, y, cb, cr)
		want := [3][]byte{make([]byte, done), make([]byte, done), make([]byte, done)}
		for i := range done {
			want[0][i], want[1][i], want[2][i] = color.YCbCrToRGB(y[i], cb[i], cr[i])
		}
		for c, dst := range [][]byte{r, g, b} {
			if err := checkBytes(dst, want[c]); err != nil {
				return done, fmt.Errorf("channel %d: %v", c, err)
			}
		}
		return done, nil
	}},
	{"YCbCrToFloat32", ycbcrToFloat32Block, func(t *testing.T, k *Kit, buf *buffers, rng *rand.Rand, n int) (int, error) {
		y, cb, cr := buf.bytes(t, n), buf.bytes(t, n), buf.bytes(t, n)
		out := [3][]float32{buf.floats(t, n), buf.floats(t, n), buf.floats(t, n)}
		fill(rng, y)
		fill(rng, cb)
		fill(rng, cr)
		for _, s := range out {
			sentinel(bytesOfFloats(s))
		}
		s, b := pattern(rng)
		done := k.YCbCrToFloat32(&out, y, cb, cr, &s, &b)
		return done, checkYCbCrFloats(out, done, y, cb, cr, 1, s, b)
	}},
	{"YCbCr422ToFloat32", ycbcr422ToFloat32Block, func(t *testing.T, k *Kit, buf *buffers, rng *rand.Rand, n int) (int, error) {
		m := (n + 1) / 2
		y, cb, cr := buf.bytes(t, n), buf.bytes(t, m), buf.bytes(t, m)
		out := [3][]float32{buf.floats(t, n), buf.floats(t, n), buf.floats(t, n)}
		fill(rng, y)
		fill(rng, cb)
		fill(rng, cr)
		for _, s := range out {
			sentinel(bytesOfFloats(s))
		}
		s, b := pattern(rng)
		done := k.YCbCr422ToFloat32(&out, y, cb, cr, &s, &b)
		return done, checkYCbCrFloats(out, done, y, cb, cr, 2, s, b)
	}},
	{"YCbCr420ToFloat32", ycbcr420ToFloat32Block, func(t *testing.T, k *Kit, buf *buffers, rng *rand.Rand, n int) (int, error) {
		m := (n + 1) / 2
		ys, cb, cr := buf.bytes(t, 2*n), buf.bytes(t, m), buf.bytes(t, m)
		y, below := ys[:n], ys[n:]
		var out, outBelow [3][]float32
		for c := range out { // each channel's two rows in one buffer: one offset between the rows
			both := buf.floats(t, 2*n)
			out[c], outBelow[c] = both[:n], both[n:]
			sentinel(bytesOfFloats(both))
		}
		fill(rng, ys)
		fill(rng, cb)
		fill(rng, cr)
		s, b := pattern(rng)
		done := k.YCbCr420ToFloat32(&out, &outBelow, y, below, cb, cr, &s, &b)
		for row, luma := range [][]byte{y, below} {
			if err := checkYCbCrFloats([][3][]float32{out, outBelow}[row], done, luma, cb, cr, 2, s, b); err != nil {
				return done, fmt.Errorf("row %d: %v", row, err)
			}
		}
		return done, nil
	}},
}

// checkYCbCrFloats checks the first done values of each channel of out
// against image/color's conversion of luma y and chroma samples cb and cr,
// one for every across pixels, scaled by s and b, and the rest of out
// untouched.
func checkYCbCrFloats(out [3][]float32, done int, y, cb, cr []byte, across int, s, b [3]float32) error {
	for c := range out {
		want := make([]float32, done)
		for i := range want {
			var v [3]byte
			v[0], v[1], v[2] = color.YCbCrToRGB(y[i], cb[i/across], cr[i/across])
			want[i] = toFloat(v[c], s[c], b[c])
		}
		if err := checkBytes(bytesOfFloats(out[c]), bytesOfFloats(want)); err != nil {
			return fmt.Errorf("channel %d: %v", c, err)
		}
	}
	return nil
}

// TestKernels runs every kernel of every tier here at every length near
// its first blocks and at a few longer ones, each slice against an
// inaccessible page at its end, then at its start.
func TestKernels(t *testing.T) {
	for tier, k := range tiers(t) {
		for _, c := range cases {
			t.Run(tier+"/"+c.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, uint64(len(c.name))))
				var lengths []int
				for n := 0; n <= 3*c.block+1; n++ {
					lengths = append(lengths, n)
				}
				lengths = append(lengths, 1000, 1920, 4096+7)
				for _, back := range []bool{true, false} {
					buf := &buffers{back: back}
					for _, n := range lengths {
						buf.used = 0
						done, err := c.run(t, k, buf, rng, n)
						if err == nil && done != n-n%c.block {
							err = fmt.Errorf("moved %d, want %d", done, n-n%c.block)
						}
						if err != nil {
							t.Fatalf("%d elements, guard at the end %v: %v", n, back, err)
						}
					}
					buf.release()
				}
			})
		}
	}
}

// TestNilKit checks that the generic tier's nil Kit moves nothing.
func TestNilKit(t *testing.T) {
	var k *Kit
	b := make([]byte, 256)
	f := make([]float32, 256)
	if k.SplitRGBA(b, b, b, b) != 0 || k.PackRGB(b, b, false) != 0 || k.JoinRGBA(b, b, b, b) != 0 ||
		k.DoubleBytes(b, b) != 0 || k.ToFloat32(f, b, Interleaved([3]float32{}, [3]float32{})) != 0 ||
		k.ToFloat16(make([]uint16, 256), b, Interleaved([3]float32{}, [3]float32{})) != 0 ||
		k.ToBytes(b, f, 1, 0) != 0 || k.YCbCrToRGB(b, b, b, b, b, b) != 0 ||
		k.YCbCrToFloat32(&[3][]float32{f, f, f}, b, b, b, &[3]float32{}, &[3]float32{}) != 0 ||
		k.YCbCr422ToFloat32(&[3][]float32{f, f, f}, b, b, b, &[3]float32{}, &[3]float32{}) != 0 ||
		k.YCbCr420ToFloat32(&[3][]float32{f, f, f}, &[3][]float32{f, f, f}, b, b, b, b, &[3]float32{}, &[3]float32{}) != 0 {
		t.Error("a nil Kit moved something")
	}
}

// TestYCbCr420OneStep: the pair kernel takes its second row's three
// slices at one offset from the first row's; where they lie otherwise, it
// moves nothing (the caller converts the rows one at a time), and touches
// nothing.
func TestYCbCr420OneStep(t *testing.T) {
	for tier, k := range tiers(t) {
		const n = 64
		rows := make([]float32, 7*n)
		out := [3][]float32{rows[:n], rows[n : 2*n], rows[2*n : 3*n]}
		below := [3][]float32{rows[3*n : 4*n], rows[4*n : 5*n], rows[6*n:]} // blue's a row further
		b := make([]byte, n)
		s := [3]float32{1, 1, 1}
		if got := k.YCbCr420ToFloat32(&out, &below, b, b, b, b, &s, &s); got != 0 {
			t.Errorf("%s: moved %d pixels of rows at two offsets", tier, got)
		}
		for i, v := range rows {
			if v != 0 {
				t.Fatalf("%s: element %d written", tier, i)
			}
		}
	}
}
