package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blockshuffle/blockshuffle/bench/internal/harness"
	"github.com/blockshuffle/blockshuffle/dispatch"
)

// TestRun measures a few cases briefly and checks that every section has
// every runner, that the tables name them, and that the JSON and the chart
// can be read back.
func TestRun(t *testing.T) {
	o := options{
		filter:   regexp.MustCompile(`^d2s/CRD/NHWC/w2/(1x256x13x13|1x64x270x480)/`),
		widths:   []int{2},
		shapes:   harness.Shapes,
		large:    harness.LargeShapes,
		sample:   time.Millisecond,
		samples:  2,
		parallel: true,
	}
	var log bytes.Buffer
	r := run(o, &progress{w: &log, start: time.Now()})
	for _, s := range []struct {
		name    string
		runners []string
		cases   []Case
		want    int
	}{{"cases", r.Runners, r.Cases, 2}, {"auto", r.AutoRunners, r.Auto, 1}} {
		if len(s.cases) != s.want {
			t.Fatalf("%s: %d cases, want %d", s.name, len(s.cases), s.want)
		}
		for _, c := range s.cases {
			for _, n := range s.runners {
				f := c.GBps[n]
				if len(f.Samples) != o.samples || !(f.Min > 0 && f.Min <= f.Median && f.Median <= f.Max) {
					t.Errorf("%s %s %s: %+v", s.name, c.Name, n, f)
				}
			}
		}
	}
	for _, n := range []string{"generic", "loop", "typical", "copy", r.Tier} {
		if !slices.Contains(r.Runners, n) {
			t.Errorf("runners %v lack %s", r.Runners, n)
		}
	}
	// The scaling section: the large case the filter keeps, at every
	// GOMAXPROCS, beside copy() on as many goroutines.
	if len(r.Scaling) != 1 || r.Scaling[0].Name != "d2s/CRD/NHWC/w2/1x64x270x480/b2" || !slices.Equal(r.Procs, harness.Procs()) {
		t.Fatalf("scaling: %d cases at %v", len(r.Scaling), r.Procs)
	}
	for _, c := range r.Scaling {
		for _, fs := range [][]Figure{c.GBps, c.Copy, c.Mem} {
			if len(fs) != len(r.Procs) {
				t.Errorf("%s: %d figures for %d GOMAXPROCS", c.Name, len(fs), len(r.Procs))
			}
			for _, f := range fs {
				if len(f.Samples) != o.samples || !(f.Min > 0 && f.Min <= f.Median && f.Median <= f.Max) {
					t.Errorf("scaling %s: %+v", c.Name, f)
				}
			}
		}
	}

	// Each tier's lowest case is confirmed.
	for _, n := range r.Tiers {
		low := &r.Cases[0]
		for i := range r.Cases {
			if r.Cases[i].ratio(n, "copy") < low.ratio(n, "copy") {
				low = &r.Cases[i]
			}
		}
		if f, ok := low.Confirmed[n]; !ok || f.Pairs != confirmPairs(o) || len(f.Ratios) != f.Pairs {
			t.Errorf("%s: the lowest case %s is not confirmed: %+v", n, low.Name, low.Confirmed)
		}
	}
	if !strings.Contains(log.String(), "left") || !strings.Contains(log.String(), "floor of "+r.Tier) {
		t.Errorf("the progress says no time left, or nothing of the floor:\n%s", log.String())
	}

	var md bytes.Buffer
	r.print(&md, true)
	for _, s := range []string{"d2s/CRD/NHWC/w2/1x256x13x13/b2", "typical GB/s", "loop GB/s", r.Tier + "/typical", r.Tier + "/loop", "/par", "from 4 MiB: held", "auto/workers=1",
		fmt.Sprintf("in %d rounds", confirmPairs(o))} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("the tables lack %q:\n%s", s, md.String())
		}
	}
	// The first screen is the floor and the summary.
	floor, summary, every := strings.Index(md.String(), "\nFloor:"), strings.Index(md.String(), "\nSummary:"), strings.Index(md.String(), "\nEvery case:")
	if !(0 < floor && floor < summary && summary < every) {
		t.Errorf("the floor (at %d) and the summary (%d) do not come before every case (%d)", floor, summary, every)
	}

	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Cases[1].GBps["copy"].Median != r.Cases[1].GBps["copy"].Median || back.Scaling[0].Copy[0].Median != r.Scaling[0].Copy[0].Median {
		t.Errorf("JSON round trip: %+v", back.Scaling[0])
	}

	for _, log := range []bool{true, false} {
		checkChart(t, r.chart(log), 2*(len(r.Runners)-2)) // not the typical loop, not mem
	}
}

