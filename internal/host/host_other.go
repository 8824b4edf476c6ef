//go:build !linux

package host

// sysFiles is nil: only Linux says which CPUs are siblings, and what a
// cgroup allows.
var sysFiles Files

func onCPUs() func(int) bool { return nil }
