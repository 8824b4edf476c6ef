package engine

import "github.com/blockshuffle/blockshuffle/internal/shape"

// Slot is the front slot of the cache that request r on tier t takes.
func Slot(t *Kit, r *shape.Request) uint64 { return hash(headOf(t.id, r), r) % frontSlots }
