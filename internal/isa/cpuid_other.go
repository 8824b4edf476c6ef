//go:build !amd64 || !gc || purego

package isa

// x86Model knows no model where it has no CPUID to ask.
func x86Model() (vendor string, family int) { return "", 0 }

// cpuidFunc is nil: cacheSize has nothing to ask.
var cpuidFunc cpuidFn
