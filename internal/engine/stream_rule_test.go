package engine

import (
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// TestStreamFrom pins the rule that derives the streaming threshold from
// the last-level cache.
func TestStreamFrom(t *testing.T) {
	for _, c := range []struct{ llc, want int }{
		{0, 8 << 20},         // the CPU does not say: taken as 32 MiB
		{2 << 20, 1 << 20},   // small caches: where memmove starts
		{8 << 20, 2 << 20},   // Zen 1 core complex
		{32 << 20, 8 << 20},  // Zen 5 CCD
		{48 << 20, 12 << 20}, // the most counted (isa.maxLast): Xeon VMs reporting 300 and 480 MiB
	} {
		if got := streamFrom(c.llc); got != c.want {
			t.Errorf("streamFrom(%d MiB) = %d KiB, want %d KiB", c.llc>>20, got>>10, c.want>>10)
		}
	}
}

// TestStreamsPagedTiles: paged tiles stream wherever tiles do, and on the
// CPUs isa.EarlyTileStreams names from just beyond the private cache,
// never within it; tiles stream there from where rows do.
func TestStreamsPagedTiles(t *testing.T) {
	in, out := privateCache()/2, privateCache()/2+1
	if Streams(PagedTiles, in) {
		t.Errorf("paged tiles of %d bytes stream within the private cache", in)
	}
	if got := Streams(PagedTiles, out); got != (isa.EarlyTileStreams() || Streams(Tiles, out)) {
		t.Errorf("paged tiles of %d bytes: streams %v, isa.EarlyTileStreams %v", out, got, isa.EarlyTileStreams())
	}
	if got, want := Streams(Tiles, streamMin()), isa.EarlyTileStreams(); got != want {
		t.Errorf("tiles of streamMin bytes: streams %v, isa.EarlyTileStreams %v", got, want)
	}
	for _, n := range []int{out, 2 * streamMin(), 1 << 30} {
		if Streams(Tiles, n) && !Streams(PagedTiles, n) {
			t.Errorf("%d bytes: tiles stream, paged tiles do not", n)
		}
	}
}

// TestStreamsCrowdedTiles: tiles whose dst rows crowd two L1 sets stream
// as paged ones where isa.CrowdedStreams says, and as other tiles
// elsewhere.
func TestStreamsCrowdedTiles(t *testing.T) {
	for _, n := range []int{privateCache() / 2, privateCache()/2 + 1, streamMin(), 2 * streamMin()} {
		want := Streams(Tiles, n)
		if isa.CrowdedStreams() {
			want = Streams(PagedTiles, n)
		}
		if got := Streams(CrowdedTiles, n); got != want {
			t.Errorf("crowded tiles of %d bytes: streams %v, want %v (isa.CrowdedStreams %v)", n, got, want, isa.CrowdedStreams())
		}
	}
}
