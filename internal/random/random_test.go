package random

import (
	"math/rand/v2"
	"testing"
)

// TestFillCoversEveryByte checks that every byte of buffers of every length
// around the 8-byte step takes many values, which a fill that skipped the
// tail or repeated a draw would not.
func TestFillCoversEveryByte(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 17; n++ {
		seen := make([]map[byte]bool, n)
		for i := range seen {
			seen[i] = map[byte]bool{}
		}
		for range 1000 {
			for i, v := range Bytes(rng, n) {
				seen[i][v] = true
			}
		}
		for i, s := range seen {
			if len(s) < 230 {
				t.Fatalf("n=%d: byte %d took only %d values", n, i, len(s))
			}
		}
	}
}
