package engine

import (
	"testing"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// TestBinder: a bound call finds its slices at the same places in the
// tensors of a later call, on the side of its op, and keeps memory of its
// own as it is; a call that no kernel or more than one kernel set is not
// bound.
func TestBinder(t *testing.T) {
	dst, src := make([]byte, 64), make([]byte, 64)
	table := make([]byte, 8)
	b := newBinder(shape.SpaceToDepth, dst, src) // space is src
	inSpace, inDepth, own := b.Ref(src[5:20]), b.Ref(dst[40:64]), b.Ref(table)
	if b.bound(shape.SpaceToDepth) != nil {
		t.Fatal("bound before any kernel set it")
	}
	var got [3][]byte
	b.Set(func(space, depth []byte) {
		got = [3][]byte{inSpace.In(space, depth), inDepth.In(space, depth), own.In(space, depth)}
	})
	dst2, src2 := make([]byte, 64), make([]byte, 64)
	b.bound(shape.SpaceToDepth)(dst2, src2)
	same := func(s, at []byte, n int) bool {
		return len(s) == n && unsafe.SliceData(s) == unsafe.SliceData(at)
	}
	if !same(got[0], src2[5:], 15) || !same(got[1], dst2[40:], 24) || !same(got[2], table, 8) {
		t.Errorf("bound slices at the wrong places: %p %p %p", got[0], got[1], got[2])
	}
	b.Set(func(space, depth []byte) {})
	if b.bound(shape.SpaceToDepth) != nil {
		t.Error("a call of two kernel calls bound")
	}
}