// checkChart parses the SVG and counts its bars, which carry tooltips.
func checkChart(t *testing.T, svg []byte, bars int) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	n := 0
	var last string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the chart is not well-formed XML: %v\n%s", err, svg)
		}
		if s, ok := tok.(xml.StartElement); ok {
			if s.Name.Local == "title" && last == "rect" {
				n++
			}
			last = s.Name.Local
		}
	}
	if n != bars {
		t.Errorf("the chart has %d bars, want %d", n, bars)
	}
}

// TestTransposes runs the transpose section on two cases and checks that
// every runner has a figure, every tier a plan, and the tables a row each.
func TestTransposes(t *testing.T) {
	o := options{filter: regexp.MustCompile(`^t/w4/(1x3x224x224|1024x1024)/`), widths: []int{4}, sample: time.Millisecond, samples: 2, transposes: true,
		transposeList: harness.Transposes}
	var log bytes.Buffer
	r := &Report{Tier: dispatch.Active().String()}
	r.TransposeRunners, r.Transposes = measureTransposes(o, transposeCases(o), dispatch.Available(), &progress{w: &log, start: time.Now()})
	if len(r.Transposes) != 2 {
		t.Fatalf("%d transposes, want 2", len(r.Transposes))
	}
	for _, c := range r.Transposes {
		for _, n := range r.TransposeRunners {
			if c.GBps[n].Median <= 0 {
				t.Errorf("%s: no figure for %s", c.Name, n)
			}
		}
		for _, tier := range dispatch.Available() {
			if c.Plans[tier.String()] == "" {
				t.Errorf("%s: no plan for %s", c.Name, tier)
			}
		}
	}
	if n := len(r.transposeTable(true).rows); n != 2 {
		t.Errorf("%d rows in the table, want 2", n)
	}
	if n := len(r.transposeFloor().rows); n != len(dispatch.Available()) {
		t.Errorf("%d rows in the floor, want one per tier", n)
	}
}

func TestAxis(t *testing.T) {
	a := newAxis(0.07, 110, true)
	if a.lo != 0.05 || a.hi != 200 {
		t.Errorf("log axis for 0.07..110 is %v..%v, want 0.05..200", a.lo, a.hi)
	}
	ticks := a.ticks()
	if len(ticks) != 12 || ticks[0] != a.lo || ticks[len(ticks)-1] != a.hi {
		t.Errorf("log ticks %v", ticks)
	}
	l := newAxis(0.07, 110, false)
	if l.lo != 0 || l.hi != 120 || len(l.ticks()) != 7 {
		t.Errorf("linear axis for 0.07..110: %v..%v ticks %v", l.lo, l.hi, l.ticks())
	}
	if p := a.pos(a.hi); p < 0.9999 || p > 1.0001 {
		t.Errorf("pos(hi) = %v", p)
	}
}

