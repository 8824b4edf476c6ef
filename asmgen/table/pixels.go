package table

import "slices"

// A Pixel kernel is one of package imagetensor's: a pass over one row of
// pixels, or of a tensor's values, between Go's image types and tensors.
// They are written to imagetensor/internal/kernels, not to kernels/, so
// that only programs that import imagetensor link them. Each moves n
// blocks of Block elements (pixels, bytes or values, as its doc says) and
// leaves the rest of a row to the Go code that calls it.
type Pixel struct {
	Name      string // the function's name, before its ISA's
	Doc       string // what it does, after its name
	Block     int    // elements per block; n counts blocks
	Signature        // no parameter may be named g: Go's arm64 assembler reads it as a register
}

// Pixels lists the pixel kernels; PixelSets says which ISAs have them.
var Pixels = []Pixel{
	{"splitRGBA", "writes the red, green and blue bytes of n blocks of 16 four-byte pixels to the rows red, green and blue, dropping the fourth byte.", 16,
		Signature{Ptrs: []string{"red", "green", "blue", "src"}, Ints: []string{"n"}}},
	{"packRGB", "writes n blocks of 16 four-byte pixels as three-byte ones, dropping the fourth byte and, where bgr is not 0, swapping the first and third.", 16,
		Signature{Ptrs: []string{"dst", "src"}, Ints: []string{"n", "bgr"}}},
	{"joinRGBA", "writes n blocks of 16 four-byte pixels from the rows red, green and blue, the fourth byte 255.", 16,
		Signature{Ptrs: []string{"dst", "red", "green", "blue"}, Ints: []string{"n"}}},
	{"doubleBytes", "writes each byte of n blocks of 16 twice.", 16,
		Signature{Ptrs: []string{"dst", "src"}, Ints: []string{"n"}}},
	{"toFloat32", "converts n blocks of 48 bytes v to float32 float32(float32(v)*scale[i]) + bias[i], i the value's place in its block (scale and bias hold 48 float32 each).", 48,
		Signature{Ptrs: []string{"dst", "src", "scale", "bias"}, Ints: []string{"n"}}},
	{"toFloat16", "converts n blocks of 48 bytes as toFloat32 does, then to float16, rounded to nearest even.", 48,
		Signature{Ptrs: []string{"dst", "src", "scale", "bias"}, Ints: []string{"n"}}},
	{"toBytes", "converts n blocks of 32 float32 x to bytes: float32(x*scale) + bias (scale and bias one float32 each), rounded to nearest even and clamped to [0, 255], NaN to 0.", 32,
		Signature{Ptrs: []string{"dst", "src", "scale", "bias"}, Ints: []string{"n"}}},
	{"ycbcrToRGB", "converts n blocks of 16 pixels from the rows y, cb and cr (one chroma sample per pixel) to the rows red, green and blue, as image/color's YCbCrToRGB does.", 16,
		Signature{Ptrs: []string{"red", "green", "blue", "y", "cb", "cr"}, Ints: []string{"n"}}},
	{"ycbcrToFloat32", "converts n blocks of 16 pixels as ycbcrToRGB does and writes each channel c's values v to its row of float32 as toFloat32 does, float32(float32(v)*scale[c]) + bias[c] (scale and bias hold 3 float32 each, in the rows' order).", 16,
		Signature{Ptrs: []string{"red", "green", "blue", "y", "cb", "cr", "scale", "bias"}, Ints: []string{"n"}}},
	{"ycbcr422ToFloat32", "does what ycbcrToFloat32 does for n blocks of 16 pixels whose chroma is subsampled across by 2: 8 samples of cb and cr a block, each for two pixels.", 16,
		Signature{Ptrs: []string{"red", "green", "blue", "y", "cb", "cr", "scale", "bias"}, Ints: []string{"n"}}},
	{"ycbcr420ToFloat32", "does what ycbcr422ToFloat32 does for two rows of pixels that share their chroma samples: the second row's luma at y+yStride, its values at red+below, green+below and blue+below.", 16,
		Signature{Ptrs: []string{"red", "green", "blue", "y", "cb", "cr", "scale", "bias"}, Ints: []string{"n", "below", "yStride"}}},
}

// A PixelSet is the pixel kernels written for one ISA, and the tiers that
// run them.
type PixelSet struct {
	ISA     ISA      // the kernels' ISA: their names end with it
	Kernels []string // the Pixels it has, by Name; nil for all of them
	// Tiers are the ISAs whose tiers run the set; what it lacks, they
	// take from the set of their Base.
	Tiers []ISA
}

// Has reports whether the set has the pixel kernel of that name.
func (s PixelSet) Has(name string) bool {
	return s.Kernels == nil || slices.Contains(s.Kernels, name)
}

// PixelSets are the pixel kernels of each ISA. AVX-512 has only the
// kernels that beat AVX2's by a measure (Zen 4, one goroutine, a row in
// the first-level cache: ycbcr422ToFloat32 1.10-1.17 times AVX2's speed,
// ycbcrToFloat32 1.05-1.11, toFloat16 1.18-1.20); its toFloat32 (1.01)
// and toBytes (1.02-1.07) did not earn their bytes, and the byte
// shuffles are bound by memory.
var PixelSets = []PixelSet{
	{ISA: "AVX2", Tiers: []ISA{"AVX2"}},
	{ISA: "AVX512BW", Kernels: []string{"toFloat16", "ycbcrToFloat32", "ycbcr422ToFloat32", "ycbcr420ToFloat32"}, Tiers: []ISA{"AVX512BW", "AVX512VBMI"}},
	{ISA: "NEON", Tiers: []ISA{"NEON"}},
}
