//go:build !linux

package host

import "io/fs"

// sysFS is nil: only Linux says which CPUs are siblings, and what a
// cgroup allows.
var sysFS fs.FS

func onCPUs() func(int) bool { return nil }
