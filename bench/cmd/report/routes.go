package main

import (
	"io"

	"github.com/blockshuffle/blockshuffle/bench/internal/harness"
	"github.com/blockshuffle/blockshuffle/dispatch"
	"github.com/blockshuffle/blockshuffle/internal/engine"
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
		r := c.Request(1)
		row := []string{c.String(), ""}
		for _, t := range tiers {
			p, err := engine.Lookup(t.String()).Prepare(&r, engine.PlanOperator)
			if err != nil {
				return err
			}
			r := p.Describe()
			row[1] = r.Plan
			row = append(row, r.Kernel)
		}
		tb.rows = append(tb.rows, row)
	}
	tb.print(w)
	return nil
}
