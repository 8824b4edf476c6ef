package transpose

import (
	"math/bits"
	"slices"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Match reports whether transposing a row-major tensor of the given size by
// perm (output dim k is input dim perm[k]) moves every element as an
// operator does on the same flat data, and if so returns its geometry, for
// 1-byte elements.
//
// The caller's own dims are preferred: the rank-6 and rank-5 forms come back
// with the sizes written in them. Where a transpose is several ops at once
// (an identity is any op with BlockSize 1, an empty tensor is every op),
// the first in forms' order wins.
func Match(size, perm []int) (shape.Geometry, bool) {
	total, ok := valid(size, perm)
	if !ok {
		return shape.Geometry{}, false
	}
	in := canon(size, perm)
	if g, ok := direct(size, perm, &in); ok {
		return g, true
	}
	if total == 0 { // nothing moves: every op with zero dims does the same
		return shape.Geometry{B: 1, Elem: 1}, true
	}
	all := structures()
	for i := range shape.Forms {
		f := &shape.Forms[i]
		for k := range all[i] {
			for _, v := range solve(&all[i][k], &in, size) {
				if g, ok := check(f, v, &in); ok {
					return g, true
				}
			}
		}
	}
	return shape.Geometry{}, false
}

// valid checks that perm is a permutation of size's dims and that the
// element count fits in int; it returns that count.
func valid(size, perm []int) (int, bool) {
	if len(size) != len(perm) || !shape.IsPermutation(perm) || slices.ContainsFunc(size, func(d int) bool { return d < 0 }) {
		return 0, false
	}
	return shape.Count(size...)
}

// check returns the geometry of form f at role sizes v, if the op they
// describe is valid and moves data as the transpose whose canonical form is
// in: the only test that decides a match.
func check(f *shape.Form, v [shape.Roles]int, in *canonical) (shape.Geometry, bool) {
	r := f.Request(v)
	g, err := r.Check()
	if err != nil {
		return shape.Geometry{}, false
	}
	size := f.Sizes(v)
	if c := canon(size[:], f.Perm[:]); !c.same(in) {
		return shape.Geometry{}, false
	}
	return g, true
}

// direct matches a transpose written exactly as a form, at rank 6 or with
// the batch dim left out at rank 5, taking every size as written.
func direct(size, perm []int, in *canonical) (shape.Geometry, bool) {
	skip := 6 - len(size) // 1 when N is left out
	if skip != 0 && skip != 1 {
		return shape.Geometry{}, false
	}
	for i := range shape.Forms {
		f := &shape.Forms[i]
		v := [shape.Roles]int{1, 1, 1, 1, 0}
		same := true
		for k := skip; k < 6 && same; k++ {
			r := f.In[k]
			same = perm[k-skip] == f.Perm[k]-skip &&
				(r != shape.Block || v[shape.Block] == 0 || v[shape.Block] == size[k-skip])
			v[r] = size[k-skip]
		}
		if !same {
			continue
		}
		if g, ok := check(f, v, in); ok {
			return g, true
		}
	}
	return shape.Geometry{}, false
}

// solve finds role sizes that give structure s the canonical form in, if
// the two have the same shape: each canonical dim is the product of its
// roles. A dim holding several roles can be split many ways, all moving
// data alike; the split along the caller's own dims is preferred, then
// the first role takes all. It returns the candidates to check.
func solve(s *structure, in *canonical, size []int) [][shape.Roles]int {
	if len(s.groups) != in.n {
		return nil
	}
	for j := range s.perm {
		if s.perm[j] != in.perm[j] {
			return nil
		}
	}
	var out [][shape.Roles]int
	for _, bs := range blockSizes(s, in, size) {
		v := [shape.Roles]int{1, 1, 1, 1, bs}
		ok := true
		for j, g := range s.groups {
			if ok = assign(&v, g, in.dims[j], sizesOf(in.part(j), size)); !ok {
				break
			}
		}
		if ok {
			out = append(out, v)
		}
	}
	return out
}

// blockSizes lists the block sizes worth trying for structure s: 1 if the
// block is absent, else the root of a canonical dim made of blocks alone,
// else the block a split along the caller's dims gives.
func blockSizes(s *structure, in *canonical, size []int) []int {
	if !s.present[shape.Block] {
		return []int{1}
	}
	for j, g := range s.groups {
		if !onlyBlocks(g) {
			continue
		}
		if r, ok := root(in.dims[j], len(g)); ok {
			return []int{r}
		}
		return nil
	}
	var bs []int
	for j, g := range s.groups {
		if split := natural(g, sizesOf(in.part(j), size), 0); split != nil {
			for k, r := range g {
				if r == shape.Block {
					bs = append(bs, split[k])
					break
				}
			}
		}
	}
	return bs
}

// assign sets the sizes of the roles in group g, whose product is dim,
// given v[block]; it fails if dim does not divide that way.
func assign(v *[shape.Roles]int, g []shape.Role, dim int, parts []int) bool {
	rest := dim
	var free []shape.Role
	for _, r := range g {
		if r != shape.Block {
			free = append(free, r)
			continue
		}
		if v[shape.Block] < 2 || rest%v[shape.Block] != 0 {
			return false
		}
		rest /= v[shape.Block]
	}
	switch {
	case len(free) == 0:
		return rest == 1
	case len(free) == 1:
		v[free[0]] = rest
		return true
	}
	if split := natural(g, parts, v[shape.Block]); split != nil {
		for k, r := range g {
			v[r] = split[k]
		}
		return true
	}
	v[free[0]] = rest // every split of a merged dim moves data alike
	return true
}

// natural splits a canonical dim made of the caller's dims parts among the
// roles of g, each role taking a run of consecutive parts: blocks exactly
// bs (any size, the same for both, if bs is 0), other roles possibly none.
// It returns the split giving the most roles a part of their own, or nil.
func natural(g []shape.Role, parts []int, bs int) []int {
	var best, cur []int
	bestFilled := -1
	var walk func(k, at, filled, b int)
	walk = func(k, at, filled, b int) {
		if k == len(g) {
			if at == len(parts) && filled > bestFilled {
				best, bestFilled = append([]int(nil), cur...), filled
			}
			return
		}
		prod := 1
		for end := at; end <= len(parts); end++ {
			if end > at {
				prod *= parts[end-1]
			}
			switch {
			case g[k] == shape.Block && (end == at || (b != 0 && prod != b)):
				continue
			case g[k] == shape.Block:
				cur = append(cur, prod)
				walk(k+1, end, filled+1, prod)
			default:
				cur = append(cur, prod)
				walk(k+1, end, filled+min(end-at, 1), b)
			}
			cur = cur[:len(cur)-1]
		}
	}
	walk(0, 0, 0, bs)
	return best
}

func sizesOf(dims, size []int) []int {
	s := make([]int, len(dims))
	for k, d := range dims {
		s[k] = size[d]
	}
	return s
}

func onlyBlocks(g []shape.Role) bool {
	for _, r := range g {
		if r != shape.Block {
			return false
		}
	}
	return true
}

// root returns the k-th root of x (k is 1 or 2), if it is a whole number.
func root(x, k int) (int, bool) {
	if k == 1 {
		return x, true
	}
	r := isqrt(x)
	return r, r*r == x
}

func isqrt(x int) int {
	r := 0
	for bit := 1 << (bits.UintSize/2 - 1); bit > 0; bit >>= 1 { // the root of an int has half its bits
		if t := r | bit; t <= x/t {
			r = t
		}
	}
	return r
}
