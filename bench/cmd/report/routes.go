package main

import (
	"io"

	"github.com/blockshuffle/blockshuffle/bench/internal/harness"
	"github.com/blockshuffle/blockshuffle/dispatch"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/public"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// routes writes, for every case, the plan it splits into and the kernel its
// rows go to on each tier this machine runs: what Describe says, without
// measuring anything.
func routes(w io.Writer, cs []harness.Case) error {
	tiers := dispatch.Available()
	head := []string{"case", "plan"}
	for _, t := range tiers {
		head = append(head, t.String())
	}
	tb := &table{head: head, text: true}
	for _, c := range cs {
		g, err := shape.Check(c.Op, public.Internal(c.Params()), c.Width)
		if err != nil {
			return err
		}
		row := []string{c.String(), ""}
		for _, t := range tiers {
			r := engine.Lookup(t.String()).Describe(&g)
			row[1] = r.Plan
			row = append(row, r.Kernel)
		}
		tb.rows = append(tb.rows, row)
	}
	tb.print(w)
	return nil
}
