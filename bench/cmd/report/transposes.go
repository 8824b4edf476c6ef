package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/blockshuffle/blockshuffle/bench/internal/harness"
	"github.com/blockshuffle/blockshuffle/dispatch"
)

// TransposeCase is one transpose's figures, by runner name, and the plan
// each tier made for it.
type TransposeCase struct {
	Name  string            `json:"case"`
	What  string            `json:"what"`
	Shape []int             `json:"shape"`
	Perm  []int             `json:"perm"`
	Width int               `json:"width"`
	Bytes int               `json:"bytes"`
	GBps  map[string]Figure `json:"gbps"`
	Plans map[string]string `json:"plans"`
}

func (c *TransposeCase) ratio(a, b string) float64 { return c.GBps[a].Median / c.GBps[b].Median }

// transposeCases are the report's transposes that pass the filter.
func transposeCases(o options) []harness.TransposeCase {
	if !o.transposes {
		return nil
	}
	var out []harness.TransposeCase
	for _, c := range harness.TransposeCases(o.transposeList, o.widths) {
		if o.filter.MatchString(c.String()) {
			out = append(out, c)
		}
	}
	return out
}

// transposeRunners are the tiers, the nested loop, copy() and the copy
// that never streams.
func transposeRunners(tiers []dispatch.Tier) []string {
	var names []string
	for _, t := range tiers {
		names = append(names, t.String())
	}
	return append(names, "loop", "copy", "mem")
}

// measureTransposes measures each transpose with every tier, the nested
// loop and both copies, all on one goroutine.
func measureTransposes(o options, cs []harness.TransposeCase, tiers []dispatch.Tier, p *progress) (names []string, out []TransposeCase) {
	names = transposeRunners(tiers)
	for i, c := range cs {
		p.show("transposes", i, len(cs), c.String())
		b := harness.NewTransposeBuffers(c)
		var fs []func()
		k := TransposeCase{Name: c.String(), What: c.What, Shape: c.Shape, Perm: c.Perm, Width: c.Width, Bytes: c.Bytes(),
			GBps: map[string]Figure{}, Plans: map[string]string{}}
		for _, t := range tiers {
			fs = append(fs, b.Tier(t))
			k.Plans[t.String()] = b.Describe(t)
		}
		fs = append(fs, b.Loop(), b.Copy(), b.MemCopy())
		res := harness.Measure(fs, c.Bytes(), o.sample, o.samples)
		p.done += len(fs) * (o.samples + 2)
		for j, r := range res {
			k.GBps[names[j]] = figure(r)
		}
		out = append(out, k)
	}
	p.show("transposes", len(cs), len(cs), "")
	return names, out
}

// transposeFloor gives, per tier, the median and lowest ratio to copy()
// over the transposes, the lowest case, how many fall under floorTarget,
// the median ratio to the copy that never streams, and the lowest gain
// over the nested loop.
func (r *Report) transposeFloor() *table {
	t := &table{head: []string{"tier", "median", "lowest", "lowest case", fmt.Sprintf("under %.1f", floorTarget), "/mem", "/loop"}}
	for _, n := range r.TransposeRunners {
		if baseline(n) {
			continue
		}
		ratios, mem := make([]float64, len(r.Transposes)), make([]float64, len(r.Transposes))
		low, under, gain := 0, 0, 0.0
		for i := range r.Transposes {
			c := &r.Transposes[i]
			ratios[i], mem[i] = c.ratio(n, "copy"), c.ratio(n, "mem")
			if ratios[i] < ratios[low] {
				low = i
			}
			if ratios[i] < floorTarget {
				under++
			}
			if g := c.ratio(n, "loop"); i == 0 || g < gain {
				gain = g
			}
		}
		lowest := ratios[low]
		slices.Sort(ratios)
		slices.Sort(mem)
		t.rows = append(t.rows, []string{n, ratioString(median(ratios)), ratioString(lowest), r.Transposes[low].Name,
			fmt.Sprintf("%d of %d", under, len(ratios)), ratioString(median(mem)), ratioString(gain)})
	}
	return t
}

// transposeTable lists every transpose: the tier in use's ratio to
// copy(), the loop's, and the tier in use over the loop; wide, every
// tier's ratio to copy(), where models have it, and the tier in use's
// plan (without the tier's name).
func (r *Report) transposeTable(wide bool) *table {
	head := []string{"case"}
	if wide {
		head = append(head, "what")
	}
	head = append(head, "MB")
	tiers := []string{r.Tier}
	if wide {
		tiers = nil
		for _, n := range r.TransposeRunners {
			if !baseline(n) {
				tiers = append(tiers, n)
			}
		}
	}
	for _, n := range tiers {
		head = append(head, n+"/copy")
	}
	head = append(head, "loop/copy", r.Tier+"/loop")
	if wide {
		head = append(head, r.Tier+" plan")
	}
	t := &table{head: head}
	for _, c := range r.Transposes {
		row := []string{c.Name}
		if wide {
			row = append(row, c.What)
		}
		row = append(row, mbString(c.Bytes))
		for _, n := range tiers {
			row = append(row, ratioString(c.ratio(n, "copy")))
		}
		row = append(row, ratioString(c.ratio("loop", "copy")), ratioString(c.ratio(r.Tier, "loop")))
		if wide {
			row = append(row, strings.TrimPrefix(c.Plans[r.Tier], r.Tier+": "))
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// printTransposeFloor writes the transposes' floor, for the report's top.
func (r *Report) printTransposeFloor(w io.Writer) {
	fmt.Fprintf(w, "\nTransposes (the last table lists them): per tier, the median and the lowest ratio to copy(),\n"+
		"the cases under %.1f, the median ratio to mem (/mem), and the lowest gain over loop (/loop), the\n"+
		"nested loop a Go programmer writes (a 2-D matrix in blocks of 32x32). Each runs on one goroutine\n"+
		"(Workers = 1), as its baselines do; the scaling section runs the large ones as users call them.\n\n", floorTarget)
	r.transposeFloor().print(w)
}

// printTransposes writes every transpose.
func (r *Report) printTransposes(w io.Writer, wide bool) {
	if wide {
		fmt.Fprintf(w, "\nEvery transpose: case is t/w<element bytes>/<shape>/<perm>; the plan is what the tier in use\n"+
			"does: the canonical form (dims of 1 dropped, dims that stay adjacent merged), and the kernel.\n\n")
	} else {
		fmt.Fprintf(w, "\nEvery transpose: case is t/w<element bytes>/<shape>/<perm> (every tier and the plans: -wide).\n\n")
	}
	r.transposeTable(wide).print(w)
}