// TestRoutes prints the routes of a few cases: a row per case, a column per
// tier, a kernel in every cell.
func TestRoutes(t *testing.T) {
	o := options{filter: regexp.MustCompile(`/(w1|w8)/1x27x224x224/`), widths: []int{1, 8}}
	var b bytes.Buffer
	if err := routes(&b, cases(o, harness.Shapes)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2+16 {
		t.Fatalf("%d lines, want a header, a rule and 16 cases:\n%s", len(lines), b.String())
	}
	for _, tier := range dispatch.Available() {
		if !strings.Contains(lines[0], " "+tier.String()+" ") {
			t.Errorf("no column for %v: %s", tier, lines[0])
		}
	}
	for _, l := range lines[2:] {
		cells := strings.Split(l, "|")
		for _, c := range cells[1 : len(cells)-1] {
			if strings.TrimSpace(c) == "" {
				t.Errorf("empty cell in %s", l)
			}
		}
	}
}

// TestFloor checks the floor table on made-up figures: the lowest ratio,
// its case and what it stands on, the median and the count under the
// target, with confirmed ratios in place of the first ones.
func TestFloor(t *testing.T) {
	fig := func(v float64) Figure { return Figure{Median: v, Min: v, Max: v} }
	r := Report{Runners: []string{"avx2", "typical", "copy", "mem"}, Samples: 5}
	for i, v := range []float64{8, 3, 6, 4} { // ratios 0.8, 0.3, 0.6, 0.4; to mem 0.4, 0.15, 0.3, 0.2
		r.Cases = append(r.Cases, Case{Name: string(rune('a' + i)), GBps: map[string]Figure{"avx2": fig(v), "typical": fig(1), "copy": fig(10), "mem": fig(20)}})
	}
	check := func(want []string) {
		t.Helper()
		if got := r.floor().rows; !slices.EqualFunc(got, [][]string{want}, slices.Equal[[]string]) {
			t.Fatalf("floor rows %q, want %q", got, want)
		}
	}
	check([]string{"avx2", "0.50", "0.30*", "b", "2 of 4", "0", "0.25"})
	r.Cases[1].Confirmed = map[string]Confirmed{"avx2": {Ratio: 0.7, Pairs: 15}} // b was a noisy sample
	check([]string{"avx2", "0.65", "0.40*", "d", "1 of 4", "0", "0.25"})
	r.Cases[3].Confirmed = map[string]Confirmed{"avx2": {Ratio: 0.45, Pairs: 15}}
	check([]string{"avx2", "0.65", "0.45", "d", "1 of 4", "1", "0.25"})
}

// TestWidth prints a made-up report of every section, with the longest
// tier names, case names and GOMAXPROCS of a 24-CPU machine: without
// -wide no line is over 100 columns, and -wide adds every case.
func TestWidth(t *testing.T) {
	fig := func(v float64) Figure { return Figure{Median: v, Min: v, Max: v} }
	tiers := []string{"generic", "avx2", "avx512bw", "avx512vbmi"}
	r := &Report{CPU: "Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz (family 6, model 143)", GOOS: "linux", GOARCH: "amd64",
		Go: "go1.27.10", GOMAXPROCS: 24, Tier: "avx512vbmi", Tiers: tiers, Samples: 5, SampleNs: 1e7, ConfirmPairs: 15,
		Runners: append(slices.Clone(tiers), "loop", "typical", "copy", "mem"), Procs: []int{1, 2, 4, 8, 16, 24},
		AutoRunners: []string{"workers=1", "auto"}, TransposeRunners: append(slices.Clone(tiers), "loop", "copy", "mem")}
	for _, c := range harness.Cases([]harness.Shape{{N: 8, C: 27, H: 224, W: 224, B: 3}, {N: 1, C: 16, H: 4, W: 4, B: 2}}, []int{16}) {
		k := Case{Name: c.String(), Layout: c.Layout.String(), Width: 16, Bytes: 123456789, GBps: map[string]Figure{}, shape: c.Shape, call: c}
		for _, n := range append(r.Runners, "auto", "workers=1") {
			k.GBps[n] = fig(123.456)
		}
		k.GBps["typical"], k.GBps["loop"] = fig(0.123), fig(1.23)
		r.Cases, r.Auto = append(r.Cases, k), append(r.Auto, k)
		s := ScaleCase{Name: k.Name, Bytes: 123456789}
		for range r.Procs {
			s.GBps, s.Copy, s.Mem = append(s.GBps, fig(123.4)), append(s.Copy, fig(20.5)), append(s.Mem, fig(20.5))
		}
		r.Scaling = append(r.Scaling, s)
	}
	k := TransposeCase{Name: "t/w8/16x3x14x16x14x16/0,2,4,3,5,1", What: "a batch of ViT patchifies", Bytes: 123456789, GBps: map[string]Figure{}, Plans: map[string]string{}}
	for _, n := range r.TransposeRunners {
		k.GBps[n], k.Plans[n] = fig(123.456), n+": a plan"
	}
	k.GBps["loop"] = fig(0.123)
	r.Transposes = []TransposeCase{k}
	var narrow, wide bytes.Buffer
	r.print(&narrow, false)
	r.print(&wide, true)
	for i, line := range strings.Split(narrow.String(), "\n") {
		if len(line) > 100 {
			t.Errorf("line %d is %d columns: %s", i+1, len(line), line)
		}
	}
	for _, s := range []string{"\nEvery case:", "avx512bw/copy", "a plan"} {
		if strings.Contains(narrow.String(), s) || !strings.Contains(wide.String(), s) {
			t.Errorf("%q is not in the wide report alone", s)
		}
	}
}

// TestParseShapes reads -shapes with DepthToSpace shapes and transposes
// mixed, and refuses what is not one.
func TestParseShapes(t *testing.T) {
	p, err := parseShapes("1x64x56x56:0,2,3,1, 1x256x13x13/b2,4096x4096:1,0,1x64x270x480/b2")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.shapes) != 2 || len(p.large) != 1 || len(p.transposes) != 2 ||
		!slices.Equal(p.transposes[0].Shape, []int{1, 64, 56, 56}) || !slices.Equal(p.transposes[0].Perm, []int{0, 2, 3, 1}) ||
		!slices.Equal(p.transposes[1].Perm, []int{1, 0}) {
		t.Errorf("parsed %+v", p)
	}
	for _, bad := range []string{"1x64x56x56:0,2,3", "4x4:1,1", "4x0:1,0", "4x4:1,x", "1x2x3/b0", "16x16:1,0,1"} {
		if _, err := parseShapes(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestCheckMemory: a shape the machine cannot hold is refused, naming the
// case and the sizes, before anything is allocated; one it can is not.
func TestCheckMemory(t *testing.T) {
	// Issue 47's 40 GB shape, or on 32-bit platforms, where no tensor
	// reaches 2 GiB, one of 1.6 GB.
	shapes, name, avail, need, has := "1x4x100000x100000/b2,100000x100000:1,0", "1x4x100000x100000", uint64(16<<30), "149.0 GiB", "16.0 GiB available"
	if bits.UintSize == 32 {
		shapes, name, avail, need, has = "1x4x10000x10000/b2,10000x10000:1,0", "1x4x10000x10000", 1<<30, "4.5 GiB", "1.0 GiB available"
	}
	p, err := parseShapes(shapes)
	if err != nil {
		t.Fatal(err)
	}
	o := options{filter: regexp.MustCompile(""), widths: []int{1, 4}, shapes: p.shapes, transposeList: p.transposes, transposes: true}
	err = checkMemory(o, avail)
	if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), need) || !strings.Contains(err.Error(), has) {
		t.Errorf("got %v", err)
	}
	if err := checkMemory(o, 0); err != nil {
		t.Errorf("memory unknown: %v", err)
	}
	small, _ := parseShapes("1x64x56x56/b2")
	o.shapes, o.transposeList = small.shapes, nil
	if err := checkMemory(o, 1<<30); err != nil {
		t.Errorf("a small shape: %v", err)
	}
}

// TestHeld: a call is held to mem's gain, except that it need not pass
// the faster parallel copy, nor gain less than 1 to match it.
func TestHeld(t *testing.T) {
	figs := func(vs ...float64) []Figure {
		var fs []Figure
		for _, v := range vs {
			fs = append(fs, Figure{Median: v})
		}
		return fs
	}
	for _, c := range []struct {
		name            string
		gbps, copy, mem []float64
		want            float64
	}{
		{"scales as mem", []float64{10, 20}, []float64{10, 20}, []float64{10, 20}, 1},
		{"stays alone", []float64{10, 10}, []float64{10, 20}, []float64{10, 20}, 0.5},
		{"streams at the copy's speed alone", []float64{26, 26}, []float64{26, 26}, []float64{17, 30}, 26.0 / 30},
		{"short of the roof", []float64{20, 22}, []float64{20, 30}, []float64{15, 30}, 22.0 / 30},
		{"faster than every copy", []float64{40, 36}, []float64{20, 30}, []float64{15, 30}, 0.9},
	} {
		s := ScaleCase{GBps: figs(c.gbps...), Copy: figs(c.copy...), Mem: figs(c.mem...)}
		if got := s.held(); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: held %.3f, want %.3f", c.name, got, c.want)
		}
	}
}

