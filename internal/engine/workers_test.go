package engine

import (
	"runtime"
	"testing"
)

// TestAutomaticWorkers pins the worker counts: automatically, one goroutine
// below parallelMin (for a transpose, two from transposeParallelMin), so
// that Workers = 0 runs exactly the Workers = 1 path on tensors that fit
// in cache, and never more goroutines than GOMAXPROCS, one per
// bytesPerWorker, or groups; explicitly, the caps below.
func TestAutomaticWorkers(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, c := range []struct{ bytes, groups, want int }{
		{0, 1, 1},
		{1 << 10, 1000, 1},
		{parallelMin - 1, 1 << 20, 1},
		{parallelMin, 1 << 20, min(procs, parallelMin/bytesPerWorker)},
		{64 << 20, 1 << 20, min(procs, 8)},
		{64 << 20, 1, 1},
		{1 << 30, 3, min(procs, 3)},
	} {
		if got := Workers(Want(0, c.bytes, Shuffles), c.bytes, c.groups); got != c.want {
			t.Errorf("Workers(Want(0, %d), %d) = %d, want %d", c.bytes, c.groups, got, c.want)
		}
	}
	for _, c := range []struct{ bytes, want int }{
		{transposeParallelMin - 1, 1}, {transposeParallelMin, 2}, {parallelMin - 1, 2}, {parallelMin, 2}, {64 << 20, 8},
	} {
		if got := Want(0, c.bytes, Transposes); got != c.want {
			t.Errorf("Want(0, %d, Transposes) = %d, want %d", c.bytes, got, c.want)
		}
	}
	// Explicit counts are bounds: never more than GOMAXPROCS, one goroutine
	// per minWorkerBytes, or one per group.
	for _, c := range []struct{ requested, bytes, groups, want int }{
		{1, 1 << 30, 1 << 20, 1},
		{1 << 30, 512 << 10, 131072, min(procs, 2)},
		{1 << 30, 1 << 30, 1 << 20, procs},
		{64, minWorkerBytes - 1, 1 << 20, 1},
		{64, 1 << 30, 3, min(procs, 3)},
		{2, 1 << 30, 1 << 20, min(procs, 2)},
	} {
		if got := Workers(c.requested, c.bytes, c.groups); got != c.want {
			t.Errorf("Workers(%d, %d, %d) = %d, want %d", c.requested, c.bytes, c.groups, got, c.want)
		}
	}
}
