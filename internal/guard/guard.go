// Package guard allocates byte slices whose first or last byte touches an
// inaccessible page, so that any read or write past either end faults. The
// tests of every kernel run their inputs and outputs in such slices, as Go's
// bytes package tests its assembly.
package guard

// Slices returns two views of n bytes: one starting right after an
// inaccessible page, one ending right before one. release unmaps them.
// ok is false where the platform cannot map guarded memory.
func Slices(n int) (front, back []byte, release func(), ok bool) {
	return slices(n)
}
