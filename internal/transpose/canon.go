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

// canonical is a transpose with no dim of size 1 and no two input dims that
// could merge.
type canonical struct {
	dims []int // sizes, in input order
	perm []int // output dim k is input dim perm[k]
	// parts lists, per canonical dim, the original input dims it merges (in
	// input order, those of size > 1 only): a form's structure, and the
	// caller's own dims, which solving prefers when it splits a product.
	parts [][]int
}

// canon reduces a valid transpose; size and perm must be checked by the
// caller (a permutation of 0..len-1, no size < 1).
func canon(size, perm []int) canonical {
	// rank[i] is input dim i's position among the dims kept.
	rank := make([]int, len(size))
	kept := 0
	for i, s := range size {
		rank[i] = -1
		if s != 1 {
			rank[i] = kept
			kept++
		}
	}
	// Output order of the kept dims, cut into runs adjacent in the input.
	var runs [][]int
	prev := -2
	for _, i := range perm {
		if rank[i] < 0 {
			continue
		}
		if rank[i] == prev+1 && len(runs) > 0 {
			runs[len(runs)-1] = append(runs[len(runs)-1], i)
		} else {
			runs = append(runs, []int{i})
		}
		prev = rank[i]
	}
	// Canonical input order sorts the runs by where they start.
	order := make([]int, len(runs)) // order[j]: run at canonical input dim j
	for k := range runs {
		order[k] = k
	}
	for a := 1; a < len(order); a++ { // insertion sort: at most a handful of runs
		for b := a; b > 0 && runs[order[b]][0] < runs[order[b-1]][0]; b-- {
			order[b], order[b-1] = order[b-1], order[b]
		}
	}
	c := canonical{dims: make([]int, len(runs)), perm: make([]int, len(runs)), parts: make([][]int, len(runs))}
	for j, k := range order {
		c.perm[k] = j
		prod := 1
		for _, i := range runs[k] {
			prod *= size[i]
		}
		c.dims[j] = prod
		c.parts[j] = runs[k]
	}
	return c
}

// same reports whether two canonical forms move data alike.
func (c canonical) same(d canonical) bool {
	if len(c.dims) != len(d.dims) {
		return false
	}
	for j := range c.dims {
		if c.dims[j] != d.dims[j] || c.perm[j] != d.perm[j] {
			return false
		}
	}
	return true
}
