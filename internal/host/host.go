// Package host reads what the machine offers a call that could run on
// several goroutines: how many cores this process may keep busy at once.
// The engine's parallel policy weighs it with GOMAXPROCS, which may change
// and is read when a call runs, and with the caches the CPU reports
// (internal/isa).
package host

import (
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Cores is how many cores this process may keep busy at once: the CPUs it
// may run on (runtime.NumCPU, its affinity at start-up), counted once per
// physical core where the OS says which CPUs are SMT siblings of one core,
// and no more than its cgroup's CPU quota, where one is set. Memory-bound
// work gains nothing from a core's second thread: the two share its load
// and store ports and its private cache.
func Cores() int { return Machine().Cores }

// Machine is what this machine says, read once, on the first call that
// asks (a few files of /sys and /proc on Linux: 30 µs).
var Machine = sync.OnceValue(func() Facts { return Read(sysFiles, runtime.NumCPU(), onCPUs()) })

// Facts are what Cores is made of.
type Facts struct {
	CPUs     int     // the CPUs this process may run on
	Siblings int     // of the first of them, itself included, that it may run on: 1 where the OS does not say
	Quota    float64 // CPUs' worth of time the cgroup allows; 0: no quota, or none found
	Cores    int     // what Cores returns
}

// Files reads a file of the root directory, named by its path without
// the leading slash ("proc/self/cgroup"); false where it cannot. (Not an
// fs.FS: an fs.FileInfo in an interface links time's formatting and
// time zones, 150 KB of every importer's binary.)
type Files func(name string) ([]byte, bool)

// Read reads the facts from files (nil: none): cpus is runtime.NumCPU,
// and mine reports whether this process may run on a CPU (nil: on all of
// them).
func Read(files Files, cpus int, mine func(cpu int) bool) Facts {
	f := Facts{CPUs: max(cpus, 1), Siblings: 1}
	if files != nil {
		f.Siblings = siblings(files, mine)
		f.Quota = quota(files)
	}
	f.Cores = (f.CPUs + f.Siblings - 1) / f.Siblings
	if f.Quota > 0 {
		f.Cores = min(f.Cores, int(math.Ceil(f.Quota)))
	}
	f.Cores = max(f.Cores, 1)
	return f
}

// siblings counts the SMT siblings of the first CPU this process may run
// on, itself included, among the CPUs it may run on (Linux's
// thread_siblings_list): a process bound to one thread of each core counts
// every CPU as a core.
func siblings(files Files, mine func(int) bool) int {
	first := 0
	for mine != nil && first < 4096 && !mine(first) {
		first++
	}
	b, ok := files("sys/devices/system/cpu/cpu" + strconv.Itoa(first) + "/topology/thread_siblings_list")
	if !ok {
		return 1
	}
	n := 0
	for _, cpu := range parseList(strings.TrimSpace(string(b))) {
		if mine == nil || mine(cpu) {
			n++
		}
	}
	return max(n, 1)
}

// parseList parses a Linux CPU list ("0-3,8,10-11"); nil where it is not
// one. It lists at most 4096 CPUs.
func parseList(s string) []int {
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil
			}
		}
		for c := a; c <= b && len(out) < 4096; c++ {
			out = append(out, c)
		}
	}
	return out
}

// quota is the CPU quota of this process's cgroup, in CPUs' worth of
// time, or 0: cgroup v2's cpu.max ("200000 100000", or "max ..."), else
// v1's cpu.cfs_quota_us over cpu.cfs_period_us (-1: none), looked up in
// the cgroup /proc/self/cgroup names and, inside a container whose
// cgroup namespace hides its path, at the cgroup root.
func quota(files Files) float64 {
	b, ok := files("proc/self/cgroup")
	if !ok {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.SplitN(line, ":", 3)
		if len(fields) != 3 {
			continue
		}
		path := strings.Trim(fields[2], "/")
		if fields[0] == "0" && fields[1] == "" { // v2
			for _, dir := range []string{"sys/fs/cgroup/" + path, "sys/fs/cgroup"} {
				if q := ratio(files, dir+"/cpu.max", ""); q > 0 {
					return q
				}
			}
			continue
		}
		for _, c := range strings.Split(fields[1], ",") {
			if c != "cpu" {
				continue
			}
			for _, dir := range []string{"sys/fs/cgroup/" + fields[1] + "/" + path, "sys/fs/cgroup/cpu/" + path, "sys/fs/cgroup/cpu"} {
				if q := ratio(files, dir+"/cpu.cfs_quota_us", dir+"/cpu.cfs_period_us"); q > 0 {
					return q
				}
			}
		}
	}
	return 0
}

// ratio reads a quota and a period: both in the file quota (cgroup v2),
// or each in its own file (v1); 0 where there is no quota.
func ratio(files Files, quota, period string) float64 {
	f := words(files, quota)
	if period != "" {
		f = append(f, words(files, period)...)
	}
	if len(f) != 2 {
		return 0
	}
	q, err1 := strconv.Atoi(f[0]) // "max" or -1: no quota; microseconds, whole
	p, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0
	}
	return float64(q) / float64(p)
}

// words are the words of a file, none where it cannot be read.
func words(files Files, name string) []string {
	b, ok := files(name)
	if !ok {
		return nil
	}
	return strings.Fields(string(b))
}
