// Command report is blockshuffle's main benchmark: for a fixed set of
// realistic tensors it measures every kernel tier this machine can run and
// copy() of the same bytes, and prints GB/s and the ratio to copy as a
// Markdown table.
//
//	go run ./bench/cmd/report               # everything, about a minute
//	go run ./bench/cmd/report -filter 'd2s/.*/NCHW/w4'
//
// Progress goes to stderr, the table to stdout.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/bench"
	"github.com/blockshuffle/blockshuffle/dispatch"
)

func main() {
	filter := flag.String("filter", "", "only cases whose name (op/order/layout/width/shape) matches this regexp")
	widths := flag.String("widths", "1,2,4,8", "element widths in bytes, comma-separated")
	sample := flag.Duration("sample", 10*time.Millisecond, "minimum duration of one timing sample")
	samples := flag.Int("samples", 5, "samples per measurement; the median is reported")
	flag.Parse()

	re, err := regexp.Compile(*filter)
	if err != nil {
		fail(err)
	}
	var ws []int
	for _, f := range strings.Split(*widths, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || w < 1 {
			fail(fmt.Errorf("bad width %q", f))
		}
		ws = append(ws, w)
	}
	var todo []bench.Case
	for _, c := range bench.Cases(bench.Shapes, ws) {
		if re.MatchString(c.String()) {
			todo = append(todo, c)
		}
	}
	tiers := dispatch.Available()

	header(os.Stdout, tiers)
	cols := []string{"case"}
	for _, t := range tiers {
		cols = append(cols, t.String()+" GB/s")
	}
	cols = append(cols, "copy GB/s")
	for _, t := range tiers {
		cols = append(cols, t.String()+"/copy")
	}
	tab := &table{head: cols}
	sum := newSummary(tiers)
	start := time.Now()
	fi, err := os.Stderr.Stat()
	terminal := err == nil && fi.Mode()&os.ModeCharDevice != 0
	for i, c := range todo {
		switch {
		case terminal:
			fmt.Fprintf(os.Stderr, "\r[%d/%d] %-44s", i+1, len(todo), c)
		case i%16 == 0:
			fmt.Fprintf(os.Stderr, "[%d/%d] %v\n", i+1, len(todo), c)
		}
		var fs []func()
		for _, t := range tiers {
			fs = append(fs, bench.Runner(c, t))
		}
		fs = append(fs, bench.CopyRunner(c.Bytes()))
		res := bench.Measure(fs, c.Bytes(), *sample, *samples)
		cp := res[len(res)-1]
		row := []string{c.String()}
		var ratios []string
		for _, r := range res[:len(tiers)] {
			row = append(row, gbs(r.Median))
			ratios = append(ratios, fmt.Sprintf("%.2f", r.Median/cp.Median))
		}
		sum.add(c, res)
		row = append(row, gbs(cp.Median))
		tab.rows = append(tab.rows, append(row, ratios...))
	}
	if terminal {
		fmt.Fprintf(os.Stderr, "\r%-60s\r", "")
	}
	fmt.Fprintf(os.Stderr, "done: %d cases in %v\n", len(todo), time.Since(start).Round(time.Second))
	tab.print(os.Stdout)
	fmt.Println()
	sum.print(os.Stdout)
}

// summary gathers, per shape and layout, the range of each tier's ratio to
// copy and of the best tier's speedup over generic.
type summary struct {
	tiers []dispatch.Tier
	keys  []string
	cells map[string][]span // per key: one span per tier, then the speedup
}

type span struct{ lo, hi float64 }

func (s *span) add(v float64) {
	if s.lo == 0 || v < s.lo {
		s.lo = v
	}
	s.hi = max(s.hi, v)
}

func newSummary(tiers []dispatch.Tier) *summary {
	return &summary{tiers: tiers, cells: map[string][]span{}}
}

func (s *summary) add(c bench.Case, res []bench.Result) {
	key := fmt.Sprintf("%v %v", c.Shape, c.Layout)
	if _, ok := s.cells[key]; !ok {
		s.keys = append(s.keys, key)
		s.cells[key] = make([]span, len(s.tiers)+1)
	}
	cells, cp := s.cells[key], res[len(res)-1].Median
	for i := range s.tiers {
		cells[i].add(res[i].Median / cp)
	}
	cells[len(s.tiers)].add(res[len(s.tiers)-1].Median / res[0].Median)
}

func (s *summary) print(w io.Writer) {
	head := []string{"shape, layout"}
	for _, t := range s.tiers {
		head = append(head, t.String()+"/copy")
	}
	head = append(head, s.tiers[len(s.tiers)-1].String()+"/generic")
	tab := &table{head: head}
	for _, k := range s.keys {
		row := []string{k}
		for _, c := range s.cells[k] {
			row = append(row, fmt.Sprintf("%.2f-%.2f", c.lo, c.hi))
		}
		tab.rows = append(tab.rows, row)
	}
	fmt.Fprintln(w, "Summary: range over both ops, both orders and the widths measured.")
	fmt.Fprintln(w)
	tab.print(w)
}

func header(w io.Writer, tiers []dispatch.Tier) {
	names := make([]string, len(tiers))
	for i, t := range tiers {
		names[i] = t.String()
	}
	fmt.Fprintf(w, "blockshuffle report: %s, %s/%s, GOMAXPROCS=%d, %s\n", cpuName(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.Version())
	fmt.Fprintf(w, "tier in use: %s; tiers measured: %s; one goroutine per call; GB/s = 1e9 bytes of output per second,\n"+
		"median of samples taken round-robin with copy() of the same bytes\n\n",
		bs.Tier(), strings.Join(names, ", "))
}

// cpuName is the model name the kernel reports, where it reports one.
func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return "unknown CPU"
}

func gbs(bytesPerSec float64) string { return fmt.Sprintf("%.1f", bytesPerSec/1e9) }

// table prints an aligned Markdown table.
type table struct {
	head []string
	rows [][]string
}

func (t *table) print(w io.Writer) {
	width := make([]int, len(t.head))
	for _, r := range append([][]string{t.head}, t.rows...) {
		for i, s := range r {
			width[i] = max(width[i], len(s))
		}
	}
	line := func(r []string) {
		for i, s := range r {
			if i == 0 {
				fmt.Fprintf(w, "| %-*s ", width[i], s)
			} else {
				fmt.Fprintf(w, "| %*s ", width[i], s)
			}
		}
		fmt.Fprintln(w, "|")
	}
	line(t.head)
	sep := make([]string, len(t.head))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
		if i > 0 {
			sep[i] = sep[i][1:] + ":"
		}
	}
	line(sep)
	for _, r := range t.rows {
		line(r)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(2)
}
