package stack

import (
	"fmt"
	"math"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Row units: the AVX2 and NEON counterpart of the stacked rows. They
// permute bytes only within 16-byte registers, so their unit is one row of
// each of the four planes, zipped pair by pair into the two space rows they make (or
// unzipped from them) with the lane kernels' unpack programs. What makes
// it fast on short rows is what it leaves out: a row is moved in whole
// chunks, the last one running past the row's end by up to a chunk, with
// no tail pass and no branch per chunk. The bytes past a row (the slop)
// land in the next unit's rows, on both sides, and that unit rewrites them
// later. The last unit of each group of a SpaceToDepth, whose slop would
// land in the next plane's first row, written before, moves exactly, as
// the lane kernels move rows; so does the last unit of a DepthToSpace
// call, whose groups' space sides follow each other, each rewriting the
// slop of the one before. So a kernel touches only its groups' bytes.
//
// AVX2's 1- and 2-byte SpaceToDepth kernels move rows of 9 to 16 bytes
// two units at a time, each plane's two rows in one 32-byte store, while
// enough units remain before the group's last that the pair's slop (up to
// 14 bytes, past a row of 9) lands in rows moved later (asmgen's unit
// pairs). Interpret models one unit at a time: the bytes the kernels leave
// are the same.

// RowChunks are the chunks, in bytes of one lane, the row-unit kernels move
// a row in, smallest first: a row of n bytes goes in chunks of the
// smallest that is at least n (n > 32: of 32), so the slop of a row is
// less than half a chunk and less than the row itself.
var RowChunks = [...]int{4, 8, 16, 32}

// MinRow and MaxRowUnit bound the rows, in bytes, row units take: below 4
// bytes the slop could outrun the next unit; from MaxRowUnit on, the lane
// kernels' tail pass costs little against the row (BenchmarkShuffle).
const (
	MinRow     = 4
	MaxRowUnit = 128
)

// RowChunk is the chunk a row of n bytes of w-byte elements moves in.
func RowChunk(n, w int) int {
	for _, c := range RowChunks {
		if c >= n && c >= w {
			return c
		}
	}
	return RowChunks[len(RowChunks)-1]
}

// RowSpan is how many bytes of each lane a row of n bytes reads or writes
// in chunks of RowChunk: n rounded up to a whole chunk.
func RowSpan(n, w int) int {
	c := RowChunk(n, w)
	return (n + c - 1) / c * c
}

// Rows is the plan of a call for the row-unit kernels. In each of Groups
// groups, Group bytes apart on both sides, unit u < Units is row u of each
// of the four planes (i, j), plane 2*i+j starting (2*i+j)*Plane bytes into
// the group on the depth side, at u*N; on the space side the unit's two
// rows, 2*N bytes each, start at 4*u*N.
type Rows struct {
	Op                             shape.Op
	Elem                           int
	N, Units, Plane, Groups, Group int
}

// NewRows plans a validated call for the row-unit kernels, or reports
// false if it is not NCHW of block size 2 with elements of 1 to 8 bytes,
// depth rows of MinRow to MaxRowUnit bytes and at least two units per
// group.
func NewRows(g *shape.Geometry) (Rows, bool) {
	d, w := g.Depth, g.Elem
	n := d.W * w
	if g.Layout != shape.NCHW || g.B != b || w > 8 || w&(w-1) != 0 || n < MinRow || n > MaxRowUnit || g.Len() == 0 {
		return Rows{}, false
	}
	cp, plane := d.C/(b*b), d.H*n
	r := Rows{Op: g.Op, Elem: w, N: n, Units: cp * d.H, Plane: cp * plane, Groups: d.N, Group: d.C * plane}
	if g.Order == shape.CRD {
		r.Units, r.Plane, r.Groups, r.Group = d.H, plane, d.N*cp, b*b*plane
	}
	return r, r.Units >= 2
}

// RowsReach returns how many bytes from their starts a row-unit kernel
// reaches on the depth and space sides with these arguments, or false for
// arguments no kernel takes or whose reach would overflow: the check
// before every call, which trusts no plan. The slop of a unit stays in
// the next unit's rows (it is less than a row: RowChunk), and the last
// unit moves exactly, so the reach is that of the last unit's rows.
func RowsReach(n, w, units, plane, groups, group int) (depth, space int, ok bool) {
	const huge = math.MaxInt / 16
	if n < MinRow || n > MaxRowUnit || w < 1 || w > 8 || w&(w-1) != 0 || n%w != 0 || units < 1 || units > unitsMax || groups < 1 ||
		min(plane, group) < 0 || max(plane, group) > huge || groups > 1 && group > huge/(groups-1) {
		return 0, 0, false
	}
	end, g := units*n, (groups-1)*group
	return g + end + (Planes-1)*plane, g + Planes*end, true
}

// Interpret runs the plan as the kernels do, in Go, slop included: the
// model the kernels are tested against.
func (r *Rows) Interpret(space, depth []byte) {
	span := RowSpan(r.N, r.Elem)
	for g := range r.Groups {
		for u := range r.Units {
			d, s := g*r.Group+u*r.N, g*r.Group+Planes*u*r.N
			n := span
			if u == r.Units-1 && (r.Op == shape.SpaceToDepth || g == r.Groups-1) {
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
func (r *Rows) row(space, depth []byte, n int) {
	w := r.Elem
	for x := 0; x < n; x += w {
		for j := range b {
			at := space[b*x+j*w:][:w]
			lane := depth[j*r.Plane+x:][:w]
			if r.Op == shape.DepthToSpace {
				copy(at, lane)
			} else {
				copy(lane, at)
			}
		}
	}
}

// String describes the plan, as Describe reports it.
func (r *Rows) String() string {
	return fmt.Sprintf("row units, %d groups of %d units of 4 rows of %d bytes in chunks of %d", r.Groups, r.Units, r.N, RowChunk(r.N, r.Elem))
}
