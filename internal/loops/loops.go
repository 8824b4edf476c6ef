// Package loops is the generic tier: pure-Go row loops for every call, the
// fallback of every SIMD tier and the only tier of the purego build.
//
// A call is split by internal/engine into an outer loop nest and these row
// loops, specialized by layout, order and the common block sizes, with no
// division per element. Any serves every element type, pointers included,
// so package generic moves strings and structs with it.
package loops

import (
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
)

func init() { engine.Register(&engine.Kit{Name: isa.Generic, Kernels: kernels{}}) }
