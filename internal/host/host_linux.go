package host

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// sysFiles reads the files of /sys and /proc the facts are in, each far
// under 64 KiB.
func sysFiles(name string) ([]byte, bool) {
	f, err := os.Open("/" + name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	return b, err == nil
}

// onCPUs reports the CPUs this process may run on, nil where Linux does
// not say.
func onCPUs() func(int) bool {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return nil
	}
	return set.IsSet
}
