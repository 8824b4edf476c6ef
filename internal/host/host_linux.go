package host

import (
	"os"

	"golang.org/x/sys/unix"
)

// sysFS is the root directory, where Linux shows /sys and /proc.
var sysFS = os.DirFS("/")

// onCPUs reports the CPUs this process may run on, nil where Linux does
// not say.
func onCPUs() func(int) bool {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return nil
	}
	return set.IsSet
}
