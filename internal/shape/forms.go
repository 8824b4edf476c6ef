package shape

// Every operator is a transpose of rank 6: the input viewed as six dims,
// each holding one role, then a perm. The forms are what ONNX's function
// definitions, PyTorch's exporter and TensorFlow's reshape/transpose idiom
// write; internal/transpose recognizes them in any transpose, and the
// gather plans (internal/gather) run an operator as the loop nest they
// make.

// Role names what one dim of a form's input holds.
type Role uint8

const (
	Batch   Role = iota // N
	Channel             // Cp, the space side's channels
	Height              // the depth side's H
	Width               // the depth side's W
	Block               // B, twice in every form
	Roles
)

// A Form is one operator, order and layout as a rank-6 transpose: the
// roles of its input's dims, and its perm.
type Form struct {
	ToDepth, CRD, NHWC bool
	In                 [6]Role
	Perm               [6]int
}

const (
	n, c, h, w, b = Batch, Channel, Height, Width, Block
)

// Forms lists the eight; where a transpose matches several, the first
// wins, so ONNX's own forms (NCHW, DCR) come first.
var Forms = [...]Form{
	{false, false, false, [6]Role{n, b, b, c, h, w}, [6]int{0, 3, 4, 1, 5, 2}},
	{false, true, false, [6]Role{n, c, b, b, h, w}, [6]int{0, 1, 4, 2, 5, 3}},
	{false, false, true, [6]Role{n, h, w, b, b, c}, [6]int{0, 1, 3, 2, 4, 5}},
	{false, true, true, [6]Role{n, h, w, c, b, b}, [6]int{0, 1, 4, 2, 5, 3}},
	{true, false, false, [6]Role{n, c, h, b, w, b}, [6]int{0, 3, 5, 1, 2, 4}},
	{true, true, false, [6]Role{n, c, h, b, w, b}, [6]int{0, 1, 3, 5, 2, 4}},
	{true, false, true, [6]Role{n, h, b, w, b, c}, [6]int{0, 1, 3, 2, 4, 5}},
	{true, true, true, [6]Role{n, h, b, w, b, c}, [6]int{0, 1, 3, 5, 2, 4}},
}

// Sizes is the form's input shape for the given size of every role.
func (f *Form) Sizes(v [Roles]int) (s [6]int) {
	for i, r := range f.In {
		s[i] = v[r]
	}
	return s
}

// Request is the operator's request, on 1-byte elements, at role sizes v.
func (f *Form) Request(v [Roles]int) Request {
	g := Geometry{ToDepth: f.ToDepth, CRD: f.CRD, NHWC: f.NHWC, B: v[Block], N: v[Batch], H: v[Height], W: v[Width], Cp: v[Channel], Elem: 1}
	g.C = g.Cp * g.B * g.B
	return g.Request()
}

// Form is the form of g's operator, order and layout.
func (g *Geometry) Form() *Form {
	for i := range Forms {
		if f := &Forms[i]; f.ToDepth == g.ToDepth && f.CRD == g.CRD && f.NHWC == g.NHWC {
			return f
		}
	}
	panic("shape: no form")
}

// Loops returns the output's six dims from the outermost in, and the
// stride of each in the input, in elements: the call is the loop nest over
// them that copies one element per iteration.
func (g *Geometry) Loops() (size, stride [6]int) {
	f := g.Form()
	in := f.Sizes([Roles]int{Batch: g.N, Channel: g.Cp, Height: g.H, Width: g.W, Block: g.B})
	var inStride [6]int
	s := 1
	for k := 5; k >= 0; k-- {
		inStride[k], s = s, s*in[k]
	}
	for k, d := range f.Perm {
		size[k], stride[k] = in[d], inStride[d]
	}
	return size, stride
}
