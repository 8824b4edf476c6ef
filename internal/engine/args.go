package engine

import "unsafe"

// Kind is the shape of the rows a plan hands to kernels: which layout and
// order produced them, and so how a row's elements are addressed.
type Kind uint8

const (
	// Interleave (NCHW, both orders, b > 1): each space row interleaves
	// B depth rows that lie JS words apart, element by element. Cp = 1
	// and XS = Words.
	Interleave Kind = iota
	// Runs (NHWC DCR, NHWC CRD with C' = 1, and every b = 1 call): each
	// pixel moves one contiguous run of B*Cp elements. JS = Cp*Words and
	// CS = Words.
	Runs
	// Regroup (NHWC CRD, C' > 1): each pixel's [Cp][B] depth block
	// (channel stride B*B) becomes a [B][Cp] space block. JS = Words and
	// CS = B*B*Words.
	Regroup
)

// String returns "interleave", "runs" or "regroup".
func (k Kind) String() string {
	switch k {
	case Interleave:
		return "interleave"
	case Runs:
		return "runs"
	}
	return "regroup"
}

// Args describe one call of a kernel: Groups groups of Rows rows each,
// every row of W pixels. All strides count words, the w-byte pieces a kernel
// moves (see Kernels.Row); Words is the number of words per tensor element
// (1 but for elements of several words: Word).
//
// In row r of group g, element (x, j, c) for x < W, j < B, c < Cp is at
//
//	space[g*GroupSpace + r*SpaceStride + ((x*B + j)*Cp + c)*Words]
//	depth[g*GroupDepth + r*DepthStride + x*XS + j*JS + c*CS]
//
// DepthToSpace copies depth to space, SpaceToDepth space to depth, one whole
// element (Words words) at a time. The rows of a group are the B block rows
// of one row of depth pixels, so a call writes space in order. The slices a
// kernel receives end exactly after the last word it may touch.
type Args struct {
	B, W, Cp    int
	Rows        int
	SpaceStride int
	DepthStride int
	Groups      int
	GroupSpace  int
	GroupDepth  int
	XS, JS, CS  int
	Words       int

	// Streaming says the call belongs to a tensor too large to stay in
	// cache: kernels may write with non-temporal stores.
	Streaming bool
}

// In is a with its strides and Words counted in words of to bytes where
// a counts words of from bytes: the same call on bytes (to 1), or on
// elements of several words as words of their size (to from*a.Words).
func (a Args) In(from, to int) Args {
	for _, n := range []*int{&a.XS, &a.JS, &a.CS, &a.SpaceStride, &a.DepthStride, &a.GroupSpace, &a.GroupDepth, &a.Words} {
		*n = *n * from / to
	}
	return a
}

// Contiguous reports whether a Runs call's rows form one block on both
// sides, so that the whole call is a single copy.
func (a *Args) Contiguous() bool {
	run := a.B * a.Cp * a.Words
	rowLen := a.W * run
	groupLen := a.Rows * rowLen
	return a.XS == run && (a.Rows == 1 || a.SpaceStride == rowLen && a.DepthStride == rowLen) &&
		a.GroupSpace == groupLen && a.GroupDepth == groupLen
}

// Spans returns how many words of space and depth a call touches.
func (a *Args) Spans() (space, depth int) {
	if a.Groups == 0 || a.Rows == 0 || a.W == 0 {
		return 0, 0
	}
	base := func(g, r int) int { return (a.Groups-1)*g + (a.Rows-1)*r }
	space = base(a.GroupSpace, a.SpaceStride) + a.W*a.B*a.Cp*a.Words
	depth = base(a.GroupDepth, a.DepthStride) + (a.W-1)*a.XS + (a.B-1)*a.JS + (a.Cp-1)*a.CS + a.Words
	return space, depth
}

// A Span is where one of a kernel call's slices lies: Len bytes from Off
// in the space tensor of the calls of its prepared call, or in the depth
// tensor, or, where Own is set, memory of the plan's own (a table, a
// program) that no call changes. Calls keep spans, never slices of the
// tensors they were planned on, so that one plan runs on any tensors of
// its sizes.
type Span struct {
	Off, Len int
	Depth    bool
	Own      []byte
}

// SpaceSpan and DepthSpan are the whole space and depth tensors of n
// bytes; OwnSpan is memory of a plan's own.
func SpaceSpan(n int) Span    { return Span{Len: n} }
func DepthSpan(n int) Span    { return Span{Len: n, Depth: true} }
func OwnSpan(own []byte) Span { return Span{Len: len(own), Own: own} }

// From is the span's bytes from off on (0 <= off <= s.Len).
func (s Span) From(off int) Span {
	s.Off += off
	s.Len -= off
	if s.Own != nil {
		s.Own = s.Own[off:]
	}
	return s
}

// In returns the span's bytes in the tensors of a call.
func (s Span) In(space, depth []byte) []byte {
	switch {
	case s.Own != nil:
		return s.Own
	case s.Depth:
		return depth[s.Off : s.Off+s.Len]
	}
	return space[s.Off : s.Off+s.Len]
}

// Ptr returns the address of the span's first byte in the tensors of a
// call, as the kernels take it.
func (s Span) Ptr(space, depth []byte) *byte { return unsafe.SliceData(s.In(space, depth)) }
