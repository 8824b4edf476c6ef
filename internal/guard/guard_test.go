//go:build linux || darwin

package guard

import (
	"runtime/debug"
	"testing"
	"unsafe"
)

// faults reports whether reading the byte at p faults.
func faults(p unsafe.Pointer) (faulted bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() { faulted = recover() != nil }()
	_ = *(*byte)(p)
	return false
}

// TestRegionGuards checks, as the region grows and shrinks its views, that
// every byte of both views is usable and the byte just outside each
// guarded end faults.
func TestRegionGuards(t *testing.T) {
	var r Region
	defer r.Release()
	for _, n := range []int{1, 7, 4096, 4097, 100, 3 * 4096, 5} {
		front, back, ok := r.Slices(n)
		if !ok {
			t.Fatal("no guarded memory")
		}
		if len(front) != n || len(back) != n || cap(front) != n || cap(back) != n {
			t.Fatalf("n=%d: views of %d and %d bytes (caps %d, %d)", n, len(front), len(back), cap(front), cap(back))
		}
		for i := range front {
			front[i], back[i] = byte(i), byte(i)
		}
		if !faults(unsafe.Add(unsafe.Pointer(&front[0]), -1)) {
			t.Fatalf("n=%d: the byte before front is readable", n)
		}
		if !faults(unsafe.Add(unsafe.Pointer(&back[n-1]), 1)) {
			t.Fatalf("n=%d: the byte after back is readable", n)
		}
	}
}
