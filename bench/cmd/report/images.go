package main

import (
	"fmt"
	"io"

	"github.com/blockshuffle/blockshuffle/bench/internal/harness"
)

// ImageCase is one image conversion's figures, in GB/s of the tensor, by
// runner: "call" (imagetensor), "at", "pix", "mem", and "draw" (YCbCr).
type ImageCase struct {
	Name  string            `json:"case"`
	Bytes int               `json:"bytes"` // of the tensor
	GBps  map[string]Figure `json:"gbps"`
}

// imageCases are the image cases -filter keeps.
func imageCases(o options) []harness.ImageCase {
	var out []harness.ImageCase
	if !o.images || o.scalingOnly {
		return nil
	}
	for _, c := range harness.ImageCases {
		if o.filter.MatchString(c.String()) {
			out = append(out, c)
		}
	}
	return out
}

// measureImages times each case's call beside its baselines, round-robin,
// on one goroutine.
func measureImages(o options, cs []harness.ImageCase, p *progress) []ImageCase {
	out := make([]ImageCase, len(cs))
	for i, c := range cs {
		p.show("images", i, len(cs), c.String())
		runs := harness.NewImageRuns(c)
		names, fs := []string{"call", "mem"}, []func(){runs.Call, runs.Mem}
		for _, r := range []struct {
			name string
			f    func()
		}{{"at", runs.At}, {"pix", runs.Pix}, {"draw", runs.Draw}} {
			if r.f != nil {
				names, fs = append(names, r.name), append(fs, r.f)
			}
		}
		res := harness.Measure(fs, c.Bytes(), o.sample, o.samples)
		out[i] = ImageCase{Name: c.String(), Bytes: c.Bytes(), GBps: map[string]Figure{}}
		for k, n := range names {
			out[i].GBps[n] = figure(res[k])
		}
		p.done += len(fs) * (o.samples + 2)
	}
	p.show("images", len(cs), len(cs), "")
	return out
}

// printImages writes the images section: each case's speed and its
// ratios to its baselines.
func (r *Report) printImages(w io.Writer) {
	fmt.Fprintf(w, "\n%s\n\n", wrap("Images (package imagetensor), on one goroutine: GB/s of the tensor written (read, for "+
		"to-RGBA), and the speed over (a) at, the At(x, y).RGBA() loop Go projects write, (b) pix, the loop a careful "+
		"Go programmer writes over the pixels' slices (for to-RGBA: the hand clamp loop), (c) mem, a copy of the "+
		"tensor's bytes that never streams, and for YCbCr image/draw's conversion to RGBA alone (draw: the call is "+
		"that many times faster). float32 is normalized by ImageNet's mean and std.", 100))
	t := &table{head: []string{"case", "MB", "GB/s", "/at", "/pix", "/mem", "/draw"}}
	for _, c := range r.Images {
		call := c.GBps["call"].Median
		ratio := func(n string) string {
			if f, ok := c.GBps[n]; ok {
				return ratioString(call / f.Median)
			}
			return ""
		}
		t.rows = append(t.rows, []string{c.Name, mbString(c.Bytes), fmt.Sprintf("%.*f", digits(call), call),
			ratio("at"), ratio("pix"), ratio("mem"), ratio("draw")})
	}
	t.print(w)
}
