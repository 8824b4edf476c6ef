package vec

import (
	"fmt"
	"maps"
	"slices"
)

// Bodies builds a kernel's body for each chunk size with build and checks
// that none needs more than regs registers at once, counting scratch
// registers as MaxLive does. name names the kernel in errors.
func Bodies(name string, chunks []int, regs int, scratch func(Instr) int, build func(chunk int) (*Prog, error)) (map[int]*Prog, error) {
	out := map[int]*Prog{}
	for _, c := range chunks {
		p, err := build(c)
		if err != nil {
			return nil, fmt.Errorf("%s, %d-byte chunks: %w", name, c, err)
		}
		if live := p.MaxLive(scratch); live > regs {
			return nil, fmt.Errorf("%s, %d-byte chunks: %d values live, %d registers", name, c, live, regs)
		}
		out[c] = p
	}
	return out, nil
}

// Smallest is the smallest chunk of a kernel's bodies: the shortest row,
// in bytes, the kernel takes.
func Smallest[V any](bodies map[int]V) int { return slices.Min(slices.Collect(maps.Keys(bodies))) }

// KernelPeriod is the period of the lane kernels that move whole pixels:
// NHWC CRD pixels of cp channels of w-byte elements (cp > 0), and runs of
// w bytes that are not a power of two. ok is false for the others, whose
// elements are moved by unpacks, shuffles or whole registers.
func KernelPeriod(b, cp, w int) (pd Period, ok bool) {
	switch {
	case cp > 0:
		return CRD(b, cp, w), true
	case w&(w-1) != 0:
		return Runs(b, w), true
	}
	return Period{}, false
}

// PeriodBuilder builds the chunks of a period kernel in registers of width
// bytes (16 or 32).
func PeriodBuilder(pd Period, unzip bool, width int) func(chunk int) (*Prog, error) {
	return func(chunk int) (*Prog, error) {
		if unzip {
			return periodUnzip(pd, chunk, width)
		}
		return periodZip(pd, chunk, width)
	}
}
