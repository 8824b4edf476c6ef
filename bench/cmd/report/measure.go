package main

import (
	"cmp"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/bench/internal/harness"
	"github.com/blockshuffle/blockshuffle/dispatch"
)

// Report is everything one run measured; -json writes it as it is.
type Report struct {
	CPU        string    `json:"cpu"`
	GOOS       string    `json:"goos"`
	GOARCH     string    `json:"goarch"`
	Go         string    `json:"go"`
	GOMAXPROCS int       `json:"gomaxprocs"`
	Date       time.Time `json:"date"`
	Tier       string    `json:"tier"`  // the tier calls use
	Tiers      []string  `json:"tiers"` // the tiers this machine runs
	SampleNs   int64     `json:"sample_min_ns"`
	Samples    int       `json:"samples"`

	// Cases: one goroutine; Runners are the tiers, then "typical" and "copy".
	Runners []string `json:"runners"`
	Cases   []Case   `json:"cases"`

	// Scaling: the large shapes with the tier in use at several
	// Params.Workers ("workers=1", "workers=2", ..., "auto" for 0) and copy().
	ScalingRunners []string `json:"scaling_runners,omitempty"`
	Scaling        []Case   `json:"scaling,omitempty"`

	// Auto: the other shapes, Workers = 1 against 0 ("workers=1", "auto").
	AutoRunners []string `json:"auto_runners,omitempty"`
	Auto        []Case   `json:"auto,omitempty"`
}

// Case is one case's figures, by runner name.
type Case struct {
	Name   string            `json:"case"`
	Op     string            `json:"op"`
	Order  string            `json:"order"`
	Layout string            `json:"layout"`
	Width  int               `json:"width"`
	Input  [5]int            `json:"input"` // N, C, H, W of the input, block size
	Bytes  int               `json:"bytes"` // of each tensor
	GBps   map[string]Figure `json:"gbps"`

	shape harness.Shape // the DepthToSpace shape the case belongs to
}

// Figure is a throughput in GB/s (1e9 bytes of output per second).
type Figure struct {
	Median  float64   `json:"median"`
	Min     float64   `json:"min"`
	Max     float64   `json:"max"`
	Samples []float64 `json:"samples"`
}

// ratio is the ratio of two runners' medians.
func (c *Case) ratio(a, b string) float64 { return c.GBps[a].Median / c.GBps[b].Median }

// spread is the largest range of samples relative to their median among
// the runners.
func (c *Case) spread() float64 {
	var s float64
	for _, f := range c.GBps {
		s = max(s, (f.Max-f.Min)/f.Median)
	}
	return s
}

// runners are the functions one case is measured with, by name.
type runners struct {
	names []string
	fs    []func()
}

func (r *runners) add(name string, f func()) {
	r.names = append(r.names, name)
	r.fs = append(r.fs, f)
}

// run measures the cases of o.shapes, then, unless o.parallel is
// off, the scaling of the large ones and the automatic worker choice on the
// others; progress hears of every case.
func run(o options, progress func(string, int, int, harness.Case)) *Report {
	r := &Report{
		CPU: cpuName(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, Go: runtime.Version(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), Date: time.Now().UTC().Truncate(time.Second),
		Tier: bs.Tier(), SampleNs: o.sample.Nanoseconds(), Samples: o.samples,
	}
	tiers := dispatch.Available()
	for _, t := range tiers {
		r.Tiers = append(r.Tiers, t.String())
	}
	r.Runners, r.Cases = measureAll(o, "cases", cases(o, o.shapes), progress, func(c harness.Case) (rs runners) {
		b := harness.NewBuffers(c)
		for _, t := range tiers {
			rs.add(t.String(), b.Tier(t))
		}
		rs.add("typical", b.Typical())
		rs.add("copy", b.Copy())
		return rs
	})
	if !o.parallel {
		return r
	}
	counts := []int{1, 2}
	if n := runtime.GOMAXPROCS(0); n > 2 {
		counts = append(counts, n)
	}
	counts = append(counts, 0) // automatic
	r.ScalingRunners, r.Scaling = measureAll(o, "scaling", cases(o, o.large), progress, func(c harness.Case) (rs runners) {
		b := harness.NewBuffers(c)
		for _, n := range counts {
			rs.add(workersName(n), b.Workers(n))
		}
		rs.add("copy", b.Copy())
		return rs
	})
	var small []harness.Shape
	for _, s := range o.shapes {
		if !slices.Contains(o.large, s) {
			small = append(small, s)
		}
	}
	r.AutoRunners, r.Auto = measureAll(o, "automatic workers", cases(o, small), progress, func(c harness.Case) (rs runners) {
		b := harness.NewBuffers(c)
		rs.add(workersName(1), b.Workers(1))
		rs.add(workersName(0), b.Workers(0))
		return rs
	})
	return r
}

func workersName(n int) string {
	if n == 0 {
		return "auto"
	}
	return fmt.Sprintf("workers=%d", n)
}

// cases are the cases of the shapes that pass the filter.
func cases(o options, shapes []harness.Shape) []harness.Case {
	var out []harness.Case
	for _, c := range harness.Cases(shapes, o.widths) {
		if o.filter.MatchString(c.String()) {
			out = append(out, c)
		}
	}
	return out
}

// measureAll measures each case with the runners newRunners makes for it
// and returns the runners' names with the figures.
func measureAll(o options, section string, cs []harness.Case, progress func(string, int, int, harness.Case), newRunners func(harness.Case) runners) ([]string, []Case) {
	var names []string
	var out []Case
	for i, c := range cs {
		progress(section, i, len(cs), c)
		rs := newRunners(c)
		names = rs.names
		res := harness.Measure(rs.fs, c.Bytes(), o.sample, o.samples)
		k := Case{
			Name: c.String(), Op: c.Op.String(), Order: c.Order.String(), Layout: c.Layout.String(), Width: c.Width,
			Bytes: c.Bytes(), GBps: map[string]Figure{}, shape: c.Shape,
		}
		p := c.Params()
		k.Input = [5]int{p.N, p.C, p.H, p.W, p.BlockSize}
		for j, r := range res {
			f := Figure{Median: r.Median / 1e9, Min: r.Min / 1e9, Max: r.Max / 1e9}
			for _, s := range r.Samples {
				f.Samples = append(f.Samples, s/1e9)
			}
			k.GBps[rs.names[j]] = f
		}
		out = append(out, k)
	}
	progress(section, len(cs), len(cs), harness.Case{})
	return names, out
}

// cpuName is the model name the kernel reports, with the family and model
// numbers, which tell apart CPUs that a virtual machine names vaguely.
func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	fields := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			if k = strings.TrimSpace(k); fields[k] == "" {
				fields[k] = strings.TrimSpace(v)
			}
		}
	}
	name := cmp.Or(fields["model name"], "unknown CPU")
	if fields["cpu family"] != "" && fields["model"] != "" {
		name += fmt.Sprintf(" (family %s, model %s)", fields["cpu family"], fields["model"])
	}
	return name
}
