package blockshuffle

import (
	"github.com/blockshuffle/blockshuffle/internal/public"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Params describes one call of DepthToSpace or SpaceToDepth: the dims of
// its input tensor, the block size, the order, the layout of both tensors
// and how many goroutines it may use.
//
// The zero values of Order and Layout are DCR and NCHW, ONNX's defaults.
// DepthToSpaceDims and SpaceToDepthDims give the output's dims.
type Params struct {
	// N, C, H, W are the dims of the INPUT tensor, named so whatever the
	// layout: batch, channels, height, width.
	N, C, H, W int
	// BlockSize is b >= 1: DepthToSpace turns each pixel's C channels into
	// a b x b block of C/(b*b) channels; SpaceToDepth does the reverse.
	BlockSize int
	// Order is how the channel index splits into the block: DCR (the zero
	// value) or CRD.
	Order Order
	// Layout is the memory order of both tensors: NCHW (the zero value) or
	// NHWC.
	Layout Layout
	// Workers bounds the goroutines one call may use: 1 runs on the
	// calling goroutine only, k > 1 allows k, and 0 picks automatically:
	// one goroutine per 256 KiB of tensor up to GOMAXPROCS, except that
	// a call whose two tensors fit in one core's L2 cache stays on the
	// caller's goroutine (but for transposes by tiles, which are slower
	// than copy() even there), and that two or three goroutines
	// (GOMAXPROCS of 2 or 3, or a tensor under 1 MiB) are used only from
	// 16 MiB (tiles: 2 MiB), where they paid on a 2-vCPU VM. Whatever is
	// asked, a call uses at most GOMAXPROCS goroutines and one per 256 KiB
	// of tensor: more could not run at once, or would cost more to start
	// than they save.
	Workers int
}

// Dims returns the input dims.
func (p Params) Dims() Dims { return Dims{p.N, p.C, p.H, p.W} }

// DepthToSpaceDims returns the output dims of DepthToSpace,
// [N, C/(b*b), H*b, W*b], or the error DepthToSpace would report for p
// (apart from slice lengths).
func (p Params) DepthToSpaceDims() (Dims, error) { return p.outputDims(shape.DepthToSpace) }

// SpaceToDepthDims returns the output dims of SpaceToDepth,
// [N, C*b*b, H/b, W/b], or the error SpaceToDepth would report for p
// (apart from slice lengths).
func (p Params) SpaceToDepthDims() (Dims, error) { return p.outputDims(shape.SpaceToDepth) }

func (p Params) outputDims(op shape.Op) (Dims, error) {
	d, err := p.internal().Output(op)
	return Dims(d), err
}

// internal is p as the packages under internal/ take it.
func (p Params) internal() shape.Params { return public.Internal(p) }

// Dims are the sizes of a 4-D tensor, named N, C, H, W whatever its layout.
type Dims struct {
	N, C, H, W int
}

// Len is the number of elements, N*C*H*W.
func (d Dims) Len() int { return shape.Dims(d).Len() }

// Shape returns the dims in memory order: [N, C, H, W] for NCHW,
// [N, H, W, C] for NHWC.
func (d Dims) Shape(l Layout) [4]int { return shape.Dims(d).Shape(shape.Layout(l)) }

// Order is how DepthToSpace spreads the channel index over a b x b block,
// and how SpaceToDepth gathers it back. With C' = C/(b*b), output
// [n, c, h*b+i, w*b+j] of DepthToSpace takes input channel
//
//	DCR: (i*b + j)*C' + c
//	CRD: c*b*b + i*b + j
//
// The tensor world's names for them:
//
//	Order  ONNX mode       DirectML                                TensorFlow        PyTorch
//	DCR    "DCR" (default) DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW  depth_to_space    -
//	CRD    "CRD"           DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH  -                 pixel_shuffle
//
// ParseOrder reads all of these names; its text form is "DCR" or "CRD".
type Order uint8

// The two orders.
const (
	// DCR, depth-column-row: out[n, c, h*b+i, w*b+j] = in[n, (i*b+j)*C' + c, h, w].
	DCR Order = iota
	// CRD, column-row-depth: out[n, c, h*b+i, w*b+j] = in[n, c*b*b + i*b + j, h, w].
	CRD
)

// String returns "DCR" or "CRD", the ONNX spelling ("Order(n)" for any
// other value).
func (o Order) String() string { return shape.Order(o).String() }

// MarshalText implements encoding.TextMarshaler with the ONNX spelling; an
// Order other than DCR and CRD is an error wrapping ErrOrder.
func (o Order) MarshalText() ([]byte, error) { return shape.Order(o).MarshalText() }

// UnmarshalText implements encoding.TextUnmarshaler; it accepts what
// ParseOrder accepts.
func (o *Order) UnmarshalText(text []byte) error { return (*shape.Order)(o).UnmarshalText(text) }

// Layout is the memory order of both tensors of a call.
//
//	Layout  element [n, c, h, w] at     used by
//	NCHW    ((n*C + c)*H + h)*W + w     ONNX, DirectML, PyTorch (default)
//	NHWC    ((n*H + h)*W + w)*C + c     TensorFlow, TFLite, XNNPACK, PyTorch channels_last
//
// ParseLayout reads "NCHW" and "NHWC", and PyTorch's "channels_first" and
// "channels_last"; its text form is "NCHW" or "NHWC".
type Layout uint8

// The two layouts.
const (
	// NCHW, channels first: element [n, c, h, w] is at ((n*C + c)*H + h)*W + w.
	NCHW Layout = iota
	// NHWC, channels last: element [n, c, h, w] is at ((n*H + h)*W + w)*C + c.
	NHWC
)

// String returns "NCHW" or "NHWC" ("Layout(n)" for any other value).
func (l Layout) String() string { return shape.Layout(l).String() }

// MarshalText implements encoding.TextMarshaler; a Layout other than NCHW
// and NHWC is an error wrapping ErrLayout.
func (l Layout) MarshalText() ([]byte, error) { return shape.Layout(l).MarshalText() }

// UnmarshalText implements encoding.TextUnmarshaler; it accepts what
// ParseLayout accepts.
func (l *Layout) UnmarshalText(text []byte) error { return (*shape.Layout)(l).UnmarshalText(text) }

// Op is one of the two operators, as MatchTranspose finds them and
// Describe and ONNXParams take them.
type Op uint8

// The two operators.
const (
	// OpDepthToSpace moves channels into b x b blocks of pixels.
	OpDepthToSpace Op = iota
	// OpSpaceToDepth moves b x b blocks of pixels into channels.
	OpSpaceToDepth
)

// String returns "DepthToSpace" or "SpaceToDepth" ("Op(n)" for any other
// value).
func (op Op) String() string { return shape.Op(op).String() }

// internal is op as the packages under internal/ name it.
func (op Op) internal() shape.Op { return shape.Op(op) }

// ParseOrder reads an order as people and libraries name it, ignoring
// ASCII case and surrounding ASCII spaces: the orders' own names "DCR",
// "DEPTH_COLUMN_ROW", "DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW", "CRD",
// "COLUMN_ROW_DEPTH", "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH", and the
// operators whose order is fixed: DirectML's "DML_DEPTH_TO_SPACE" and
// "DML_SPACE_TO_DEPTH", TensorFlow's "depth_to_space" and "space_to_depth"
// (DCR), PyTorch's "pixel_shuffle" and "pixel_unshuffle" (CRD). Anything
// else wraps ErrOrder. ONNXParams, which reads a node's mode attribute, is
// strict as ONNX is.
func ParseOrder(s string) (Order, error) {
	o, err := shape.ParseOrder(s)
	return Order(o), err
}

// ParseLayout reads "NCHW" or "NHWC", or PyTorch's "channels_first" and
// "channels_last", ignoring ASCII case and surrounding ASCII spaces.
// Anything else wraps ErrLayout.
func ParseLayout(s string) (Layout, error) {
	l, err := shape.ParseLayout(s)
	return Layout(l), err
}

// Errors. Every error the package returns wraps one of these (test with
// errors.Is) and names the offending values; dst is untouched whenever an
// error is returned.
var (
	// ErrBlockSize: BlockSize < 1.
	ErrBlockSize = shape.ErrBlockSize
	// ErrNegativeDim: N, C, H or W < 0.
	ErrNegativeDim = shape.ErrNegativeDim
	// ErrNotDivisible: DepthToSpace with C not a multiple of BlockSize²,
	// or SpaceToDepth with H or W not a multiple of BlockSize.
	ErrNotDivisible = shape.ErrNotDivisible
	// ErrOverflow: an element count, byte count or output dim does not fit
	// in int, or a tensor is larger than 2^57 - 1 bytes (on 64-bit
	// platforms; no kernel addresses more).
	ErrOverflow = shape.ErrOverflow
	// ErrLength: len(dst) or len(src) is not the tensor's element count
	// (times elemSize for the byte API).
	ErrLength = shape.ErrLength
	// ErrOverlap: dst and src share memory; in-place shuffles are not supported.
	ErrOverlap = shape.ErrOverlap
	// ErrOrder: an Order other than DCR and CRD, or an unknown order name.
	ErrOrder = shape.ErrOrder
	// ErrLayout: a Layout other than NCHW and NHWC, or an unknown layout name.
	ErrLayout = shape.ErrLayout
	// ErrElemSize: elemSize < 1 in the byte API.
	ErrElemSize = shape.ErrElemSize
	// ErrWorkers: Workers < 0.
	ErrWorkers = shape.ErrWorkers
	// ErrOp: an Op other than OpDepthToSpace and OpSpaceToDepth.
	ErrOp = shape.ErrOp
	// ErrRank: ONNXParams was given dims of a tensor that is not 4-D, or
	// NewTransposePlan a shape of more than MaxTransposeRank dims.
	ErrRank = shape.ErrRank
	// ErrPerm: a transpose's perm is not a permutation of 0..len(shape)-1.
	ErrPerm = shape.ErrPerm
	// ErrElemType: RunPlan's element type is not the size the plan was
	// made for.
	ErrElemType = shape.ErrElemType
)
