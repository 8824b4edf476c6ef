package engine

import (
	"math"
	"runtime"
	"testing"
	"time"
)

// TestAutomaticWorkers pins the policy at GOMAXPROCS 2, 4 and 16 on 16
// cores and on 4: one goroutine per minWorkerBytes up to GOMAXPROCS, the
// cores and the pieces; none but the caller's below two shares, or for
// calls whose tensors fit in the private cache; an explicit bound caps the
// count and overrides the exception and the cores.
func TestAutomaticWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer func(c, s, p func() int) { coreCount, startBytes, privateCache = c, s, p }(coreCount, startBytes, privateCache)
	startBytes = func() int { return minWorkerBytes / 2 } // a bare-metal server's
	const MiB = 1 << 20
	for _, c := range []struct {
		procs, cores, bound int
		w                   Work
		bytes               int
		pieces              int
		want                int
	}{
		{16, 16, 0, Rows, 0, 1, 1},
		{16, 16, 0, Tiles, 2*minWorkerBytes - 1, 1 << 20, 1},
		{16, 16, 0, Tiles, 2 * minWorkerBytes, 1 << 20, 2},
		{16, 16, 0, Tiles, 4 * minWorkerBytes, 1 << 20, 4},
		{16, 16, 0, Tiles, 4 * minWorkerBytes, 3, 3}, // three pieces
		{16, 16, 0, Tiles, 64 * MiB, 1 << 20, 16},
		{16, 4, 0, Tiles, 64 * MiB, 1 << 20, 4}, // four cores: SMT siblings, or a quota
		{4, 16, 0, Tiles, 64 * MiB, 1 << 20, 4},
		{2, 16, 0, Tiles, 2 * minWorkerBytes, 1 << 20, 2},
		{16, 16, 0, Rows, 16 * MiB, 1 << 20, 16},
		{16, 16, 0, Rows, 16 * MiB, 2, 2},
		{2, 16, 0, Rows, 16 * MiB, 1 << 20, 2},
		{4, 16, 0, Rows, 8 * MiB, 1 << 20, 4},
		// explicit bounds
		{16, 16, 1, Rows, 1 << 30, 1 << 20, 1},
		{16, 16, 1 << 30, Rows, 512 << 10, 131072, 2},
		{2, 16, 1 << 30, Tiles, 1 << 30, 1 << 20, 2},
		{16, 16, 64, Rows, minWorkerBytes - 1, 1 << 20, 1},
		{16, 16, 64, Rows, 1 << 30, 3, 3},
		{16, 16, 2, Tiles, 1 << 30, 1 << 20, 2},
		{2, 16, 3, Rows, 1 << 20, 1 << 20, 2},
		{16, 4, 8, Rows, 1 << 30, 1 << 20, 8}, // a bound past the cores
	} {
		runtime.GOMAXPROCS(c.procs)
		coreCount = func() int { return c.cores }
		privateCache = func() int { return 256 << 10 } // no call of two shares fits
		q := WantOf(c.bound, c.w)
		got := q.Workers(c.bytes, c.pieces)
		if got != c.want {
			t.Errorf("GOMAXPROCS %d, %d cores, WantOf(%d, %d).Workers(%d, %d) = %d, want %d", c.procs, c.cores, c.bound, c.w, c.bytes, c.pieces, got, c.want)
		}
		if got > 1 && !q.Splits(c.bytes) {
			t.Errorf("WantOf(%d, %d) runs %d bytes on %d goroutines but does not split them", c.bound, c.w, c.bytes, got)
		}
	}
	// Rows and tiles alike stay alone where both tensors fit the cache.
	runtime.GOMAXPROCS(16)
	coreCount = func() int { return 16 }
	const l2 = 2 * MiB
	privateCache = func() int { return l2 }
	for _, w := range []Work{Rows, Tiles} {
		for bytes, want := range map[int]int{l2 / 2: 1, l2/2 + 1: (l2/2 + 1) / minWorkerBytes} {
			if got := WantOf(0, w).Workers(bytes, 1<<20); got != want {
				t.Errorf("work %d, %d bytes, private cache %d: %d goroutines, want %d", w, bytes, l2, got, want)
			}
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

// TestSlowHelpers: where a helper takes long to start (startBytes: 4 MiB
// copied meanwhile, as on a VM), automatic calls of rows split from 4 MiB,
// one goroutine per 2 MiB, and of tiles, which one goroutine moves at half
// of copy()'s speed, from half that; an explicit bound does not wait for
// the probe.
func TestSlowHelpers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	defer func(c, s, p func() int) { coreCount, startBytes, privateCache = c, s, p }(coreCount, startBytes, privateCache)
	const MiB = 1 << 20
	coreCount = func() int { return 16 }
	startBytes = func() int { return 4 * MiB }
	privateCache = func() int { return 1 * MiB }
	for _, c := range []struct {
		w                  Work
		bound, bytes, want int
	}{
		{Rows, 0, max(4*MiB-1, privateCache()), 1},
		{Rows, 0, 4 * MiB, 2},
		{Rows, 0, 6 * MiB, 3},
		{Rows, 0, 64 * MiB, 16},
		{Tiles, 0, 2*MiB - 1, 1},
		{Tiles, 0, 2 * MiB, 2},
		{Tiles, 0, 64 * MiB, 16},
		{Tiles, 0, 10 * MiB, 10},
		{Tiles, 2, 1 * MiB, 2},
		{Rows, 16, 4 * MiB, 16},
	} {
		q := WantOf(c.bound, c.w)
		if got := q.Workers(c.bytes, 1<<20); got != c.want {
			t.Errorf("work %d, bound %d, %d bytes: %d goroutines, want %d", c.w, c.bound, c.bytes, got, c.want)
		}
		if q.Splits(c.bytes) != (c.want > 1) {
			t.Errorf("work %d, bound %d, %d bytes: Splits is %v", c.w, c.bound, c.bytes, q.Splits(c.bytes))
		}
	}
}

// TestProbe: the probe ends, bounded, and measures something.
func TestProbe(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	start := time.Now()
	n := probe()
	t.Logf("a helper starts in the time one goroutine copies %d KiB; probed in %v", n>>10, time.Since(start))
	if n < 0 || n > probeCap {
		t.Errorf("probe: %d bytes", n)
	}
}
