//go:build purego || !(amd64 || arm64)

package kernels

// setsUnderTest returns the kernel sets this CPU can run: none here.
func setsUnderTest() map[string]*Set { return nil }
