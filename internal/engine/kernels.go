package engine

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Kernels are a tier's kernels, as the engine plans calls for them.
type Kernels interface {
	// Row returns the call that moves one row call of kind on spans
	// space and depth (from the depth side to the space side, or the
	// reverse where toDepth is set), whose words are w bytes (1, 2, 4, 8
	// or 16; an element is a.Words words), or nil if the tier has no
	// kernel for it. It must check that the call stays inside the spans.
	Row(toDepth bool, kind Kind, space, depth Span, a *Args, w int) Call
	// OnePass returns the calls that move a validated call in one pass where
	// its rows are too short for row calls, and a description of their
	// plan; or nil calls where the tier has none for it. It is asked only
	// for calls on one goroutine without streaming stores.
	OnePass(g *shape.Geometry) (fmt.Stringer, []Call)
	// Gathered returns a plan that moves, in one pass of byte shuffles
	// from span src into span dst, a tensor whose output is the loop nest
	// size, outermost first, each iteration of dim k stride[k] elements
	// of elem bytes further on in the source (any transpose), one that
	// goes ahead of rival, costly where set (gather.Plan.Ahead); how many
	// units its calls may be cut into for goroutines; and calls, which
	// returns the calls that move units [lo, hi). The plan is nil where
	// the tier has none. Its calls do not stream.
	Gathered(dst, src Span, size, stride []int, elem int, costly bool, rival Rival) (plan fmt.Stringer, units int, calls func(lo, hi int) []Call)
	// Matrix returns the call that transposes matrix m of w-byte words
	// from span src into span dst, or nil where the tier has no kernel for
	// it. It must check that the call stays inside the spans.
	Matrix(dst, src Span, m Matrix, w int) Call
	// MatrixUnits are the columns and the rows, each at least one, that
	// a part of matrix m cut for goroutines holds a multiple of, so that
	// Matrix moves it with the kernel it moves m with, at its speed, and
	// no two parts share a line of dst where m's rows start on lines.
	MatrixUnits(m Matrix, w int) (cols, rows int)
	// TransposeRuns returns the call that copies runs r from span src into span
	// dst, or nil where the tier has no kernel for them. It must check
	// that the call stays inside the spans.
	TransposeRuns(dst, src Span, r TransposeRuns) Call
}

// A Matrix is Groups groups of Reps 2-D transposes of words, the innermost
// work of a general transpose's plan (internal/transpose): in matrix i of
// group g, word (r, c), for r < Rows and c < Cols, moves from byte
// g*SrcGroup + i*SrcRep + r*SrcRow + c*w of src to g*DstGroup + i*DstRep +
// c*DstRow + r*w of dst. Streaming asks for non-temporal stores where the
// kernels have them and dst's lines allow; Outgrown says the whole tensor,
// not only this call's part of it, outgrows the shared cache
// (Streams(PaddedTiles)), so that the pieces of a call cut for goroutines
// take the tiles the whole call takes.
//
// Where Split is more than 0, the rows lie in src (SrcSplit set), or the
// columns in dst (DstSplit set), in two levels: row r at (r%Split)*SrcRow
// + (r/Split)*SrcSplit, column c at (c%Split)*DstRow + (c/Split)*DstSplit.
// Such are the six lanes of pixel_shuffle to HWC (dims [C,2,2,H,W] by
// [3,1,4,2,0]): channel c and column j of a block at c*SrcRow +
// j*SrcSplit, which two small dims of the transpose hold apart.
type Matrix struct {
	Rows, Cols, SrcRow, DstRow int
	Reps, SrcRep, DstRep       int
	Groups, SrcGroup, DstGroup int
	Split, SrcSplit, DstSplit  int
	Streaming, Outgrown        bool
}

// Reach is the bytes from the first word of matrices m of w-byte words
// to past their last, in src and in dst.
func (m *Matrix) Reach(w int) (src, dst int) {
	last := func(n, step, split int) int { // the offset of the last of n rows (columns)
		if m.Split > 0 && split != 0 {
			return (min(n, m.Split)-1)*step + (n-1)/m.Split*split
		}
		return (n - 1) * step
	}
	src = (m.Groups-1)*m.SrcGroup + (m.Reps-1)*m.SrcRep + last(m.Rows, m.SrcRow, m.SrcSplit) + m.Cols*w
	dst = (m.Groups-1)*m.DstGroup + (m.Reps-1)*m.DstRep + last(m.Cols, m.DstRow, m.DstSplit) + m.Rows*w
	return src, dst
}

// TransposeRuns are the innermost work of a general transpose's plan whose last
// dim stays last: in each of Groups groups of Rows rows of Count runs,
// run x of row r of group g, Len bytes, moves from byte g*SrcGroup +
// r*SrcRow + x*SrcX of src to g*DstGroup + r*DstRow + x*DstX of dst.
// Streaming asks for non-temporal stores where the kernels have them and
// dst's lines allow.
type TransposeRuns struct {
	Len, Count, SrcX, DstX, Rows, SrcRow, DstRow, Groups, SrcGroup, DstGroup int
	Streaming                                                                bool
}

// PixelMajor reports whether the run copiers take runs r pixel by pixel,
// run x of every row before run x+1 of any: where they stream, and one
// side holds each pixel's runs back to back (internal/simd's pixelMajor).
// A transpose's pieces follow that order (internal/transpose's cut).
func (r *TransposeRuns) PixelMajor() bool {
	return r.Streaming && (BackToBack(r.Len, r.Rows, r.SrcX, r.SrcRow) || BackToBack(r.Len, r.Rows, r.DstX, r.DstRow))
}

// BackToBack reports whether rows rows of runs of n bytes, runs x apart
// and rows row apart, lie run x of every row back to back: (x*rows + r)*n.
func BackToBack(n, rows, x, row int) bool { return x == rows*n && row == n }

// A Rival is the route a gather plan must go ahead of to be taken
// (Kernels.Gathered): the fewer windows its vectors read, the more
// routes it beats. Against any but GoLoops a plan takes at most
// isa.Windows.Rivals groups.
type Rival int

const (
	// TwoPasses: two passes through a buffer, whatever their kernels
	// (gather.Plan.Ahead).
	TwoPasses Rival = iota
	// OtherKernels: a route of the tier's kernels that a gather may
	// still beat: two passes that move whole elements of 3 to 15 bytes
	// by tiles, the row kernels on short NCHW rows (gather.Pays).
	OtherKernels
	// GoLoops: Go's loops, which move elements one by one; every plan
	// beats them.
	GoLoops
)
