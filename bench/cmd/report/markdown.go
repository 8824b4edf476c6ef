package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// print writes the report as Markdown, each line at most 100 columns
// unless wide: the header, then what a reader wants first, the floor and
// the summary, then the scaling and the automatic worker choice, and
// every transpose; wide adds every tier to the summary, the table of
// every case, and the plans and every tier to the transposes' table.
func (r *Report) print(w io.Writer, wide bool) {
	tiers := r.tiers()
	fmt.Fprintf(w, "blockshuffle report: %s\n%s/%s, GOMAXPROCS=%d, %s, %s\n\n",
		r.CPU, r.GOOS, r.GOARCH, r.GOMAXPROCS, r.Go, r.Date.Format("2006-01-02"))
	fmt.Fprintf(w, "Tier in use: %s; tiers measured, each on one goroutine: %s.\n"+
		"loop: the nested loop a Go programmer writes by hand (no division, output kept); typical:\n"+
		"the loop Go ONNX interpreters use today (division and modulo per element, output allocated).\n"+
		"copy: Go's copy() of the same bytes, the user's reference; from 1 MiB it writes around the\n"+
		"caches, so where the cache holds the tensor it runs slower than memory allows and ratios to it\n"+
		"read above 1. mem: copy() in 256 KiB chunks, which never does: memory speed, a ceiling in cache.\n"+
		"GB/s = 1e9 bytes of output per second: the median of %d samples of at least %v each, taken\n"+
		"round-robin after a warm-up; a ratio is of two such medians, unless confirmed (below).\n\n",
		r.Tier, strings.Join(tiers, ", "), r.Samples, timeString(r.SampleNs))
	if len(r.Cases) > 0 {
		fmt.Fprintf(w, "Floor: per tier, over every case, the median and the lowest ratio to copy(), and how many\n"+
			"cases fall under %.1f. Confirmed: each tier's lowest case and its cases under %.1f (up to %d) were\n"+
			"measured again in %d rounds (pairs) of the tier and copy() back to back; their ratio is the\n"+
			"median of the rounds' ratios, here and in every table below.\n\n", floorTarget, floorTarget, maxConfirmed, r.ConfirmPairs)
		floor := r.floor()
		floor.print(w)
		for _, row := range floor.rows {
			if strings.HasSuffix(row[2], notConfirmed) {
				fmt.Fprintf(w, "\n%s not confirmed: the tier's lowest ratio from its first samples.\n", notConfirmed)
				break
			}
		}
		fmt.Fprintf(w, "\nSummary: range over both ops, both orders and the widths measured%s.\n\n",
			map[bool]string{false: " (every tier: -wide)"}[wide])
		r.summary(wide).print(w)
	}
	if len(r.Transposes) > 0 {
		r.printTransposeFloor(w)
	}
	if len(r.Cases) > 0 && wide {
		fmt.Fprintf(w, "\nEvery case: spread is (max - min) / median of the noisiest figure in the row.\n\n")
		r.caseTable().print(w)
	}
	if len(r.Scaling) > 0 {
		r.printScaling(w, wide)
	}
	if len(r.Auto) > 0 {
		fmt.Fprintf(w, "\nAutomatic workers on the shapes that fit in cache: auto / workers=1, range over both ops,\n"+
			"orders and layouts and the widths measured; \"slower\" counts the cases where every sample of\n"+
			"auto is slower than every sample of workers=1.\n\n")
		r.autoTable().print(w)
	}
	if len(r.Transposes) > 0 {
		r.printTransposes(w, wide)
	}
	if len(r.Images) > 0 {
		r.printImages(w)
	}
}

// tiers are the kernel tiers measured.
func (r *Report) tiers() []string { return r.Tiers }

func (r *Report) caseTable() *table {
	tiers := r.tiers()
	head := []string{"case"}
	for _, n := range r.Runners {
		head = append(head, n+" GB/s")
	}
	for _, n := range append(tiers, "loop", "typical") {
		head = append(head, n+"/copy")
	}
	t := &table{head: append(head, r.Tier+"/loop", r.Tier+"/typical", "spread")}
	for _, c := range r.Cases {
		row := []string{c.Name}
		for _, n := range r.Runners {
			row = append(row, fmt.Sprintf("%.*f", digits(c.GBps[n].Median), c.GBps[n].Median))
		}
		for _, n := range append(tiers, "loop", "typical") {
			row = append(row, ratioString(c.ratio(n, "copy")))
		}
		row = append(row, ratioString(c.ratio(r.Tier, "loop")), fmt.Sprintf("%.0f", c.ratio(r.Tier, "typical")), percent(c.spread()))
		t.rows = append(t.rows, row)
	}
	return t
}

// summary gives, per shape and layout, the range of the ratios to copy
// of generic, the tier in use and the hand-written loop, and of the tier
// in use over the loop; wide, every tier's and the typical loop's ratio
// to copy, and generic and the tier in use over both loops.
func (r *Report) summary(wide bool) *table {
	var cols []string
	var fs []func(*Case) float64
	add := func(a, b string) {
		cols = append(cols, a+"/"+b)
		fs = append(fs, func(c *Case) float64 { return c.ratio(a, b) })
	}
	tiers, over, loops := slices.Compact([]string{"generic", r.Tier}), []string{r.Tier}, []string{"loop"}
	if wide {
		tiers, over, loops = r.tiers(), tiers, []string{"loop", "typical"}
	}
	for _, n := range append(tiers, loops...) {
		add(n, "copy")
	}
	for _, n := range over {
		for _, l := range loops {
			add(n, l)
		}
	}
	return ranges(groups(r.Cases), "shape, layout", cols, fs)
}

// notConfirmed marks a lowest ratio that was not measured again.
const notConfirmed = "*"

