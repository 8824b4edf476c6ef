package generic

import "github.com/blockshuffle/blockshuffle/internal/shape"

// Kind is the shape of the inner loop a plan hands to a kernel.
type Kind uint8

const (
	// Zip (NCHW, both orders): each space row interleaves B depth rows that
	// lie JS units apart. Cp = 1 and XS = Unit.
	Zip Kind = iota
	// Runs (NHWC DCR, and NHWC CRD when C' = 1, and B = 1): each pixel moves
	// one contiguous run of B*Cp elements. JS = Cp*Unit and CS = Unit.
	Runs
	// Transpose (NHWC CRD): each pixel's [Cp][B] depth block (channel stride
	// B*B) becomes a [B][Cp] space block. JS = Unit and CS = B*B*Unit.
	Transpose
)

// String returns "zip", "runs" or "transpose".
func (k Kind) String() string {
	switch k {
	case Zip:
		return "zip"
	case Runs:
		return "runs"
	}
	return "transpose"
}

// Args describe one kernel call: Groups groups of Rows rows each, every row
// of W pixels. All strides are in units of the slice element type; Unit is
// the number of units per tensor element (1 everywhere but on the byte path
// for odd element sizes).
//
// In row r of group g, element (x, j, c) for x < W, j < B, c < Cp is at
//
//	space[g*GroupSpace + r*SpaceStride + ((x*B + j)*Cp + c)*Unit]
//	depth[g*GroupDepth + r*DepthStride + x*XS + j*JS + c*CS]
//
// DepthToSpace copies depth to space, SpaceToDepth space to depth, one whole
// element (Unit units) at a time. The rows of a group are the B block rows
// of one row of depth pixels, so a call writes space in order. The slices a
// kernel receives end exactly after the last unit it may touch.
//
// Streaming says the call belongs to tensors too large to stay in cache:
// kernels may write with non-temporal stores.
type Args struct {
	B, W, Cp    int
	Rows        int
	SpaceStride int
	DepthStride int
	Groups      int
	GroupSpace  int
	GroupDepth  int
	XS, JS, CS  int
	Unit        int
	Streaming   bool
}

// spans returns how many units of space and depth a call touches.
func (a *Args) spans() (space, depth int) {
	if a.Groups == 0 || a.Rows == 0 || a.W == 0 {
		return 0, 0
	}
	base := func(g, r int) int { return (a.Groups-1)*g + (a.Rows-1)*r }
	space = base(a.GroupSpace, a.SpaceStride) + a.W*a.B*a.Cp*a.Unit
	depth = base(a.GroupDepth, a.DepthStride) + (a.W-1)*a.XS + (a.B-1)*a.JS + (a.Cp-1)*a.CS + a.Unit
	return space, depth
}

// Kernels is a set of inner loops over elements of type T. A SIMD tier
// implements Run for the calls it has vector code for and passes the others
// to Pure[T].
type Kernels[T any] interface {
	// Run performs one call of the given kind and direction. It is called
	// with a.Groups, a.Rows and a.W >= 1 and must not touch memory outside
	// space and depth.
	Run(op shape.Op, kind Kind, space, depth []T, a Args)
}

// Pure is the pure-Go kernel set for any element type, pointers included:
// every element moves by ordinary Go assignment or copy, so the garbage
// collector's write barriers run.
type Pure[T any] struct{}

// Run implements Kernels.
func (Pure[T]) Run(op shape.Op, kind Kind, space, depth []T, a Args) {
	d2s := op == shape.DepthToSpace
	if kind == Runs && a.Contiguous() { // B = 1 lands here
		n := a.Groups * a.GroupSpace
		if d2s {
			copy(space[:n], depth[:n])
		} else {
			copy(depth[:n], space[:n])
		}
		return
	}
	forGroups(space, depth, &a, func(space, depth []T) {
		switch {
		case kind == Runs: // runs are contiguous whatever the unit
			runs(d2s, space, depth, &a)
		case a.Unit != 1:
			anyUnit(d2s, space, depth, &a)
		case kind == Zip:
			zipRows(d2s, space, depth, &a)
		default:
			transposeRows(d2s, space, depth, &a)
		}
	})
}

// forGroups calls rows once per group, with the slices starting at the group.
func forGroups[T any](space, depth []T, a *Args, rows func(space, depth []T)) {
	for g := range a.Groups {
		rows(space[g*a.GroupSpace:], depth[g*a.GroupDepth:])
	}
}

// anyUnit moves elements of any number of units one element at a time
// following the Args formula; it serves every kind.
func anyUnit[T any](d2s bool, space, depth []T, a *Args) {
	u := a.Unit
	for r := 0; r < a.Rows; r++ {
		so, do := r*a.SpaceStride, r*a.DepthStride
		for x := 0; x < a.W; x++ {
			for j := 0; j < a.B; j++ {
				dj := do + x*a.XS + j*a.JS
				for c := 0; c < a.Cp; c++ {
					s, d := space[so:so+u], depth[dj+c*a.CS:][:u]
					if d2s {
						copy(s, d)
					} else {
						copy(d, s)
					}
					so += u
				}
			}
		}
	}
}
