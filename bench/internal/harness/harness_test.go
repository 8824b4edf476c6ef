package harness

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unsafe"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/dispatch"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/ref"
)

// TestTypical checks the baselines, Typical and Loop, against the package
// on small tensors of every kind of case: a wrong baseline would make
// every gain in the report a fiction.
func TestTypical(t *testing.T) {
	shapes := []Shape{{2, 18, 3, 5, 3}, {1, 8, 4, 2, 2}, {2, 16, 2, 3, 4}, {1, 3, 2, 2, 1}}
	for _, c := range Cases(shapes, allWidths()) {
		src := make([]byte, c.Bytes())
		for i := range src {
			src[i] = byte(i*7 + i>>8)
		}
		want := make([]byte, len(src))
		r := c.Request(1)
		if err := engine.Lookup(isa.Generic).Do(&r, engine.PlanOperator, 1, want, src); err != nil {
			t.Fatal(err)
		}
		var got []byte
		switch c.Width {
		case 1:
			got = Typical(c, src)
		case 2:
			got = typicalBytes[[2]byte](c, src)
		case 4:
			got = typicalBytes[[4]byte](c, src)
		case 8:
			got = typicalBytes[[8]byte](c, src)
		case 16:
			got = typicalBytes[[16]byte](c, src)
		}
		if got != nil && !bytes.Equal(got, want) { // got: the widths of a Go number
			t.Errorf("%v: Typical differs from the package:\n got %v\nwant %v", c, got, want)
		}
		if NewBuffers(c).Typical() == nil {
			t.Errorf("%v: no typical runner", c)
		}
		// The hand-written loop, through its runner on the case's buffers.
		b := NewBuffers(c)
		copy(b.src, src)
		clear(b.dst)
		b.Loop()()
		if !bytes.Equal(b.dst, want) {
			t.Errorf("%v: Loop differs from the package:\n got %v\nwant %v", c, b.dst, want)
		}
	}
}

// typicalBytes runs Typical on src as elements of type E, an array of bytes.
func typicalBytes[E any](c Case, src []byte) []byte {
	w := int(unsafe.Sizeof(*new(E)))
	in := unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(src))), len(src)/w)
	out := Typical(c, in)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(src))
}

// TestCasesAreValid keeps the report from panicking on a mistyped shape:
// every case must be a valid call whose output has as many bytes.
func TestCasesAreValid(t *testing.T) {
	for _, c := range Cases(Shapes, Widths) {
		p := c.Params()
		dims, err := p.DepthToSpaceDims()
		if c.Op == bs.OpSpaceToDepth {
			dims, err = p.SpaceToDepthDims()
		}
		if err != nil || dims.Len()*c.Width != c.Bytes() {
			t.Errorf("%v: %v, output %+v", c, err, dims)
		}
	}
}

// TestParseShape reads back what String writes and names what it rejects.
func TestParseShape(t *testing.T) {
	for _, s := range append(slices.Clone(Shapes), Shape{2, 9, 1, 7, 3}, Shape{1, 1, 1, 1, 1}) {
		got, err := ParseShape(s.String())
		if err != nil || got != s {
			t.Errorf("ParseShape(%q) = %v, %v", s.String(), got, err)
		}
	}
	for text, want := range map[string]string{
		"1x256x13x13":      "want NxCxHxW/bB",
		"1x256x13/b2":      "want NxCxHxW/bB",
		"1x256x13x13x2/b2": "want NxCxHxW/bB",
		"1x25ax13x13/b2":   `"25a" is not a whole number`,
		"1x256x13x13/b":    `"" is not a whole number`,
		"1x250x13x13/b2":   "250",
		"0x256x13x13/b2":   "N",
		"1x256x13x13/b0":   "0",
		"1x4x-1x13/b2":     "-1",
	} {
		if _, err := ParseShape(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseShape(%q): error %v, want one containing %q", text, err, want)
		}
	}
}

// TestTransposesArePlansAsUsersGetThem: the report runs each transpose as
// a user's NewTransposePlan plans it with one worker, a block shuffle as
// its op.
func TestTransposesArePlansAsUsersGetThem(t *testing.T) {
	active := dispatch.Active()
	for _, c := range TransposeCases(Transposes, Widths) {
		pl, err := bs.NewTransposePlan(c.Shape, c.Perm, c.Width, 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := NewTransposeBuffers(c).Describe(active); pl.String() != want {
			t.Errorf("%s: NewTransposePlan makes %q, the report runs %q", c, pl, want)
		}
	}
}

// allWidths are the widths 1 to MaxWidth.
func allWidths() []int {
	var ws []int
	for w := 1; w <= MaxWidth; w++ {
		ws = append(ws, w)
	}
	return ws
}

// TestTransposeLoopWidths: the report's hand-written transpose loop moves
// elements of every width as the package does.
func TestTransposeLoopWidths(t *testing.T) {
	for _, w := range allWidths() {
		c := TransposeCase{Transpose: Transpose{Shape: []int{3, 5, 7}, Perm: []int{2, 0, 1}}, Width: w}
		b := NewTransposeBuffers(c)
		for i := range b.src {
			b.src[i] = byte(i*7 + i>>8)
		}
		b.Loop()()
		want := make([]byte, len(b.dst))
		if ok, err := bs.TransposeBytes(want, b.src, w, c.Shape, c.Perm); !ok || err != nil || !bytes.Equal(b.dst, want) {
			t.Errorf("width %d: %v %v or a wrong output", w, ok, err)
		}
	}
}

// TestTransposeLoop: the hand-written loop moves what the reference moves,
// matrices (blocked) and other ranks alike.
func TestTransposeLoop(t *testing.T) {
	for _, c := range []struct{ shape, perm []int }{
		{[]int{33, 70}, []int{1, 0}},
		{[]int{1, 1}, []int{1, 0}},
		{[]int{5, 7}, []int{0, 1}},
		{[]int{2, 3, 4}, []int{2, 0, 1}},
		{[]int{4, 6, 8, 5, 7, 3}, []int{5, 3, 1, 0, 4, 2}},
		{[]int{7}, []int{0}},
	} {
		n := 1
		for _, d := range c.shape {
			n *= d
		}
		src := make([]uint32, n)
		for i := range src {
			src[i] = uint32(i)*2654435761 + 1
		}
		got, want := make([]uint32, n), make([]uint32, n)
		TransposeLoop(got, src, c.shape, c.perm)
		ref.Transpose(want, src, c.shape, c.perm)
		if !slices.Equal(got, want) {
			t.Errorf("%v by %v: wrong output", c.shape, c.perm)
		}
	}
}
