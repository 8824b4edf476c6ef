package shape

import (
	"math"
	"math/bits"
)

// MaxBytes is the largest tensor, in bytes, that the checks accept. On
// 64-bit platforms it is 2^57 - 1 (128 PiB, all that 57-bit virtual
// addresses reach), so that the kernels' arithmetic on a call's sizes (a
// row's length times its block, the reach of a tile's strides) keeps far
// from overflow; the kernel calls' checks (internal/simd) refuse what
// would overflow, and no size the shape checks accept may reach them.
// 32-bit platforms have no kernels: there every size that fits int.
const MaxBytes = math.MaxInt >> (6 * (bits.UintSize / 64))

// Bytes is the size in bytes of a tensor of non-negative dims and
// elements of elem bytes; ok is false where it is more than MaxBytes. A
// tensor with a zero dim has 0 bytes, however large its other dims.
func Bytes(elem int, dims ...int) (n int, ok bool) {
	n, ok = Count(dims...)
	if ok {
		n, ok = mul(n, elem)
	}
	return n, ok && n <= MaxBytes
}

// Count is the product of non-negative dims, which is 0 (not an overflow)
// when any dim is 0; ok is false if it does not fit in int.
func Count(dims ...int) (int, bool) {
	for _, d := range dims {
		if d == 0 {
			return 0, true
		}
	}
	n := 1
	for _, d := range dims {
		var ok bool
		if n, ok = mul(n, d); !ok {
			return 0, false
		}
	}
	return n, true
}

// mul multiplies non-negative ints, reporting overflow.
func mul(a, b int) (int, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt {
		return 0, false
	}
	return int(lo), true
}
