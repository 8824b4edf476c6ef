package gather

import "github.com/blockshuffle/blockshuffle/internal/isa"

// fresh is how many source lines of 64 bytes reuse counts the output's
// reads over: 32 KiB, the smallest L1 data cache of the CPUs the gather
// kernels run on.
const fresh = 512

// whole is the least reuse of a plan that goes ahead of two passes.
const whole = 0.75

// Ahead reports whether the plan goes ahead of two passes through a
// buffer, in a transpose's route: where its output vectors take at most
// W.Ahead groups of windows; or where the two passes would be costly
// (they would split its elements or runs into words, on tensors that do
// not fit in one core's private cache) and it uses the source lines it
// reads whole (reuse), or its reps go in blocks (block), so that it reads
// the source from memory once. On an Intel Xeon
// (one goroutine, of a non-streaming copy) AVX2's gathers of four windows
// ran NCHW DepthToSpace b = 4 of 5-byte elements, whose lines they read
// whole, at 0.88 and two passes of bytes at 0.52; but SpaceToDepth b = 2
// of 3-byte elements, whose lines they read twice (reuse 0.5), at 0.43
// and two passes at 0.61, and a 2000x2000 matrix of 7-byte elements at
// 0.14, two passes at 0.28. Two passes of whole words cost less: the
// pixel shuffle of 1x12x135x240 float32 into HWC ran at 0.71-0.74 in two
// passes, 0.52-0.73 gathered (AVX2, AVX-512 VBMI). So did two passes in
// the cache: of 1x64x32x32 6-byte elements, 0.37 in two passes,
// 0.18-0.21 gathered. In blocks, on a Zen 5, SpaceToDepth of
// 1x3x672x672 b = 3 in NCHW, of 7-byte elements (reuse 1/3), ran at
// 0.26-0.30 of copy() in two passes and 0.30-0.32 gathered on AVX2,
// 0.24-0.28 and 0.37-0.40 on AVX-512 VBMI; b = 2 of 3-byte elements
// 0.34-0.36 by AVX2's unzip6x1 and 0.40-0.60 gathered.
func (p *Plan) Ahead(costly bool) bool {
	return p.Fwd.Groups <= p.W.Ahead || costly && (p.blocked || reuse(p.nest) >= whole)
}

// AheadWindows is w for the plans that may go ahead of two passes
// (Ahead): where they are not costly, of at most w.Ahead groups (none
// where MaxGroups is 0). Planning costs more than two passes' plan, and
// more the more groups a vector may take.
func AheadWindows(w isa.Windows, costly bool) isa.Windows {
	if !costly {
		w.MaxGroups = min(w.MaxGroups, w.Ahead)
	}
	return w
}

// reuse is the share of the bytes of the source lines the output of loop
// nest d reads, in its order, over its first reads of fresh lines, that
// it uses: near 1 where the output reads each line whole before moving on
// (a DepthToSpace in NCHW reads its planes' rows along), 1/b where it
// comes back to a line only for another plane of the output (a
// SpaceToDepth in NCHW), a few hundredths where it reads a word or two of
// each line of a matrix. Lines are counted as if the source began a
// line; a line read again counts once.
func reuse(d []dim) float64 {
	seen := map[int]bool{}
	run := d[len(d)-1].n // the innermost dim: contiguous bytes (see dims)
	outer := d[:len(d)-1]
	at := make([]int, len(outer))
	used, src := 0, 0
	for len(seen) < fresh {
		for l := src >> 6; l <= (src+run-1)>>6 && len(seen) < fresh; l++ {
			seen[l] = true
		}
		used += run
		k := len(outer) - 1
		for ; k >= 0; k-- { // the next run, as an odometer
			at[k]++
			src += outer[k].s
			if at[k] < outer[k].n {
				break
			}
			src -= at[k] * outer[k].s
			at[k] = 0
		}
		if k < 0 {
			break
		}
	}
	return float64(used) / float64(64*len(seen))
}
