package engine

import (
	"github.com/blockshuffle/blockshuffle/internal/memo"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Slot is the slot of memo.Recent a call's prepared plan takes.
func Slot(op shape.Op, p shape.Params, elem int) uint64 {
	return hash(op, &p, elem) % memo.RecentSlots
}
