package host

import (
	"maps"
	"slices"
	"testing"
	"time"
)

func TestParseList(t *testing.T) {
	for s, want := range map[string][]int{
		"0":           {0},
		"0-3":         {0, 1, 2, 3},
		"0,8":         {0, 8},
		"2-3,10-11,5": {2, 3, 10, 11, 5},
		"":            nil,
		"3-1":         nil,
		"a":           nil,
		"-1":          nil,
	} {
		if got := parseList(s); !slices.Equal(got, want) {
			t.Errorf("parseList(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestRead: siblings, affinity and quotas, as Linux hosts and containers
// show them.
func TestRead(t *testing.T) {
	smt := func(list string) map[string]string {
		return map[string]string{
			"sys/devices/system/cpu/cpu0/topology/thread_siblings_list": list + "\n",
			"sys/devices/system/cpu/cpu1/topology/thread_siblings_list": "1,17\n",
		}
	}
	with := func(files ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, f := range files {
			maps.Copy(out, f)
		}
		return out
	}
	odd := func(cpu int) bool { return cpu%2 == 1 }
	low := func(cpu int) bool { return cpu < 16 }
	v2 := map[string]string{"proc/self/cgroup": "0::/kubepods/pod1\n", "sys/fs/cgroup/kubepods/pod1/cpu.max": "250000 100000\n"}
	v2root := map[string]string{"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cpu.max": "max 100000\n"}
	v1 := map[string]string{"proc/self/cgroup": "12:memory:/x\n3:cpu,cpuacct:/docker/abc\n",
		"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "150000\n", "sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n"}
	v1none := map[string]string{"proc/self/cgroup": "3:cpu:/\n", "sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1\n", "sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n"}
	for _, c := range []struct {
		name string
		fsys map[string]string
		cpus int
		mine func(int) bool
		want Facts
	}{
		{"no files", map[string]string{}, 8, nil, Facts{CPUs: 8, Siblings: 1, Cores: 8}},
		{"no SMT", smt("0"), 8, nil, Facts{CPUs: 8, Siblings: 1, Cores: 8}},
		{"SMT", smt("0,16"), 32, nil, Facts{CPUs: 32, Siblings: 2, Cores: 16}},
		{"SMT, pairs listed as a range", smt("0-1"), 2, nil, Facts{CPUs: 2, Siblings: 2, Cores: 1}},
		{"SMT, 16 threads of 8 cores allowed", smt("0,16"), 16, low, Facts{CPUs: 16, Siblings: 1, Cores: 16}},
		{"SMT, the first allowed CPU is 1", smt("0,16"), 16, odd, Facts{CPUs: 16, Siblings: 2, Cores: 8}},
		{"cgroup v2 quota", with(smt("0,16"), v2), 32, nil, Facts{CPUs: 32, Siblings: 2, Quota: 2.5, Cores: 3}},
		{"cgroup v2, no quota", with(smt("0"), v2root), 4, nil, Facts{CPUs: 4, Siblings: 1, Cores: 4}},
		{"cgroup v1 quota", with(smt("0"), v1), 4, nil, Facts{CPUs: 4, Siblings: 1, Quota: 1.5, Cores: 2}},
		{"cgroup v1, no quota", with(smt("0"), v1none), 4, nil, Facts{CPUs: 4, Siblings: 1, Cores: 4}},
		{"a quota of less than one CPU", with(map[string]string{}, map[string]string{"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/cpu.max": "20000 100000"}), 4, nil,
			Facts{CPUs: 4, Siblings: 1, Quota: 0.2, Cores: 1}},
	} {
		files := func(name string) ([]byte, bool) {
			s, ok := c.fsys[name]
			return []byte(s), ok
		}
		if got := Read(files, c.cpus, c.mine); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	if got := Read(nil, 0, nil); got.Cores != 1 {
		t.Errorf("nothing known: %+v", got)
	}
}

// TestMachine: this machine's facts hold together, and reading them is
// bounded.
func TestMachine(t *testing.T) {
	start := time.Now()
	Read(sysFiles, 4, onCPUs())
	took := time.Since(start)
	m := Machine()
	t.Logf("%+v, read in %v", m, took)
	if m.Cores < 1 || m.Cores > m.CPUs || m.Siblings < 1 || Cores() != m.Cores {
		t.Errorf("facts that do not hold together: %+v", m)
	}
}
