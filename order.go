package blockshuffle

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

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
func (o Order) String() string {
	switch o {
	case DCR:
		return "DCR"
	case CRD:
		return "CRD"
	}
	return fmt.Sprintf("Order(%d)", uint8(o))
}

// MarshalText implements encoding.TextMarshaler with the ONNX spelling; an
// Order other than DCR and CRD is an error wrapping ErrOrder.
func (o Order) MarshalText() ([]byte, error) {
	if o > CRD {
		return nil, fmt.Errorf("blockshuffle: %v: %w", o, ErrOrder)
	}
	return []byte(o.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler; it accepts what
// ParseOrder accepts.
func (o *Order) UnmarshalText(text []byte) error {
	v, err := ParseOrder(string(text))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// orderNames are the names ParseOrder reads: the orders' own, as ONNX and
// DirectML spell them, and those of the operators whose order is fixed.
var orderNames = map[string]Order{
	"DCR": DCR, "DEPTH_COLUMN_ROW": DCR, "DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW": DCR,
	"DML_DEPTH_TO_SPACE": DCR, "DML_SPACE_TO_DEPTH": DCR, // DirectML's first operators
	"DEPTH_TO_SPACE": DCR, "SPACE_TO_DEPTH": DCR, // TensorFlow
	"CRD": CRD, "COLUMN_ROW_DEPTH": CRD, "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH": CRD,
	"PIXEL_SHUFFLE": CRD, "PIXEL_UNSHUFFLE": CRD, // PyTorch
}

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
	if o, ok := orderNames[shape.Fold(s)]; ok {
		return o, nil
	}
	return 0, fmt.Errorf("blockshuffle: order %q (want DCR or CRD): %w", s, ErrOrder)
}

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
func (l Layout) String() string {
	switch l {
	case NCHW:
		return "NCHW"
	case NHWC:
		return "NHWC"
	}
	return fmt.Sprintf("Layout(%d)", uint8(l))
}

// MarshalText implements encoding.TextMarshaler; a Layout other than NCHW
// and NHWC is an error wrapping ErrLayout.
func (l Layout) MarshalText() ([]byte, error) {
	if l > NHWC {
		return nil, fmt.Errorf("blockshuffle: %v: %w", l, ErrLayout)
	}
	return []byte(l.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler; it accepts what
// ParseLayout accepts.
func (l *Layout) UnmarshalText(text []byte) error {
	v, err := ParseLayout(string(text))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// ParseLayout reads "NCHW" or "NHWC", or PyTorch's "channels_first" and
// "channels_last", ignoring ASCII case and surrounding ASCII spaces.
// Anything else wraps ErrLayout.
func ParseLayout(s string) (Layout, error) {
	switch shape.Fold(s) {
	case "NCHW", "CHANNELS_FIRST":
		return NCHW, nil
	case "NHWC", "CHANNELS_LAST":
		return NHWC, nil
	}
	return 0, fmt.Errorf("blockshuffle: layout %q (want NCHW or NHWC): %w", s, ErrLayout)
}
