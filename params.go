package blockshuffle

import (
	"fmt"

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
	// calling goroutine only, k > 1 allows k, and 0 picks automatically
	// from what the machine reports, read once: one goroutine per share
	// of the tensor, up to its cores (the CPUs this process may run on,
	// SMT siblings counted once, within its cgroup's CPU quota) and
	// GOMAXPROCS. A share is 256 KiB, or half of what one goroutine
	// copies while a goroutine it starts gets going, if more (probed
	// once, in under a millisecond: a few hundred KiB on bare metal, up to
	// 4 MiB on a busy VM), and half that again for transposes by tiles,
	// which move at about half of copy()'s speed. A call whose two tensors
	// fit in one core's private cache (as the CPU reports it) stays on the
	// caller's goroutine.
	// Whatever is asked, a call uses at most GOMAXPROCS goroutines and one
	// per 256 KiB of tensor: more could not run at once, or would cost
	// more to start than they save. The goroutines take the call's pieces
	// as each is free, so one that starts late costs little.
	Workers int
}

// Dims returns the input dims.
func (p Params) Dims() Dims { return Dims{p.N, p.C, p.H, p.W} }

// DepthToSpaceDims returns the output dims of DepthToSpace,
// [N, C/(b*b), H*b, W*b], or the error DepthToSpace would report for p
// (apart from slice lengths).
func (p Params) DepthToSpaceDims() (Dims, error) { return p.outputDims(OpDepthToSpace) }

// SpaceToDepthDims returns the output dims of SpaceToDepth,
// [N, C*b*b, H/b, W/b], or the error SpaceToDepth would report for p
// (apart from slice lengths).
func (p Params) SpaceToDepthDims() (Dims, error) { return p.outputDims(OpSpaceToDepth) }

func (p Params) outputDims(op Op) (Dims, error) {
	var r shape.Request
	var dims [5]int
	p.request(&r, &dims, op, 1)
	r.Dims = dims[:]
	g, err := r.Check()
	if err != nil {
		return Dims{}, err
	}
	out := g.Output()
	return Dims{out[0], out[1], out[2], out[3]}, nil
}

// request makes r the request of op with p on elements of elem bytes,
// but for its dims, which it writes in dims, for the caller to point
// r.Dims at: the form in which every call of an operator reaches the
// internal packages. It writes both in place, field by field, where a
// composite literal would be built on the stack and copied (a call's
// whole cost, for a small tensor, is a few of those), and leaves the
// slice to the caller, whose dims then stay on its stack.
func (p *Params) request(r *shape.Request, dims *[5]int, op Op, elem int) {
	dims[0], dims[1], dims[2], dims[3], dims[4] = p.N, p.C, p.H, p.W, p.BlockSize
	r.Op, r.Order, r.Layout, r.Elem, r.Workers = uint8(op), uint8(p.Order), uint8(p.Layout), elem, p.Workers
}

// paramsOf returns the operator and parameters of r: the inverse of
// Params.request.
func paramsOf(r *shape.Request) (Op, Params) {
	d := r.Dims
	return Op(r.Op), Params{N: d[0], C: d[1], H: d[2], W: d[3], BlockSize: d[4],
		Order: Order(r.Order), Layout: Layout(r.Layout), Workers: r.Workers}
}

// Dims are the sizes of a 4-D tensor, named N, C, H, W whatever its layout.
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
func (op Op) String() string {
	switch op {
	case OpDepthToSpace:
		return "DepthToSpace"
	case OpSpaceToDepth:
		return "SpaceToDepth"
	}
	return fmt.Sprintf("Op(%d)", uint8(op))
}
