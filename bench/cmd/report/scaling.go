package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"

	"github.com/blockshuffle/blockshuffle/bench/internal/harness"
)

// ScaleCase is one call's figures at each GOMAXPROCS of Report.Procs: the
// call as a user makes it (Workers = 0), and copy() of the same bytes
// split over as many goroutines, so that Copy[0] is one goroutine's.
type ScaleCase struct {
	Name  string   `json:"case"`
	What  string   `json:"what,omitempty"`
	Bytes int      `json:"bytes"`
	GBps  []Figure `json:"gbps"`
	Copy  []Figure `json:"copy_gbps"`
}

// scaledFrom is the tensor size from which the report's own cases join
// the scaling section, and from which the section's summary holds calls
// to half of the parallel copy()'s speed: issue 41's target.
const scaledFrom = 4 << 20

// smallCall is the size under which calls must be no slower on many
// goroutines than on one.
const smallCall = 256 << 10

// A scaledJob is a call of the scaling section, whose tensors are made
// when it is measured.
type scaledJob struct {
	name string
	job  func() harness.Job
}

// scalingJobs are the server cases, then the operator cases of the large
// shapes and the transposes of scaledFrom and more, each once, that pass
// the filter.
func scalingJobs(o options) []scaledJob {
	var out []scaledJob
	seen := map[string]bool{}
	add := func(name string, job func() harness.Job) {
		if !seen[name] && o.filter.MatchString(name) {
			seen[name] = true
			out = append(out, scaledJob{name, job})
		}
	}
	for _, s := range o.servers {
		add(s.Name(), s.Job)
	}
	for _, c := range cases(o, o.large) {
		add(c.String(), func() harness.Job { return harness.OpJob(c, "") })
	}
	for _, c := range transposeCases(o) {
		if c.Bytes() >= scaledFrom {
			add(c.String(), func() harness.Job { return harness.TransposeJob(c) })
		}
	}
	return out
}

// measureScaling times each job and the parallel copy() of its bytes at
// each GOMAXPROCS of procs, side by side, and restores GOMAXPROCS.
func measureScaling(o options, jobs []scaledJob, procs []int, p *progress) []ScaleCase {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	out := make([]ScaleCase, len(jobs))
	for i, sj := range jobs {
		p.show("scaling", i, len(jobs), sj.name)
		j := sj.job()
		out[i] = ScaleCase{Name: j.Name, What: j.What, Bytes: j.Bytes}
		for _, n := range procs {
			runtime.GOMAXPROCS(n)
			res := harness.Measure([]func(){j.Run, j.Copy(n)}, j.Bytes, o.sample, o.samples)
			p.done += 2 * (o.samples + 2)
			out[i].GBps = append(out[i].GBps, figure(res[0]))
			out[i].Copy = append(out[i].Copy, figure(res[1]))
		}
	}
	p.show("scaling", len(jobs), len(jobs), "")
	return out
}

// printScaling writes the scaling section: its summary, then every call.
func (r *Report) printScaling(w io.Writer) {
	top := r.Procs[len(r.Procs)-1]
	fmt.Fprintf(w, "\nScaling: GB/s of the tier in use as a user calls it (Workers = 0) at each GOMAXPROCS p, on\n"+
		"%d CPUs; at p = %d, its ratio to copy() on one goroutine and to copy() split over %d\n"+
		"goroutines (par). The first calls are issue 41's, timed there against PyTorch and ONNX Runtime.\n\n",
		runtime.NumCPU(), top, top)
	r.scalingSummary().print(w)
	fmt.Fprintln(w)
	r.scalingTable().print(w)
}

// scalingTable lists every call.
func (r *Report) scalingTable() *table {
	head := []string{"case", "MB"}
	for _, n := range r.Procs {
		head = append(head, fmt.Sprintf("p=%d", n))
	}
	t := &table{head: append(head, "/copy", "/par")}
	for _, c := range r.Scaling {
		row := []string{c.Name, mbString(c.Bytes)}
		for _, f := range c.GBps {
			row = append(row, fmt.Sprintf("%.*f", digits(f.Median), f.Median))
		}
		last := len(c.GBps) - 1
		row = append(row, ratioString(c.GBps[last].Median/c.Copy[0].Median), ratioString(c.GBps[last].Median/c.Copy[last].Median))
		t.rows = append(t.rows, row)
	}
	return t
}

// scalingSummary holds the calls to issue 41's targets at the highest p:
// those of scaledFrom and more against the parallel copy(), those under
// smallCall against themselves at p = 1.
func (r *Report) scalingSummary() *table {
	top := len(r.Procs) - 1
	t := &table{head: []string{"calls", "count", "median", "lowest", "lowest case"}, text: true}
	add := func(what string, keep func(*ScaleCase) bool, ratio func(*ScaleCase) float64) {
		var rs []float64
		low := -1
		for i := range r.Scaling {
			c := &r.Scaling[i]
			if !keep(c) {
				continue
			}
			rs = append(rs, ratio(c))
			if low < 0 || ratio(c) < ratio(&r.Scaling[low]) {
				low = i
			}
		}
		if low < 0 {
			return
		}
		slices.Sort(rs)
		t.rows = append(t.rows, []string{what, fmt.Sprint(len(rs)), ratioString(median(rs)), ratioString(rs[0]), r.Scaling[low].Name})
	}
	add(fmt.Sprintf("%d MiB and more, /par at p=%d", scaledFrom>>20, r.Procs[top]),
		func(c *ScaleCase) bool { return c.Bytes >= scaledFrom },
		func(c *ScaleCase) float64 { return c.GBps[top].Median / c.Copy[top].Median })
	add(fmt.Sprintf("under %d KiB, p=%d / p=1", smallCall>>10, r.Procs[top]),
		func(c *ScaleCase) bool { return c.Bytes < smallCall },
		func(c *ScaleCase) float64 { return c.GBps[top].Median / c.GBps[0].Median })
	return t
}
