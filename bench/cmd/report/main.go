// Command report is blockshuffle's main benchmark. For a fixed set of
// realistic tensors it measures every kernel tier this machine can run, the
// typical Go loop that tensor libraries use today, and copy() of the same
// bytes; then how calls scale with GOMAXPROCS against copy() split over as
// many goroutines. It prints Markdown tables of GB/s and of the ratios to
// copy and to the typical loop.
//
//	go run ./bench/cmd/report                    # everything, about four minutes
//	go run ./bench/cmd/report -filter 'd2s/.*/NCHW/w4' -svg chart.svg -json raw.json
//	go run ./bench/cmd/report -routes            # which kernel serves each case on each tier
//	go run ./bench/cmd/report -shapes 1x64x6x6/b4,1x64x56x56:0,2,3,1 -parallel=false   # your own shapes
//	go run ./bench/cmd/report -scaling-only      # GOMAXPROCS 1, 2, 4, ... up to the CPUs
//
// The tables go to stdout, the floor and summary first; progress, with the
// time left, goes to stderr.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/blockshuffle/blockshuffle/bench/internal/harness"
	"github.com/blockshuffle/blockshuffle/dispatch"
)

// options are the command's flags.
type options struct {
	filter *regexp.Regexp
	widths []int
	shapes []harness.Shape // the cases' shapes
	large  []harness.Shape // the shapes whose parallel scaling is measured
	// transposeList are the transposes measured; servers the calls of
	// issue 41 the scaling section starts with
	transposeList []harness.Transpose
	servers       []harness.ServerCase
	sample        time.Duration
	samples       int
	parallel      bool
	// scalingOnly measures the scaling section alone
	scalingOnly bool
	// wide prints every tier and every case, in lines over 100 columns
	wide   bool
	svg    string
	axis   string
	json   string
	routes bool
	// transposes adds the transpose section, images the images'
	transposes, images bool
}

func main() {
	var o options
	filter := flag.String("filter", "", "only cases whose name (op/order/layout/width/shape) matches this regexp")
	widths := flag.String("widths", "1,2,4,8", "element widths in bytes, comma-separated, each 1 to 16")
	shapes := flag.String("shapes", "", "measure these instead of the fixed set, comma-separated: DepthToSpace inputs NxCxHxW/bB, and transposes AxBxC:perm (1x64x56x56:0,2,3,1); the scaling takes those of 4 MiB or more")
	flag.DurationVar(&o.sample, "sample", 10*time.Millisecond, "minimum duration of one timing sample")
	flag.IntVar(&o.samples, "samples", 5, "samples per measurement, taken round-robin; the median is reported")
	flag.BoolVar(&o.parallel, "parallel", true, "also measure how calls scale with GOMAXPROCS, and automatic Workers on the shapes that fit in cache")
	flag.BoolVar(&o.wide, "wide", false, "also print every case, every tier in the summary, and the transposes' plans: lines of up to 300 columns")
	flag.BoolVar(&o.scalingOnly, "scaling-only", false, "measure only how calls scale with GOMAXPROCS: issue 41's calls and the large cases")
	flag.StringVar(&o.svg, "svg", "", "write a bar chart of the results to this SVG file")
	flag.StringVar(&o.axis, "axis", "log", "the chart's GB/s axis: log or linear")
	flag.StringVar(&o.json, "json", "", "write every figure measured, samples included, to this JSON file")
	flag.BoolVar(&o.transposes, "transposes", true, "also measure the transposes (cases t/w<bytes>/<shape>/<perm>, which -filter matches too)")
	flag.BoolVar(&o.images, "images", true, "also measure package imagetensor's conversions (cases img/..., which -filter matches too)")
	flag.BoolVar(&o.routes, "routes", false, "print the plan of each case and the kernel its rows go to on each tier, and measure nothing")
	flag.Parse()

	var err error
	if o.filter, err = regexp.Compile(*filter); err != nil {
		fail(err)
	}
	for _, f := range strings.Split(*widths, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || w < 1 || w > harness.MaxWidth {
			fail(fmt.Errorf("-widths: %q is not a width of 1 to 16 bytes", f))
		}
		o.widths = append(o.widths, w)
	}
	o.shapes, o.large, o.transposeList, o.servers = harness.Shapes, harness.LargeShapes, harness.Transposes, harness.ServerCases
	if *shapes != "" {
		p, err := parseShapes(*shapes)
		if err != nil {
			fail(fmt.Errorf("-shapes: %w", err))
		}
		o.shapes, o.large, o.transposeList, o.servers = p.shapes, p.large, p.transposes, nil
	}
	if o.samples < 1 {
		fail(fmt.Errorf("-samples = %d, want at least 1", o.samples))
	}
	if o.axis != "log" && o.axis != "linear" {
		fail(fmt.Errorf("-axis = %q, want log or linear", o.axis))
	}

	if len(cases(o, o.shapes))+len(transposeCases(o))+len(scalingJobs(o))+len(imageCases(o)) == 0 {
		fail(fmt.Errorf("no case matches -filter %q", o.filter))
	}
	if err := checkMemory(o, availableMemory()); err != nil {
		fail(err)
	}
	if err := dispatch.EnvVarError(); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
	}
	if o.routes {
		if err := routes(os.Stdout, cases(o, o.shapes)); err != nil {
			fail(err)
		}
		return
	}
	r := run(o, newProgress(os.Stderr))
	r.print(os.Stdout, o.wide)
	if o.json != "" {
		b, err := json.MarshalIndent(r, "", "\t")
		if err == nil {
			err = os.WriteFile(o.json, append(b, '\n'), 0o644)
		}
		if err != nil {
			fail(err)
		}
	}
	if o.svg != "" {
		if len(r.Cases) == 0 {
			fail(fmt.Errorf("-svg: no case matches -filter %q", o.filter))
		}
		if err := os.WriteFile(o.svg, r.chart(o.axis == "log"), 0o644); err != nil {
			fail(err)
		}
	}
}

