package kernels

import "golang.org/x/sys/cpu"

// halfFloats reports whether the CPU converts to float16 (F16C), which
// every AVX2 CPU made has but no feature bit of AVX2 promises.
func halfFloats() bool { return cpu.X86.HasF16C }
