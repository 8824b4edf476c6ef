package transpose

import (
	"sync"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// structure is the canonical shape of a form when exactly the roles in
// present have sizes > 1: which roles merge into each canonical dim, and
// the canonical perm. It depends on nothing else, so it is computed once.
type structure struct {
	present [shape.Roles]bool
	groups  [][]shape.Role
	perm    []int
}

// structures()[i] lists shape.Forms[i]'s structures for every subset of
// roles present, built on first use so that importing the module costs
// nothing.
var structures = sync.OnceValue(func() (all [len(shape.Forms)][]structure) {
	for i := range shape.Forms {
		f := &shape.Forms[i]
		for mask := 0; mask < 1<<shape.Roles; mask++ {
			var s structure
			var v [shape.Roles]int
			for r := range shape.Roles {
				s.present[r] = mask&(1<<r) != 0
				v[r] = 1
				if s.present[r] {
					v[r] = 2
				}
			}
			size := f.Sizes(v)
			cf := canon(size[:], f.Perm[:])
			s.perm = cf.perm[:cf.n]
			for j := range cf.n {
				part := cf.part(j)
				g := make([]shape.Role, len(part))
				for k, d := range part {
					g[k] = f.In[d]
				}
				s.groups = append(s.groups, g)
			}
			all[i] = append(all[i], s)
		}
	}
	return all
})