// checkMemory refuses a run whose largest case the machine cannot hold
// before anything is allocated: a case holds its input, its output and,
// for the typical loop, the output it allocates on each call; avail is
// the memory available, 0 where unknown.
func checkMemory(o options, avail uint64) error {
	name, largest := "", 0
	for _, c := range cases(o, o.shapes) {
		if c.Bytes() > largest {
			name, largest = c.String(), c.Bytes()
		}
	}
	for _, c := range transposeCases(o) {
		if c.Bytes() > largest {
			name, largest = c.String(), c.Bytes()
		}
	}
	if need := 3 * uint64(largest); avail > 0 && need > avail {
		return fmt.Errorf("%s: three tensors of %s need %s, and this machine has %s available; measure a smaller shape",
			name, gib(uint64(largest)), gib(need), gib(avail))
	}
	return nil
}

// gib prints a size in GiB, or MiB under one GiB.
func gib(n uint64) string {
	if n < 1<<30 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// availableMemory is what Linux says a process may still allocate
// (MemAvailable in /proc/meminfo), 0 where it does not say.
func availableMemory() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "MemAvailable:" && f[2] == "kB" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// largeShape is the size, at 1 byte an element, from which a shape given
// with -shapes has its scaling measured, as the fixed large shapes (7.9
// and 10 MiB) do.
const largeShape = 4 << 20

// parsed is what -shapes lists: DepthToSpace shapes, those of them that
// are large, and transposes.
type parsed struct {
	shapes, large []harness.Shape
	transposes    []harness.Transpose
}

// parseShapes reads -shapes: a comma-separated list of DepthToSpace
// shapes (1x256x13x13/b2) and transposes (1x64x56x56:0,2,3,1, whose perm
// takes as many of the following comma-separated numbers as the shape has
// dims).
func parseShapes(list string) (parsed, error) {
	var p parsed
	fields := strings.Split(list, ",")
	for i := 0; i < len(fields); i++ {
		f := strings.TrimSpace(fields[i])
		if dims, first, ok := strings.Cut(f, ":"); ok {
			rank := strings.Count(dims, "x") + 1
			if i+rank > len(fields) {
				return parsed{}, fmt.Errorf("transpose %q: want a perm of %d numbers after the colon", f, rank)
			}
			perm := append([]string{first}, fields[i+1:i+rank]...)
			t, err := harness.ParseTranspose(dims, strings.Join(perm, ","))
			if err != nil {
				return parsed{}, err
			}
			p.transposes = append(p.transposes, t)
			i += rank - 1
			continue
		}
		s, err := harness.ParseShape(f)
		if err != nil {
			return parsed{}, err
		}
		p.shapes = append(p.shapes, s)
		if s.N*s.C*s.H*s.W >= largeShape {
			p.large = append(p.large, s)
		}
	}
	return p, nil
}

// progress tells, on w, how far a run is and the time it has left. The
// time left is the time so far scaled by the samples still to take over
// those taken: Measure calibrates every sample to about the same length,
// whatever it measures, and warms up and calibrates in about two more.
type progress struct {
	w        io.Writer
	terminal bool // rewrite one line, rather than print every 16th case
	start    time.Time

	planned, done int // samples, two more per measurement
}

func newProgress(w *os.File) *progress {
	fi, err := w.Stat()
	return &progress{w: w, terminal: err == nil && fi.Mode()&os.ModeCharDevice != 0, start: time.Now()}
}

// plan adds n samples to those the run will take (n < 0 corrects a guess).
func (p *progress) plan(n int) { p.planned += n }

// show reports case i of the n of a section (n < 0: a section whose length
// is not known ahead), named name, before it is measured; i == n reports
// the section done.
func (p *progress) show(section string, i, n int, name string) {
	if p.w == nil {
		return
	}
	elapsed := time.Since(p.start)
	left := "time left unknown"
	if p.done > 0 {
		rest := time.Duration(float64(elapsed) * float64(max(p.planned-p.done, 0)) / float64(p.done))
		left = fmt.Sprintf("about %v left", rest.Round(time.Second))
	}
	count := fmt.Sprintf("%d/%d", i+1, n)
	if n < 0 {
		count = fmt.Sprint(i + 1)
	}
	switch {
	case i == n:
		if p.terminal {
			fmt.Fprintf(p.w, "\r%-100s\r", "")
		}
		fmt.Fprintf(p.w, "%s done, %v so far, %s\n", section, elapsed.Round(time.Second), left)
	case p.terminal:
		fmt.Fprintf(p.w, "\r%s [%s] %-44s %s   ", section, count, name, left)
	case i%16 == 0:
		fmt.Fprintf(p.w, "%s [%s] %s, %s\n", section, count, name, left)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(2)
}
