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
	// ConfirmPairs: the rounds of tier and copy() behind a confirmed ratio.
	ConfirmPairs int `json:"confirm_pairs"`

	// Cases: one goroutine; Runners are the tiers, then "loop", "typical",
	// "copy" (Go's copy()) and "mem" (copy() in chunks that never stream).
	Runners []string `json:"runners"`
	Cases   []Case   `json:"cases"`

	// Scaling: the server cases and the large ones at each GOMAXPROCS of
	// Procs.
	Procs   []int       `json:"procs,omitempty"`
	Scaling []ScaleCase `json:"scaling,omitempty"`

	// Auto: the other shapes, Workers = 1 against 0 ("workers=1", "auto").
	AutoRunners []string `json:"auto_runners,omitempty"`
	Auto        []Case   `json:"auto,omitempty"`

	// Transposes: the tiers, "loop" (the nested loop), "copy" and "mem".
	TransposeRunners []string        `json:"transpose_runners,omitempty"`
	Transposes       []TransposeCase `json:"transposes,omitempty"`

	// Images: package imagetensor's conversions, one goroutine.
	Images []ImageCase `json:"images,omitempty"`
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
	// Confirmed: the tiers whose ratio to copy() was measured again for
	// the floor, alternating with copy(); it replaces theirs in every table.
	Confirmed map[string]Confirmed `json:"confirmed,omitempty"`

	shape harness.Shape // the DepthToSpace shape the case belongs to
	call  harness.Case  // what was measured
}

// Confirmed is a tier's ratio to copy() on one case measured again: Pairs
// rounds of one sample of the tier and one of copy() back to back, and
// the median of the rounds' ratios, which a burst of load on the machine
// moves less than a ratio of two medians taken apart.
type Confirmed struct {
	Ratio  float64   `json:"ratio"`
	Pairs  int       `json:"pairs"`
	Ratios []float64 `json:"ratios"`
}

// Figure is a throughput in GB/s (1e9 bytes of output per second).
type Figure struct {
	Median  float64   `json:"median"`
	Min     float64   `json:"min"`
	Max     float64   `json:"max"`
	Samples []float64 `json:"samples"`
}

// ratio is the ratio of two runners' medians, or a's confirmed ratio to
// copy() where the floor measured it again.
func (c *Case) ratio(a, b string) float64 {
	if f, ok := c.Confirmed[a]; ok && b == "copy" {
		return f.Ratio
	}
	return c.GBps[a].Median / c.GBps[b].Median
}

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

