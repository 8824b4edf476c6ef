package generic

// SetStreamMin sets the size from which kernels may stream their output,
// for benchmarks, and returns a function that restores it.
func SetStreamMin(n int) (restore func()) {
	old := streamMin
	streamMin = n
	return func() { streamMin = old }
}