// floorTarget is the ratio to copy() every case should reach.
const floorTarget = 0.5

// floor gives, per tier and for generic, the median and the lowest ratio
// to copy over all cases, the case with the lowest (marked where it was
// not confirmed), and the number of cases under floorTarget, with how
// many of them were confirmed: a user judges the library by their own
// shape.
func (r *Report) floor() *table {
	t := &table{head: []string{"tier", "median", "lowest", "lowest case", fmt.Sprintf("under %.1f", floorTarget), "confirmed", "/mem"}}
	for _, n := range r.Runners {
		if baseline(n) {
			continue
		}
		ratios, mem := make([]float64, len(r.Cases)), make([]float64, len(r.Cases))
		low, under, confirmed := 0, 0, 0
		for i := range r.Cases {
			ratios[i], mem[i] = r.Cases[i].ratio(n, "copy"), r.Cases[i].ratio(n, "mem")
			if ratios[i] < ratios[low] {
				low = i
			}
			if ratios[i] < floorTarget {
				under++
				if _, ok := r.Cases[i].Confirmed[n]; ok {
					confirmed++
				}
			}
		}
		lowest := ratioString(ratios[low])
		if _, ok := r.Cases[low].Confirmed[n]; !ok {
			lowest += notConfirmed
		}
		slices.Sort(ratios)
		slices.Sort(mem)
		t.rows = append(t.rows, []string{n, ratioString(median(ratios)), lowest, r.Cases[low].Name,
			fmt.Sprintf("%d of %d", under, len(ratios)), fmt.Sprint(confirmed), ratioString(median(mem))})
	}
	return t
}

// baseline reports whether a runner is a baseline rather than a tier.
func baseline(name string) bool {
	return name == "copy" || name == "mem" || name == "loop" || name == "typical"
}

// median is the middle of sorted values (the mean of the two middle ones
// for an even count).
func median(sorted []float64) float64 {
	n := len(sorted)
	return (sorted[(n-1)/2] + sorted[n/2]) / 2
}

func (r *Report) autoTable() *table {
	gs := groups(r.Auto)
	t := ranges(gs, "shape, layout", []string{"auto/workers=1"}, []func(*Case) float64{
		func(c *Case) float64 { return c.ratio("auto", "workers=1") },
	})
	t.head = append(t.head, "slower", "largest spread")
	for i, k := range gs {
		slower, spread := 0, 0.0
		for _, c := range k.cases {
			a, one := c.GBps["auto"], c.GBps["workers=1"]
			if a.Max < one.Min {
				slower++
			}
			spread = max(spread, c.spread())
		}
		t.rows[i] = append(t.rows[i], fmt.Sprintf("%d of %d", slower, len(k.cases)), percent(spread))
	}
	return t
}

// group is the cases of one shape in one layout.
type group struct {
	name  string
	cases []*Case
}

// shapeName is the group's shape.
func (g group) shapeName() string { return g.cases[0].shape.String() }

// groups splits cases by shape and layout, in the order they first appear.
func groups(cases []Case) []group {
	return groupsBy(cases, func(c *Case) string { return fmt.Sprintf("%v %s", c.shape, c.Layout) })
}

// groupsBy splits cases by key, in the order the keys first appear.
func groupsBy(cases []Case, key func(*Case) string) []group {
	var out []group
	index := map[string]int{}
	for i := range cases {
		c := &cases[i]
		name := key(c)
		j, ok := index[name]
		if !ok {
			j = len(out)
			index[name] = j
			out = append(out, group{name: name})
		}
		out[j].cases = append(out[j].cases, c)
	}
	return out
}

// ranges is a table of the lowest and highest value of each function over
// the cases of each group.
func ranges(gs []group, first string, cols []string, fs []func(*Case) float64) *table {
	t := &table{head: append([]string{first}, cols...)}
	for _, g := range gs {
		row := []string{g.name}
		for _, f := range fs {
			lo, hi := f(g.cases[0]), f(g.cases[0])
			for _, c := range g.cases[1:] {
				lo, hi = min(lo, f(c)), max(hi, f(c))
			}
			row = append(row, rangeString(lo, hi))
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// rangeString prints a range of ratios.
func rangeString(lo, hi float64) string { return ratioString(lo) + "-" + ratioString(hi) }

// ratioString prints a ratio to two or three significant figures, large
// ones whole.
func ratioString(v float64) string {
	switch {
	case v >= 10:
		return fmt.Sprintf("%.0f", v)
	case v < 0.1:
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// digits keeps three significant figures for GB/s from 0.1 to 999.
func digits(v float64) int {
	switch {
	case v >= 100:
		return 0
	case v >= 10:
		return 1
	case v >= 1:
		return 2
	}
	return 3
}

// mbString prints a tensor's size in MB to two significant figures,
// larger ones whole.
func mbString(bytes int) string {
	if v := float64(bytes) / 1e6; v < 10 {
		return fmt.Sprintf("%.2g", v)
	} else {
		return fmt.Sprintf("%.0f", v)
	}
}

// wrap breaks text into lines of at most width columns, at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(text) {
		if i > 0 && line+1+len(word) > width {
			b.WriteByte('\n')
			line = 0
		} else if i > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}

func percent(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }

func timeString(ns int64) string { return fmt.Sprint(time.Duration(ns)) }

// table prints an aligned Markdown table: the first column (or, with text
// set, every column) to the left, figures to the right.
type table struct {
	head []string
	rows [][]string
	text bool
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
			if i == 0 || t.text {
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
		if i > 0 && !t.text {
			sep[i] = sep[i][1:] + ":"
		}
	}
	line(sep)
	for _, r := range t.rows {
		line(r)
	}
}
