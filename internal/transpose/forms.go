package transpose

import (
	"sync"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// role names what one dim of a form's rank-6 input holds.
type role uint8

const (
	batch   role = iota // N
	channel             // C' = C/(b*b) for DepthToSpace, C for SpaceToDepth
	height              // H for DepthToSpace, H' = H/b for SpaceToDepth
	width               // W, or W' = W/b
	block               // b, twice in every form
	roles
)

// form is one (op, order, layout) as the rank-6 transpose that ONNX's
// function definitions, PyTorch's exporter and TensorFlow's reshape/transpose
// idiom write: the input viewed as six dims, then perm.
type form struct {
	op     shape.Op
	order  shape.Order
	layout shape.Layout
	in     [6]role
	perm   [6]int
}

const (
	n, c, h, w, b = batch, channel, height, width, block
)

// forms lists the eight combinations; where a transpose matches several,
// the first wins, so ONNX's own forms (NCHW, DCR) come first.
var forms = [...]form{
	{shape.DepthToSpace, shape.DCR, shape.NCHW, [6]role{n, b, b, c, h, w}, [6]int{0, 3, 4, 1, 5, 2}},
	{shape.DepthToSpace, shape.CRD, shape.NCHW, [6]role{n, c, b, b, h, w}, [6]int{0, 1, 4, 2, 5, 3}},
	{shape.DepthToSpace, shape.DCR, shape.NHWC, [6]role{n, h, w, b, b, c}, [6]int{0, 1, 3, 2, 4, 5}},
	{shape.DepthToSpace, shape.CRD, shape.NHWC, [6]role{n, h, w, c, b, b}, [6]int{0, 1, 4, 2, 5, 3}},
	{shape.SpaceToDepth, shape.DCR, shape.NCHW, [6]role{n, c, h, b, w, b}, [6]int{0, 3, 5, 1, 2, 4}},
	{shape.SpaceToDepth, shape.CRD, shape.NCHW, [6]role{n, c, h, b, w, b}, [6]int{0, 1, 3, 5, 2, 4}},
	{shape.SpaceToDepth, shape.DCR, shape.NHWC, [6]role{n, h, b, w, b, c}, [6]int{0, 1, 3, 2, 4, 5}},
	{shape.SpaceToDepth, shape.CRD, shape.NHWC, [6]role{n, h, b, w, b, c}, [6]int{0, 1, 3, 5, 2, 4}},
}

// sizes is a form's input shape for the given size of every role.
func (f *form) sizes(v [roles]int) (s [6]int) {
	for i, r := range f.in {
		s[i] = v[r]
	}
	return s
}

// params turns role sizes into the op's Params: the input dims, whatever
// the roles of the form's input.
func (f *form) params(v [roles]int) shape.Params {
	p := shape.Params{N: v[batch], C: v[channel], H: v[height], W: v[width], BlockSize: v[block], Order: f.order, Layout: f.layout}
	if f.op == shape.DepthToSpace {
		p.C *= v[block] * v[block]
	} else {
		p.H *= v[block]
		p.W *= v[block]
	}
	return p
}

// roleSizes inverts params for this form's op: the size of every role.
func (f *form) roleSizes(p shape.Params) [roles]int {
	v := [roles]int{batch: p.N, channel: p.C, height: p.H, width: p.W, block: p.BlockSize}
	if f.op == shape.DepthToSpace {
		v[channel] /= p.BlockSize * p.BlockSize
	} else {
		v[height] /= p.BlockSize
		v[width] /= p.BlockSize
	}
	return v
}

// structure is the canonical shape of a form when exactly the roles in
// present have sizes > 1: which roles merge into each canonical dim, and
// the canonical perm. It depends on nothing else, so it is computed once.
type structure struct {
	present [roles]bool
	groups  [][]role
	perm    []int
}

// structures()[i] lists form i's structures for every subset of roles
// present, built on first use so that importing the module costs nothing.
var structures = sync.OnceValue(func() (all [len(forms)][]structure) {
	for i := range forms {
		f := &forms[i]
		for mask := 0; mask < 1<<roles; mask++ {
			var s structure
			var v [roles]int
			for r := range roles {
				s.present[r] = mask&(1<<r) != 0
				v[r] = 1
				if s.present[r] {
					v[r] = 2
				}
			}
			size := f.sizes(v)
			cf := canon(size[:], f.perm[:])
			s.perm = cf.perm[:cf.n]
			for j := range cf.n {
				part := cf.part(j)
				g := make([]role, len(part))
				for k, d := range part {
					g[k] = f.in[d]
				}
				s.groups = append(s.groups, g)
			}
			all[i] = append(all[i], s)
		}
	}
	return all
})

// OutputDims returns, for valid Params of op, the output's six dims from
// the outermost in, and the stride of each in the input, in elements: the
// call is the loop nest over them that copies one element per iteration.
func OutputDims(op shape.Op, p shape.Params) (size, stride [6]int) {
	for i := range forms {
		f := &forms[i]
		if f.op != op || f.order != p.Order || f.layout != p.Layout {
			continue
		}
		in := f.sizes(f.roleSizes(p))
		var inStride [6]int
		s := 1
		for k := 5; k >= 0; k-- {
			inStride[k], s = s, s*in[k]
		}
		for k, d := range f.perm {
			size[k], stride[k] = in[d], inStride[d]
		}
		return size, stride
	}
	panic("transpose: no form for " + op.String())
}
