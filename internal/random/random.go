// Package random fills test buffers with pseudo-random bytes, eight from
// each draw: filled a byte at a time, the buffers of the kernel tests took
// more time than the kernels, most of all under emulation.
package random

import (
	"encoding/binary"
	"math/rand/v2"
)

// Fill overwrites b with bytes drawn from rng.
func Fill(rng *rand.Rand, b []byte) {
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, rng.Uint64())
		b = b[8:]
	}
	if len(b) > 0 {
		v := rng.Uint64()
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
	}
}

// Bytes returns n bytes drawn from rng.
func Bytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	Fill(rng, b)
	return b
}
