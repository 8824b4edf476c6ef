package transpose_test

import (
	"math/rand/v2"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/transpose"
	"github.com/blockshuffle/blockshuffle/internal/verify"
)

// TestGeneralTiers runs random transposes, planned with the kernels of
// every tier this machine runs, against the naive one: 100,000 of
// randomTranspose's shapes and 20,000 with matrices of tile size and more.
func TestGeneralTiers(t *testing.T) {
	count := 100_000
	if testing.Short() {
		count = 5_000
	}
	for _, tier := range verify.Tiers() {
		k := engine.Lookup(tier.Name).Kernels
		transpose.CheckGeneral(t, tier.Name, k, count, rand.New(rand.NewPCG(33, 1)), transpose.RandomTranspose)
		transpose.CheckGeneral(t, tier.Name, k, count/5, rand.New(rand.NewPCG(34, 1)), transpose.RandomMatrixTranspose)
	}
}
