package blockshuffle

import "github.com/blockshuffle/blockshuffle/internal/shape"

// Params describes one call: the INPUT dims N, C, H, W (whatever the
// layout), BlockSize, Order, Layout, and Workers (0: automatic, 1: only the
// calling goroutine, k > 1: at most k goroutines). The zero values of Order
// and Layout are DCR and NCHW, ONNX's defaults.
//
// DepthToSpaceDims and SpaceToDepthDims return the output dims, or the error
// the call would report.
type Params = shape.Params

// Op is one of the two operators, as MatchTranspose finds them and Describe
// and ONNXParams take them.
type Op uint8

// The two operators, numbered as internal/shape numbers them (a test
// checks it).
const (
	OpDepthToSpace Op = iota
	OpSpaceToDepth
)

// String returns "DepthToSpace" or "SpaceToDepth" (and "Op(n)" for any
// other value).
func (op Op) String() string { return shape.Op(op).String() }

// Dims are the sizes of a 4-D tensor, named N, C, H, W whatever its layout.
// Dims.Shape returns them in memory order.
type Dims = shape.Dims

// Order is how DepthToSpace spreads channels over a block: DCR or CRD.
//
//	Order  ONNX mode     DirectML                                TensorFlow        PyTorch
//	DCR    "DCR" default DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW  depth_to_space    -
//	CRD    "CRD"         DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH  -                 pixel_shuffle
//
// ParseOrder reads all of these names.
type Order = shape.Order

// The two orders.
const (
	// DCR: out[n, c, h*b+i, w*b+j] = in[n, (i*b+j)*C' + c, h, w], C' = C/(b*b).
	DCR = shape.DCR
	// CRD: out[n, c, h*b+i, w*b+j] = in[n, c*b*b + i*b + j, h, w].
	CRD = shape.CRD
)

// Layout is the memory order of both tensors: NCHW or NHWC.
type Layout = shape.Layout

// The two layouts.
const (
	// NCHW: element [n, c, h, w] is at ((n*C + c)*H + h)*W + w.
	NCHW = shape.NCHW
	// NHWC: element [n, c, h, w] is at ((n*H + h)*W + w)*C + c.
	NHWC = shape.NHWC
)

// ParseOrder reads an order as ONNX, DirectML, TensorFlow or PyTorch name
// it, ignoring ASCII case and surrounding ASCII spaces: the orders' names
// "DCR", "DEPTH_COLUMN_ROW", "DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW",
// "CRD", "COLUMN_ROW_DEPTH", "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH", and
// the operators whose order is fixed: DirectML's "DML_DEPTH_TO_SPACE" and
// "DML_SPACE_TO_DEPTH", TensorFlow's "depth_to_space" and "space_to_depth"
// (DCR), PyTorch's "pixel_shuffle" and "pixel_unshuffle" (CRD). Anything
// else wraps ErrOrder.
func ParseOrder(s string) (Order, error) { return shape.ParseOrder(s) }

// ParseLayout reads "NCHW" or "NHWC", or PyTorch's "channels_first" and
// "channels_last", ignoring ASCII case and surrounding ASCII spaces.
// Anything else wraps ErrLayout.
func ParseLayout(s string) (Layout, error) { return shape.ParseLayout(s) }

// Errors. Every error returned wraps one of these (test with errors.Is) and
// names the offending values; dst is untouched whenever an error is returned.
var (
	// ErrBlockSize: BlockSize < 1.
	ErrBlockSize = shape.ErrBlockSize
	// ErrNegativeDim: N, C, H or W < 0.
	ErrNegativeDim = shape.ErrNegativeDim
	// ErrNotDivisible: DepthToSpace with C not a multiple of BlockSize²,
	// or SpaceToDepth with H or W not a multiple of BlockSize.
	ErrNotDivisible = shape.ErrNotDivisible
	// ErrOverflow: an element count, byte count or output dim does not fit in int.
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
	// ErrRank: ONNXParams was given dims of a tensor that is not 4-D.
	ErrRank = shape.ErrRank
)

// internal is op as the packages under internal/ name it.
func (op Op) internal() shape.Op { return shape.Op(op) }
