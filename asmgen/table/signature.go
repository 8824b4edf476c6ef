package table

import (
	"slices"
	"strings"
)

// Signature is the Go signature of a family of kernels: pointer
// parameters, then int parameters. Every generator declares kernels with
// it, and the Go side calls them through an Args struct generated from it.
type Signature struct {
	Name  string   // the Go types' prefix: <Name>Func, <Name>Args
	Doc   string   // what the kernels of the family do
	Ptrs  []string // *byte parameters
	Ints  []string // int parameters
	Skips []Skip   // int parameters the call computes from fields of the Args
}

// A Skip is a kernel parameter that takes a pointer from the end of a
// group's last row to the next group's first: Group - Rows*Stride, of
// fields of the Args struct, which hold Group in Skip's place. The call
// computes it, so that a kernel adds it to the pointer as it is, with no
// register, stack frame or arithmetic of its own.
type Skip struct{ Param, Group, Rows, Stride string }

// groupSkips are the skips of the lane kernels' groups.
var groupSkips = []Skip{{"spaceSkip", "groupSpace", "rows", "spaceStride"}, {"depthSkip", "groupDepth", "rows", "depthStride"}}

// Field is the Args field that holds a parameter, or its skip's Group.
func (s Signature) Field(param string) string {
	for _, k := range s.Skips {
		if k.Param == param {
			return exported(k.Group)
		}
	}
	return exported(param)
}

// Arg is the Go expression a call passes for a parameter, from the Args
// fields of c.
func (s Signature) Arg(param string) string {
	for _, k := range s.Skips {
		if k.Param == param {
			return "c." + exported(k.Group) + " - c." + exported(k.Rows) + "*c." + exported(k.Stride)
		}
	}
	return "c." + exported(param)
}

// exported is a parameter's name as a struct field: spaceStride becomes
// SpaceStride.
func exported(name string) string { return strings.ToUpper(name[:1]) + name[1:] }

// Params is the parameter list, e.g. (space, depth *byte, n, rows int).
func (s Signature) Params() string {
	return "(" + strings.Join(s.Ptrs, ", ") + " *byte, " + strings.Join(s.Ints, ", ") + " int)"
}

// Names lists every parameter in order.
func (s Signature) Names() []string { return slices.Concat(s.Ptrs, s.Ints) }
