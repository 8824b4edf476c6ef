package table

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

// Pixels lists the pixel kernels. Every ISA of PixelISAs has all of them;
// the others use their Base's.
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
}

// PixelISAs are the ISAs with pixel kernels of their own: AVX2 and NEON.
// The AVX-512 tiers run AVX2's, as their Base: these passes are bound by
// the memory they write, and wider registers would add bytes, not speed.
var PixelISAs = []ISA{"AVX2", "NEON"}
