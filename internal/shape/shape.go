// Package shape defines the parameters of DepthToSpace and SpaceToDepth as
// the internal packages take them, the errors they report, and the one
// routine that validates them.
//
// Every entry point of the module (the root package, generic/, the byte-level
// API) validates through Validate, so the rules live in one place. The root
// package defines the same types under the same names, with their
// documentation, and converts its values to these.
package shape

import (
	"fmt"
	"strings"
)

// Order is blockshuffle.Order: DCR or CRD.
type Order uint8

const (
	DCR Order = iota
	CRD
)

// String returns "DCR" or "CRD", the ONNX spelling.
func (o Order) String() string {
	switch o {
	case DCR:
		return "DCR"
	case CRD:
		return "CRD"
	}
	return fmt.Sprintf("Order(%d)", uint8(o))
}

// MarshalText implements encoding.TextMarshaler with the ONNX spelling.
func (o Order) MarshalText() ([]byte, error) {
	if o > CRD {
		return nil, fmt.Errorf("blockshuffle: %v: %w", o, ErrOrder)
	}
	return []byte(o.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler; it accepts what ParseOrder accepts.
func (o *Order) UnmarshalText(text []byte) error {
	v, err := ParseOrder(string(text))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// OrderNames are the names ParseOrder reads: the orders' own, as ONNX and
// DirectML spell them, and those of the operators whose order is fixed.
var OrderNames = map[string]Order{
	"DCR": DCR, "DEPTH_COLUMN_ROW": DCR, "DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW": DCR,
	"DML_DEPTH_TO_SPACE": DCR, "DML_SPACE_TO_DEPTH": DCR, // DirectML's first operators
	"DEPTH_TO_SPACE": DCR, "SPACE_TO_DEPTH": DCR, // TensorFlow
	"CRD": CRD, "COLUMN_ROW_DEPTH": CRD, "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH": CRD,
	"PIXEL_SHUFFLE": CRD, "PIXEL_UNSHUFFLE": CRD, // PyTorch
}

// ParseOrder reads one of OrderNames, ignoring ASCII case and surrounding
// ASCII spaces.
func ParseOrder(s string) (Order, error) {
	if o, ok := OrderNames[Fold(s)]; ok {
		return o, nil
	}
	return 0, fmt.Errorf("blockshuffle: order %q (want DCR or CRD): %w", s, ErrOrder)
}

// Fold is s without surrounding ASCII spaces and with ASCII letters in
// upper case: names are compared in this form. Other bytes stay as they
// are, so that no Unicode folding (ſ as s, the Kelvin sign as K) or
// Unicode space makes an unknown name pass for a known one.
func Fold(s string) string {
	b := []byte(strings.Trim(s, " \t\n\v\f\r"))
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// Layout is blockshuffle.Layout: NCHW or NHWC.
type Layout uint8

const (
	NCHW Layout = iota
	NHWC
)

// String returns "NCHW" or "NHWC".
func (l Layout) String() string {
	switch l {
	case NCHW:
		return "NCHW"
	case NHWC:
		return "NHWC"
	}
	return fmt.Sprintf("Layout(%d)", uint8(l))
}

// MarshalText implements encoding.TextMarshaler.
func (l Layout) MarshalText() ([]byte, error) {
	if l > NHWC {
		return nil, fmt.Errorf("blockshuffle: %v: %w", l, ErrLayout)
	}
	return []byte(l.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler; it accepts what ParseLayout accepts.
func (l *Layout) UnmarshalText(text []byte) error {
	v, err := ParseLayout(string(text))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// ParseLayout reads "NCHW" or "NHWC" (TensorFlow's data_format), or
// PyTorch's "channels_first" and "channels_last", ignoring ASCII case and
// surrounding ASCII spaces.
func ParseLayout(s string) (Layout, error) {
	switch Fold(s) {
	case "NCHW", "CHANNELS_FIRST":
		return NCHW, nil
	case "NHWC", "CHANNELS_LAST":
		return NHWC, nil
	}
	return 0, fmt.Errorf("blockshuffle: layout %q (want NCHW or NHWC): %w", s, ErrLayout)
}

// Op names one of the two operators.
type Op uint8

const (
	DepthToSpace Op = iota // channels into b x b blocks of pixels
	SpaceToDepth           // b x b blocks of pixels into channels
)

// String returns "DepthToSpace" or "SpaceToDepth" (and "Op(n)" for any
// other value).
func (op Op) String() string {
	switch op {
	case DepthToSpace:
		return "DepthToSpace"
	case SpaceToDepth:
		return "SpaceToDepth"
	}
	return fmt.Sprintf("Op(%d)", uint8(op))
}

// Dims is blockshuffle.Dims.
type Dims struct {
	N, C, H, W int
}

// Len is the number of elements, N*C*H*W.
func (d Dims) Len() int { return d.N * d.C * d.H * d.W }

// Shape returns the dims in memory order: [N, C, H, W] for NCHW,
// [N, H, W, C] for NHWC.
func (d Dims) Shape(l Layout) [4]int {
	if l == NHWC {
		return [4]int{d.N, d.H, d.W, d.C}
	}
	return [4]int{d.N, d.C, d.H, d.W}
}

// Params is blockshuffle.Params, which documents its fields, as the
// packages under internal/ take it.
type Params struct {
	N, C, H, W int
	BlockSize  int
	Order      Order
	Layout     Layout
	Workers    int
}

// Dims returns the input dims.
func (p Params) Dims() Dims { return Dims{p.N, p.C, p.H, p.W} }

// Output returns the output dims of op on p, or the error op would report
// for p (apart from slice lengths).
func (p Params) Output(op Op) (Dims, error) {
	g, err := Check(op, p, 1)
	return g.output(), err
}