// run measures the cases of o.shapes and confirms each tier's floor on
// them, then, unless o.parallel is off, the scaling of the large ones and
// the automatic worker choice on the others; p hears of every case.
func run(o options, p *progress) *Report {
	r := &Report{
		CPU: cpuName(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, Go: runtime.Version(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), Date: time.Now().UTC().Truncate(time.Second),
		Tier: bs.Tier(), SampleNs: o.sample.Nanoseconds(), Samples: o.samples,
		ConfirmPairs: confirmPairs(o),
	}
	tiers := dispatch.Available()
	for _, t := range tiers {
		r.Tiers = append(r.Tiers, t.String())
	}
	var small []harness.Shape
	for _, s := range o.shapes {
		if !slices.Contains(o.large, s) {
			small = append(small, s)
		}
	}
	cs, ts, jobs, is := cases(o, o.shapes), transposeCases(o), scalingJobs(o), imageCases(o)
	if o.scalingOnly {
		cs, ts, small = nil, nil, nil
	}
	if o.parallel {
		r.Procs = harness.Procs()
	} else {
		jobs = nil
	}
	p.plan(len(cs) * (len(tiers) + 4) * (o.samples + 2))
	p.plan(len(ts) * (len(tiers) + 3) * (o.samples + 2))
	p.plan(len(is) * 4 * (o.samples + 2))
	confirmGuess := len(tiers) * 2 * 2 * (r.ConfirmPairs + 2) // two cases a tier, as a first guess
	if len(cs) == 0 {
		confirmGuess = 0
	}
	p.plan(confirmGuess)
	p.plan(len(jobs) * len(r.Procs) * 3 * (o.samples + 2))
	if o.parallel {
		p.plan(len(cases(o, small)) * 2 * (o.samples + 2))
	}

	r.Runners, r.Cases = measureAll(o, "cases", cs, p, func(c harness.Case) (rs runners) {
		b := harness.NewBuffers(c)
		for _, t := range tiers {
			rs.add(t.String(), b.Tier(t))
		}
		rs.add("loop", b.Loop())
		rs.add("typical", b.Typical())
		rs.add("copy", b.Copy())
		rs.add("mem", b.MemCopy())
		return rs
	})
	if len(cs) > 0 {
		before := p.done
		confirmFloor(o, r, tiers, p)
		p.plan(p.done - before - confirmGuess)
		p.show("floor", 0, 0, "")
	}
	if len(ts) > 0 {
		r.TransposeRunners, r.Transposes = measureTransposes(o, ts, tiers, p)
	}
	if len(is) > 0 {
		r.Images = measureImages(o, is, p)
	}
	if !o.parallel {
		return r
	}
	r.Scaling = measureScaling(o, jobs, r.Procs, p)
	r.AutoRunners, r.Auto = measureAll(o, "automatic workers", cases(o, small), p, func(c harness.Case) (rs runners) {
		b := harness.NewBuffers(c)
		rs.add(workersName(1), b.Workers(1))
		rs.add(workersName(0), b.Workers(0))
		return rs
	})
	return r
}

// maxConfirmed bounds the cases of one tier the floor measures again.
const maxConfirmed = 24

// confirmPairs is how many rounds of tier and copy() a confirmation takes:
// three times a first measurement's samples, and at least 9.
func confirmPairs(o options) int { return max(3*o.samples, 9) }

// confirmFloor measures again, alternating with copy(), the cases of each
// tier that make its floor: its lowest case, and every case under
// floorTarget, lowest first, up to maxConfirmed. A case whose confirmed
// ratio rises above another's leaves that one the lowest, which is then
// confirmed too, so the lowest case reported is always a confirmed one.
func confirmFloor(o options, r *Report, tiers []dispatch.Tier, p *progress) {
	for _, t := range tiers {
		name := t.String()
		for n := 0; n < maxConfirmed; n++ {
			low, next := -1, -1 // the lowest case, and the lowest not confirmed
			for i := range r.Cases {
				c := &r.Cases[i]
				if low < 0 || c.ratio(name, "copy") < r.Cases[low].ratio(name, "copy") {
					low = i
				}
				if _, done := c.Confirmed[name]; !done && (next < 0 || c.ratio(name, "copy") < r.Cases[next].ratio(name, "copy")) {
					next = i
				}
			}
			if next < 0 || next != low && r.Cases[next].ratio(name, "copy") >= floorTarget {
				break
			}
			c := &r.Cases[next]
			p.show("floor of "+name, n, -1, c.Name)
			b := harness.NewBuffers(c.call)
			res := harness.Measure([]func(){b.Tier(t), b.Copy()}, c.Bytes, o.sample, r.ConfirmPairs)
			f := Confirmed{Pairs: r.ConfirmPairs}
			for k := range f.Pairs { // Measure keeps the rounds' order: pair k is round k
				f.Ratios = append(f.Ratios, res[0].Samples[k]/res[1].Samples[k])
			}
			f.Ratio = median(slices.Sorted(slices.Values(f.Ratios)))
			if c.Confirmed == nil {
				c.Confirmed = map[string]Confirmed{}
			}
			c.Confirmed[name] = f
			p.done += 2 * (f.Pairs + 2)
		}
	}
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
func measureAll(o options, section string, cs []harness.Case, p *progress, newRunners func(harness.Case) runners) ([]string, []Case) {
	var names []string
	var out []Case
	for i, c := range cs {
		p.show(section, i, len(cs), c.String())
		rs := newRunners(c)
		names = rs.names
		res := harness.Measure(rs.fs, c.Bytes(), o.sample, o.samples)
		p.done += len(rs.fs) * (o.samples + 2)
		k := Case{
			Name: c.String(), Op: c.Op.String(), Order: c.Order.String(), Layout: c.Layout.String(), Width: c.Width,
			Bytes: c.Bytes(), GBps: map[string]Figure{}, shape: c.Shape, call: c,
		}
		prm := c.Params()
		k.Input = [5]int{prm.N, prm.C, prm.H, prm.W, prm.BlockSize}
		for j, r := range res {
			k.GBps[rs.names[j]] = figure(r)
		}
		out = append(out, k)
	}
	p.show(section, len(cs), len(cs), "")
	return names, out
}

// figure is a Result in GB/s.
func figure(r harness.Result) Figure {
	f := Figure{Median: r.Median / 1e9, Min: r.Min / 1e9, Max: r.Max / 1e9}
	for _, s := range r.Samples {
		f.Samples = append(f.Samples, s/1e9)
	}
	return f
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
