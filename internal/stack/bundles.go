package stack

import (
	"fmt"
	"math"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Bundles: the AVX2 and NEON counterpart of the stacked rows. They
// permute bytes only within 16-byte registers, so their bundle is one row of
// each of the four planes, zipped pair by pair into the two space rows they make (or
// unzipped from them) with the lane kernels' unpack programs. What makes
// it fast on short rows is what it leaves out: a row is moved in whole
// chunks, the last one running past the row's end by up to a chunk, with
// no tail pass and no branch per chunk. The bytes past a row (the slop)
// land in the next bundle's rows, on both sides, and that bundle rewrites them
// later. The last bundle of each group of a SpaceToDepth, whose slop would
// land in the next plane's first row, written before, moves exactly, as
// the lane kernels move rows; so does the last bundle of a DepthToSpace
// call, whose groups' space sides follow each other, each rewriting the
// slop of the one before. So a kernel touches only its groups' bytes.
//
// AVX2's 1- and 2-byte SpaceToDepth kernels move rows of 9 to 16 bytes
// two bundles at a time, each plane's two rows in one 32-byte store, while
// enough bundles remain before the group's last that the pair's slop (up to
// 14 bytes, past a row of 9) lands in rows moved later (asmgen's bundle
// pairs). Interpret models one bundle at a time: the bytes the kernels leave
// are the same.

// BundleChunks are the chunks, in bytes of one lane, the bundle kernels move
// a row in, smallest first: a row of n bytes goes in chunks of the
// smallest that is at least n (n > 32: of 32), so the slop of a row is
// less than half a chunk and less than the row itself.
var BundleChunks = [...]int{4, 8, 16, 32}

// MinRow and MaxBundleRow bound the rows, in bytes, bundles take: below 4
// bytes the slop could outrun the next bundle; from MaxBundleRow on, the lane
// kernels' tail pass costs little against the row (BenchmarkShuffle).
const (
	MinRow       = 4
	MaxBundleRow = 128
)

// RowChunk is the chunk a row of n bytes of w-byte elements moves in.
func RowChunk(n, w int) int {
	for _, c := range BundleChunks {
		if c >= n && c >= w {
			return c
		}
	}
	return BundleChunks[len(BundleChunks)-1]
}

// RowSpan is how many bytes of each lane a row of n bytes reads or writes
// in chunks of RowChunk: n rounded up to a whole chunk.
func RowSpan(n, w int) int {
	c := RowChunk(n, w)
	return (n + c - 1) / c * c
}

// Bundles is the plan of a call for the bundle kernels. In each of Groups
// groups, Group bytes apart on both sides, bundle u < Bundles is row u of each
// of the four planes (i, j), plane 2*i+j starting (2*i+j)*Plane bytes into
// the group on the depth side, at u*N; on the space side the bundle's two
// rows, 2*N bytes each, start at 4*u*N.
type Bundles struct {
	ToDepth                          bool
	Elem                             int
	N, Bundles, Plane, Groups, Group int
}

// NewBundles plans a validated call for the bundle kernels, or reports
// false if it is not NCHW of block size 2 with elements of 1 to 8 bytes,
// depth rows of MinRow to MaxBundleRow bytes and at least two bundles per
// group.
func NewBundles(g *shape.Geometry) (Bundles, bool) {
	d, w := g, g.Elem
	n := d.W * w
	if g.NHWC || g.B != b || w > 8 || w&(w-1) != 0 || n < MinRow || n > MaxBundleRow || g.Len() == 0 {
		return Bundles{}, false
	}
	cp, plane := d.C/(b*b), d.H*n
	r := Bundles{ToDepth: g.ToDepth, Elem: w, N: n, Bundles: cp * d.H, Plane: cp * plane, Groups: d.N, Group: d.C * plane}
	if g.CRD {
		r.Bundles, r.Plane, r.Groups, r.Group = d.H, plane, d.N*cp, b*b*plane
	}
	return r, r.Bundles >= 2
}

// BundlesReach returns how many bytes from their starts a bundle kernel
// reaches on the depth and space sides with these arguments, or false for
// arguments no kernel takes or whose reach would overflow: the check
// before every call, which trusts no plan. The slop of a bundle stays in
// the next bundle's rows (it is less than a row: RowChunk), and the last
// bundle moves exactly, so the reach is that of the last bundle's rows.
func BundlesReach(n, w, bundles, plane, groups, group int) (depth, space int, ok bool) {
	const huge = math.MaxInt / 16
	if n < MinRow || n > MaxBundleRow || w < 1 || w > 8 || w&(w-1) != 0 || n%w != 0 || bundles < 1 || bundles > countMax || groups < 1 ||
		min(plane, group) < 0 || max(plane, group) > huge || groups > 1 && group > huge/(groups-1) {
		return 0, 0, false
	}
	end, g := bundles*n, (groups-1)*group
	return g + end + (Planes-1)*plane, g + Planes*end, true
}

// Interpret runs the plan as the kernels do, in Go, slop included: the
// model the kernels are tested against.
func (r *Bundles) Interpret(space, depth []byte) {
	span := RowSpan(r.N, r.Elem)
	for g := range r.Groups {
		for u := range r.Bundles {
			d, s := g*r.Group+u*r.N, g*r.Group+Planes*u*r.N
			n := span
			if u == r.Bundles-1 && (r.ToDepth || g == r.Groups-1) {
				n = r.N // moved exactly
			}
			for i := range b {
				r.row(space[s+i*b*r.N:], depth[d+b*i*r.Plane:], n)
			}
		}
	}
}

// row zips (DepthToSpace) or unzips n bytes of lanes depth and
// depth[Plane:] to or from the space row at space.
func (r *Bundles) row(space, depth []byte, n int) {
	w := r.Elem
	for x := 0; x < n; x += w {
		for j := range b {
			at := space[b*x+j*w:][:w]
			lane := depth[j*r.Plane+x:][:w]
			if !r.ToDepth {
				copy(at, lane)
			} else {
				copy(lane, at)
			}
		}
	}
}

// String describes the plan, as Describe reports it.
func (r *Bundles) String() string {
	return fmt.Sprintf("bundles, %d groups of %d bundles of 4 rows of %d bytes in chunks of %d", r.Groups, r.Bundles, r.N, RowChunk(r.N, r.Elem))
}
