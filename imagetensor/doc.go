// Package imagetensor moves Go images into tensors and back: the data
// movement on either side of a vision model. FromImage writes an image's
// pixels as a model's input, [C, H, W] (NCHW) or [H, W, C] (NHWC), in
// float32 or float16 normalized by a per-channel mean and standard
// deviation, or in uint8; ToImage writes a model's output back into an
// image, rounded and clamped. Both read the pixel slices of Go's image
// types directly (RGBA, NRGBA, Gray, YCbCr as image/jpeg decodes it, and
// their 16-bit kin), a row at a time, never a call per pixel but for
// image types they do not know.
//
// On the SIMD tiers blockshuffle chooses (AVX2, AVX-512, NEON) the rows go
// through kernels of their own: deinterleaving, conversion, scaling and
// image/color's YCbCr arithmetic in one or two passes per chunk of a row,
// the same bits as the pure-Go path of the generic tier. The package is
// apart from blockshuffle so that programs that do not convert images pay
// nothing for it, kernels included, in binary size.
//
// # Arithmetic, to the bit
//
// Each channel c has two float32 coefficients, computed once in float64
// and rounded to float32: scale = 1/(255·std) and bias = −mean/std, where
// std is o.Std[c] (1 where o.Std is zero) and mean o.Mean[c]. A pixel value
// v (0 to 255) becomes
//
//	x = float32(float32(v)·scale) + bias
//
// the product rounded to float32 before the sum: no fused multiply-add,
// on any platform. A float16 element is x rounded to the nearest float16,
// ties to even. x is within 2⁻²²·(v/(255·|std|) + |mean/std|) of the
// exact (v/255 − mean)/std; without normalization, v/255 is v times the
// float32 nearest 1/255, within 2⁻²³·v/255 of v/255.
//
// ToImage inverts with unscale = 255·std and unbias = 255·mean, rounded to
// float32 the same way:
//
//	v = float32(x·unscale) + unbias
//
// then rounded to the nearest integer, ties to even, and clamped to
// [0, 255], NaN to 0. It differs from rounding the exact (x·std + mean)·255
// only where that lies within 2⁻²²·(|255·x·std| + |255·mean|) of a
// half-integer.
package imagetensor
