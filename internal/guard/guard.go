// Package guard places byte slices against inaccessible pages, so that any
// read or write past either end faults. The tests of every kernel run their
// inputs and outputs in such slices, as Go's bytes package tests its
// assembly.
package guard

// Region is guarded memory reused from call to call. The guard-page tests
// place tens of thousands of buffers; mapping each one afresh cost more
// than the kernels under test, and far more under emulation, where every
// mapping change and page fault runs the guest kernel instruction by
// instruction. The zero Region is ready to use; it is not safe for
// concurrent use.
type Region struct {
	mem  []byte // inaccessible page, data pages, inaccessible page
	page int
}

// Slices returns two views of n bytes: front starts right after an
// inaccessible page, back ends right before one. They share memory, and
// the next call to Slices or Release invalidates both. ok is false where
// the platform cannot map guarded memory.
func (r *Region) Slices(n int) (front, back []byte, ok bool) {
	if !r.fits(n) && !r.grow(n) {
		return nil, nil, false
	}
	end := len(r.mem) - r.page
	front = r.mem[r.page : r.page+n : r.page+n]
	back = r.mem[end-n : end : end]
	return front, back, true
}

// fits reports whether the data pages hold n bytes.
func (r *Region) fits(n int) bool {
	return r.mem != nil && len(r.mem)-2*r.page >= n
}

// Release unmaps the region; a later Slices maps it again.
func (r *Region) Release() {
	if r.mem != nil {
		unmap(r.mem)
		r.mem = nil
	}
}
