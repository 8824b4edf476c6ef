package engine

// Seams for the module's tests and benchmarks, which must reach paths that
// only large tensors take. Prepared calls keep the choices made when they
// were planned, so each seam forgets every prepared call.

// SetMinWorkerBytes sets the work below which a call adds no goroutine
// (256 KiB), so that tests can split small tensors; it returns a function
// that restores the setting.
func SetMinWorkerBytes(n int) (restore func()) {
	old := minWorkerBytes
	minWorkerBytes = n
	Forget()
	return func() { minWorkerBytes = old; Forget() }
}

// SetStreamMin sets the tensor size from which kernels may write with
// non-temporal stores (a quarter of the CPU's last-level cache), and
// returns a function that restores it.
func SetStreamMin(n int) (restore func()) {
	old := streamMin
	streamMin = func() int { return n }
	Forget()
	return func() { streamMin = old; Forget() }
}
