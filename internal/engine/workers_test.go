package engine

import (
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
		{16, 0, Shuffles, 0, 1, 1},
		{16, 0, Transposes, 2*minWorkerBytes - 1, 1 << 20, 1},
		{16, 0, Transposes, 2 * minWorkerBytes, 1 << 20, 1}, // two, below fewFrom
		{16, 0, Transposes, 4 * minWorkerBytes, 1 << 20, 4},
		{16, 0, Transposes, 4 * minWorkerBytes, 3, 1}, // three pieces
		{16, 0, Transposes, 2 * MiB, 3, 3},
		{16, 0, Transposes, 64 * MiB, 1 << 20, 16},
		{4, 0, Transposes, 64 * MiB, 1 << 20, 4},
		{2, 0, Transposes, 2*MiB - 1, 1 << 20, 1},
		{2, 0, Transposes, 2 * MiB, 1 << 20, 2},
		{16, 0, Shuffles, l2 / 2, 1 << 20, 1}, // fits the private cache
		{16, 0, Shuffles, max(l2/2+1, 4*minWorkerBytes), 1 << 20, max(l2/2+1, 4*minWorkerBytes) / minWorkerBytes},
		{16, 0, Shuffles, 16 * MiB, 1 << 20, 16},
		{16, 0, Shuffles, 16 * MiB, 2, 2},
		{2, 0, Shuffles, 16*MiB - 1, 1 << 20, 1},
		{2, 0, Shuffles, 16 * MiB, 1 << 20, 2},
		{4, 0, Shuffles, 8 * MiB, 1 << 20, 4},
		// explicit bounds
		{16, 1, Shuffles, 1 << 30, 1 << 20, 1},
		{16, 1 << 30, Shuffles, 512 << 10, 131072, 2},
		{2, 1 << 30, Transposes, 1 << 30, 1 << 20, 2},
		{16, 64, Shuffles, minWorkerBytes - 1, 1 << 20, 1},
		{16, 64, Shuffles, 1 << 30, 3, 3},
		{16, 2, Transposes, 1 << 30, 1 << 20, 2},
		{2, 3, Shuffles, 1 << 20, 1 << 20, 2},
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
