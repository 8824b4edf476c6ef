package engine

// Seams for the module's tests and benchmarks, which must reach paths that
// only large tensors take. Prepared calls keep the choices made when they
// were planned, so each seam forgets every prepared call.

// SetShares sets the least work of a goroutine (256 KiB, or what one
// copies while a helper starts, probed) to n bytes, and the cores this
// process may keep busy to cores (0: as the machine says), and forgets
// the private cache (so that no call stays alone for fitting in it), so
// that tests can split small tensors and count goroutines on any machine;
// it returns a function that restores the settings.
func SetShares(n, cores int) (restore func()) {
	oldMin, oldStart, oldCores, oldCache := minWorkerBytes, startBytes, coreCount, privateCache
	minWorkerBytes, startBytes, privateCache = n, func() int { return 0 }, func() int { return 0 }
	if cores > 0 {
		coreCount = func() int { return cores }
	}
	Forget()
	return func() {
		minWorkerBytes, startBytes, coreCount, privateCache = oldMin, oldStart, oldCores, oldCache
		Forget()
	}
}

// SetPrivateCache sets one core's private cache to n bytes, which
// decides whether a call's tensors fit in it (InPrivateCache), and
// returns a function that restores it.
func SetPrivateCache(n int) (restore func()) {
	old := privateCache
	privateCache = func() int { return n }
	Forget()
	return func() { privateCache = old; Forget() }
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
