package shape

import "fmt"

// Geometry is a validated call of DepthToSpace or SpaceToDepth, described
// from its depth side: the tensor with many channels (the input of
// DepthToSpace, the output of SpaceToDepth), of dims N, C, H, W. Its space
// side has dims N, Cp = C/(B*B), H*B, W*B.
type Geometry struct {
	// ToDepth is SpaceToDepth, from the space side to the depth side;
	// else DepthToSpace.
	ToDepth bool
	// CRD is the order CRD, channel c*B*B + i*B + j of the depth side
	// for space channel c at (i, j) of a block; else DCR, (i*B + j)*Cp + c.
	CRD bool
	// NHWC is the layout of both tensors, channels last; else NCHW.
	NHWC       bool
	B          int
	N, C, H, W int // the depth side's dims
	Cp         int // the space side's channels
	Elem       int // bytes an element
	Workers    int // the caller's bound on goroutines, 0 for automatic
}

// Len is the number of elements on each side.
func (g *Geometry) Len() int { return g.N * g.C * g.H * g.W }

// Input is the input's dims N, C, H, W, and Output the output's.
func (g *Geometry) Input() [4]int {
	if g.ToDepth {
		return g.space()
	}
	return g.depth()
}

func (g *Geometry) Output() [4]int {
	if g.ToDepth {
		return g.depth()
	}
	return g.space()
}

func (g *Geometry) depth() [4]int { return [4]int{g.N, g.C, g.H, g.W} }
func (g *Geometry) space() [4]int { return [4]int{g.N, g.Cp, g.H * g.B, g.W * g.B} }

// Request is the request that Check describes as g.
func (g *Geometry) Request() Request { return g.RequestIn(new([5]int)) }

// RequestIn is g.Request with its dims in dims, which the caller may keep
// on its stack (MatchTranspose allocates nothing for it).
func (g *Geometry) RequestIn(dims *[5]int) Request {
	in := g.Input()
	*dims = [5]int{in[0], in[1], in[2], in[3], g.B}
	r := Request{Elem: g.Elem, Workers: g.Workers, Dims: dims[:]}
	if g.ToDepth {
		r.Op = SpaceToDepth
	}
	if g.CRD {
		r.Order = CRD
	}
	if g.NHWC {
		r.Layout = NHWC
	}
	return r
}

// String names the call by op, order, layout, block size and input dims,
// as the tests' cases and failures do: DepthToSpace/DCR/NCHW/b2/1x8x3x5.
func (g Geometry) String() string {
	r := g.Request()
	in := g.Input()
	order, layout := "DCR", "NCHW"
	if g.CRD {
		order = "CRD"
	}
	if g.NHWC {
		layout = "NHWC"
	}
	return fmt.Sprintf("%s/%s/%s/b%d/%dx%dx%dx%d", r.Name(), order, layout, g.B, in[0], in[1], in[2], in[3])
}
