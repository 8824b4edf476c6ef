//go:build !amd64

package kernels

// halfFloats reports whether the CPU converts to float16: every arm64 CPU
// does (FCVTN).
func halfFloats() bool { return true }
