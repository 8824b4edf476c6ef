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

// Tier is the generic tier: word kernels for the fixed widths, and the
// unit-by-unit kernels for every other element size.
var Tier = &engine.Impl{
	Tier:  isa.Generic,
	W1:    wordKernels[uint8]{},
	W2:    wordKernels[uint16]{},
	W4:    wordKernels[uint32]{},
	W8:    wordKernels[uint64]{},
	W16:   wordKernels[[2]uint64]{},
	Units: Any[byte]{},
}

func init() { engine.Register(Tier) }
