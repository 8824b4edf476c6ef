// Package transpose recognizes DepthToSpace and SpaceToDepth in an N-d
// transpose of a row-major tensor, for the root package's MatchTranspose.
//
// Two transposes move the flat data alike exactly when their canonical
// forms are equal. The canonical form drops the dims of size 1 and merges
// every run of input dims that stays adjacent, in the same order, in the
// output: neither step changes where any element goes. Each of the eight
// (op, order, layout) combinations is a rank-6 transpose (form), so a
// transpose is that op if its canonical form equals the form's for some
// sizes. Match solves for the sizes and then checks the equality, which
// alone decides: no false positive can come from the solving.
package transpose

import "github.com/blockshuffle/blockshuffle/internal/shape"

// maxRank bounds the dims of a canonical form: a request's, and the
// words of an element, which planning adds as a last dim. Fixed arrays
// keep matching free of garbage.
const maxRank = shape.MaxRank + 1

// canonical is a transpose with no dim of size 1 and no two input dims that
// could merge.
type canonical struct {
	n    int          // canonical dims
	dims [maxRank]int // sizes, in input order
	perm [maxRank]int // output dim k is input dim perm[k]
	kept [maxRank]int // the original dims of size other than 1, in input order
	// Canonical dim j merges kept[start[j] : start[j]+length[j]]: a form's
	// structure, and the caller's own dims, which solving prefers when it
	// splits a product.
	start, length [maxRank]int
}

// part returns the original input dims merged into canonical dim j.
func (c *canonical) part(j int) []int { return c.kept[c.start[j] : c.start[j]+c.length[j]] }

// canon reduces a valid transpose; size and perm must be checked by the
// caller (a permutation of 0..len-1, len at most maxRank, no size < 1, a
// product that fits in int).
func canon(size, perm []int) (c canonical) {
	// rank[i] is input dim i's position among the dims kept.
	var rank [maxRank]int
	k := 0
	for i, s := range size {
		rank[i] = -1
		if s != 1 {
			rank[i], c.kept[k] = k, i
			k++
		}
	}
	// The kept dims in output order, cut into runs adjacent in the input.
	var runStart, runLen [maxRank]int
	prev := -2
	for _, i := range perm {
		r := rank[i]
		if r < 0 {
			continue
		}
		if r == prev+1 && c.n > 0 {
			runLen[c.n-1]++
		} else {
			runStart[c.n], runLen[c.n] = r, 1
			c.n++
		}
		prev = r
	}
	// A run's canonical input position is the number of runs starting
	// before it in the input.
	for a := range c.n {
		j := 0
		for b := range c.n {
			if runStart[b] < runStart[a] {
				j++
			}
		}
		c.perm[a], c.start[j], c.length[j] = j, runStart[a], runLen[a]
		c.dims[j] = 1
		for _, d := range c.part(j) {
			c.dims[j] *= size[d]
		}
	}
	return c
}

// same reports whether two canonical forms move data alike.
func (c *canonical) same(d *canonical) bool {
	return c.n == d.n && c.dims == d.dims && c.perm == d.perm
}

// split returns c with input dim j split in two, outer outer's indexes
// of dims[j]/outer each: a form canon would merge again, which keeps the
// two apart as the dims of two passes (splitTwoPass). c.n < maxRank.
func (c *canonical) split(j, outer int) (s canonical) {
	s.n = c.n + 1
	for i, d := range c.dims[:c.n] {
		s.dims[i+min(i, j+1)-min(i, j)] = d // i, past j one on
	}
	s.dims[j], s.dims[j+1] = outer, c.dims[j]/outer
	k := 0
	for _, i := range c.perm[:c.n] {
		s.perm[k] = i + min(i, j+1) - min(i, j)
		if i == j {
			k++
			s.perm[k] = j + 1
		}
		k++
	}
	return s
}