// TestImages runs the images section on the 640x480 YCbCr and tensor
// cases: every runner a figure, draw only for YCbCr, a row each.
func TestImages(t *testing.T) {
	o := options{filter: regexp.MustCompile(`^img/(YCbCr420/640x480/to-NCHW-float32|float32/3x480x640/)`), sample: time.Millisecond, samples: 2, images: true}
	cs := imageCases(o)
	if len(cs) != 2 {
		t.Fatalf("%d image cases, want 2", len(cs))
	}
	r := &Report{Images: measureImages(o, cs, &progress{})}
	for _, c := range r.Images {
		want := []string{"call", "mem", "pix"}
		if strings.Contains(c.Name, "YCbCr") {
			want = append(want, "at", "draw")
		}
		if len(c.GBps) != len(want) {
			t.Errorf("%s: runners %v, want %v", c.Name, c.GBps, want)
		}
		for _, n := range want {
			if c.GBps[n].Median <= 0 {
				t.Errorf("%s: no figure for %s", c.Name, n)
			}
		}
	}
	var md bytes.Buffer
	r.printImages(&md)
	if !strings.Contains(md.String(), "| img/YCbCr420/640x480/to-NCHW-float32 |") || !strings.Contains(md.String(), "/draw") {
		t.Errorf("the images table:\n%s", md.String())
	}
}
