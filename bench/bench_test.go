package bench

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"testing"
	"unsafe"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/dispatch"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// BenchmarkShuffle runs every case with every tier this machine has and with
// the typical Go loop, named op/order/layout/width/shape/tier, e.g.
//
//	go test ./bench -bench='Shuffle/d2s/DCR/NCHW/w4/.*/(avx2|typical)'
func BenchmarkShuffle(b *testing.B) {
	for _, c := range Cases(Shapes, Widths) {
		buf := NewBuffers(c)
		runners := map[string]func(){"typical": buf.Typical()}
		names := []string{"typical"}
		for _, tier := range dispatch.Available() {
			runners[tier.String()] = buf.Tier(tier)
			names = append(names, tier.String())
		}
		for _, name := range names {
			b.Run(c.String()+"/"+name, func(b *testing.B) {
				f := runners[name]
				b.SetBytes(int64(c.Bytes()))
				for b.Loop() {
					f()
				}
			})
		}
	}
}

// BenchmarkCopy is copy() of the bytes of each shape and width: the speed a
// shuffle is measured against.
func BenchmarkCopy(b *testing.B) {
	for _, s := range Shapes {
		for _, w := range Widths {
			c := Case{Shape: s, Width: w}
			b.Run(fmt.Sprintf("w%d/%v", w, s), func(b *testing.B) {
				f := NewBuffers(c).Copy()
				b.SetBytes(int64(c.Bytes()))
				for b.Loop() {
					f()
				}
			})
		}
	}
}

// BenchmarkWorkers shows where splitting a call over goroutines starts to
// pay, which is where the automatic choice (Workers = 0) should switch:
// float32 NCHW DepthToSpace of 64 square channels, b = 2, at sizes around
// the threshold, with Workers = 1, 2, GOMAXPROCS and 0.
func BenchmarkWorkers(b *testing.B) {
	counts := []int{1, 2}
	if n := runtime.GOMAXPROCS(0); n > 2 {
		counts = append(counts, n)
	}
	counts = append(counts, 0)
	for _, kib := range []int{256, 1024, 4096, 8192, 16384, 32768, 65536} {
		side := int(math.Sqrt(float64(kib << 10 / 4 / 64)))
		c := Case{Shape{1, 64, side, side, 2}, shape.DepthToSpace, bs.DCR, bs.NCHW, 4}
		for _, workers := range counts {
			b.Run(fmt.Sprintf("%dKiB/workers=%d", c.Bytes()>>10, workers), func(b *testing.B) {
				p := c.Params()
				p.Workers = workers
				src, dst := make([]float32, c.Bytes()/4), make([]float32, c.Bytes()/4)
				b.SetBytes(int64(c.Bytes()))
				for b.Loop() {
					if err := bs.DepthToSpace(dst, src, p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestTypical checks the baseline against the package on small tensors of
// every kind of case: a wrong baseline would make every gain in the report
// a fiction.
func TestTypical(t *testing.T) {
	shapes := []Shape{{2, 18, 3, 5, 3}, {1, 8, 4, 2, 2}, {2, 16, 2, 3, 4}, {1, 3, 2, 2, 1}}
	for _, c := range Cases(shapes, []int{1, 2, 4, 8, 16}) {
		src := make([]byte, c.Bytes())
		for i := range src {
			src[i] = byte(i*7 + i>>8)
		}
		want := make([]byte, len(src))
		if err := dispatch.Sets(dispatch.Generic).Do(c.Op, want, src, c.Width, c.Params()); err != nil {
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
		if !bytes.Equal(got, want) {
			t.Errorf("%v: Typical differs from the package:\n got %v\nwant %v", c, got, want)
		}
		if NewBuffers(c).Typical() == nil {
			t.Errorf("%v: no typical runner", c)
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
		if c.Op == shape.SpaceToDepth {
			dims, err = p.SpaceToDepthDims()
		}
		if err != nil || dims.Len()*c.Width != c.Bytes() {
			t.Errorf("%v: %v, output %+v", c, err, dims)
		}
	}
}
