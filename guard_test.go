package blockshuffle_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/cases"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/guard"
	"github.com/blockshuffle/blockshuffle/internal/random"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/verify"
)

// TestGuardPages runs whole calls of every tier with src and dst placed
// against inaccessible pages, on shapes whose rows straddle vector sizes:
// the plan, the slicing and the kernels together must stay inside both
// slices.
func TestGuardPages(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var all []shape.Geometry
	for _, b := range []int{2, 3, 4, 8} {
		for w := 1; w <= 34; w++ {
			if w <= 9 || w >= 14 && w <= 18 || w >= 30 { // around 8, 16 and 32 bytes of 1-byte rows
				all = append(all, cases.All(1+w%2, 1+w%4, 1+w%3, w, b)...)
			}
		}
	}
	var srcMem, dstMem guard.Region
	defer srcMem.Release()
	defer dstMem.Release()
	// One subtest a tier and width: under Bochs, where this test is a long
	// silence of the serial log, each prints its name as it starts.
	for _, tier := range verify.Tiers() {
		// Negative: streaming, as large tensors are written. 3, 5 and 12
		// bytes: elements of several words, which take the lane kernels
		// of runs, two passes as transposes, or the Go loops' arrays.
		for _, es := range []int{1, 2, 3, 4, 5, 8, 12, 16, -4, -8} {
			name := fmt.Sprintf("%s/%dB", tier.Name, es)
			if es < 0 {
				name = fmt.Sprintf("%s/%dB-streaming", tier.Name, -es)
			}
			t.Run(name, func(t *testing.T) {
				if es < 0 {
					es = -es
					defer engine.SetStreamMin(0)()
				}
				for _, c := range all {
					n := c.Len() * es
					src0, src1, ok := srcMem.Slices(n)
					dst0, dst1, _ := dstMem.Slices(n)
					if !ok {
						t.Skip("no guarded memory on this platform")
					}
					c.Elem = es
					for _, b := range [][2][]byte{{src0, dst0}, {src1, dst1}} {
						random.Fill(rng, b[0])
						verify.Check(t, tier.Name, tier.Run, &c, b[1], b[0])
					}
				}
			})
		}
	}
}
