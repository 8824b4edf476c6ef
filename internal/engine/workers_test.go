package engine

import (
	"math"
	"runtime"
	"testing"
)

// TestAutomaticWorkers pins the policy at GOMAXPROCS 2, 4 and 16: one
// goroutine per minWorkerBytes up to GOMAXPROCS and the pieces; none but
// the caller's below two shares, for an operator whose tensors fit in the
// private cache, or where two or three would run below fewFrom; an
// explicit bound caps the count and overrides the exceptions.
func TestAutomaticWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	l2 := privateCache()
	const MiB = 1 << 20
	for _, c := range []struct {
		procs, bound int
		w            Work
		bytes        int
		pieces       int
		want         int
	}{
		{16, 0, Rows, 0, 1, 1},
		{16, 0, Tiles, 2*minWorkerBytes - 1, 1 << 20, 1},
		{16, 0, Tiles, 2 * minWorkerBytes, 1 << 20, 1}, // two, below fewFrom
		{16, 0, Tiles, 4 * minWorkerBytes, 1 << 20, 4},
		{16, 0, Tiles, 4 * minWorkerBytes, 3, 1}, // three pieces
		{16, 0, Tiles, 2 * MiB, 3, 3},
		{16, 0, Tiles, 64 * MiB, 1 << 20, 16},
		{4, 0, Tiles, 64 * MiB, 1 << 20, 4},
		{2, 0, Tiles, 2*MiB - 1, 1 << 20, 1},
		{2, 0, Tiles, 2 * MiB, 1 << 20, 2},
		{16, 0, Rows, l2 / 2, 1 << 20, 1}, // fits the private cache
		{16, 0, Rows, max(l2/2+1, 4*minWorkerBytes), 1 << 20, max(l2/2+1, 4*minWorkerBytes) / minWorkerBytes},
		{16, 0, Rows, 16 * MiB, 1 << 20, 16},
		{16, 0, Rows, 16 * MiB, 2, 2},
		{2, 0, Rows, 16*MiB - 1, 1 << 20, 1},
		{2, 0, Rows, 16 * MiB, 1 << 20, 2},
		{4, 0, Rows, 8 * MiB, 1 << 20, 4},
		// explicit bounds
		{16, 1, Rows, 1 << 30, 1 << 20, 1},
		{16, 1 << 30, Rows, 512 << 10, 131072, 2},
		{2, 1 << 30, Tiles, 1 << 30, 1 << 20, 2},
		{16, 64, Rows, minWorkerBytes - 1, 1 << 20, 1},
		{16, 64, Rows, 1 << 30, 3, 3},
		{16, 2, Tiles, 1 << 30, 1 << 20, 2},
		{2, 3, Rows, 1 << 20, 1 << 20, 2},
	} {
		runtime.GOMAXPROCS(c.procs)
		q := WantOf(c.bound, c.w)
		got := q.Workers(c.bytes, c.pieces)
		if got != c.want {
			t.Errorf("GOMAXPROCS %d, WantOf(%d, %d).Workers(%d, %d) = %d, want %d", c.procs, c.bound, c.w, c.bytes, c.pieces, got, c.want)
		}
		if got > 1 && !q.Splits(c.bytes) {
			t.Errorf("WantOf(%d, %d) runs %d bytes on %d goroutines but does not split them", c.bound, c.w, c.bytes, got)
		}
	}
}

// TestShare: shares cover the total in order, differ by at most one unit,
// and never overflow, for totals up to the largest int.
func TestShare(t *testing.T) {
	for _, total := range []int{0, 1, 7, 4096, math.MaxInt / 3, math.MaxInt - 1, math.MaxInt} {
		for _, n := range []int{1, 2, 3, 4096} {
			if Share(0, n, total) != 0 || Share(n, n, total) != total {
				t.Fatalf("Share of %d in %d: from %d to %d", total, n, Share(0, n, total), Share(n, n, total))
			}
			for i := range n {
				if d := Share(i+1, n, total) - Share(i, n, total) - total/n; d != 0 && d != 1 {
					t.Fatalf("share %d of %d of %d: %d units past total/n", i, n, total, d)
				}
			}
		}
	}
}
