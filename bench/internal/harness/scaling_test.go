package harness

import (
	"bytes"
	"fmt"
	"testing"

	bs "github.com/blockshuffle/blockshuffle"
)

// TestParallelCopy: the roofline copies every byte, whatever the split.
func TestParallelCopy(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 200, 4096 + 17, 1 << 16, 3*memChunk + 5} {
		for _, procs := range []int{1, 2, 3, 7, 16} {
			src, dst := tensors(n)
			for name, copier := range map[string]func(dst, src []byte) int{"copy": Copy, "MemCopy": MemCopy} {
				clear(dst)
				ParallelCopy(dst, src, procs, copier)()
				if !bytes.Equal(dst, src) {
					t.Errorf("%s: %d bytes over %d goroutines: not a copy", name, n, procs)
				}
			}
		}
	}
}

// TestServerCases: each of issue 41's calls is the op or transpose its
// description names, at the size it says, and moves what the plain Go
// loop moves.
func TestServerCases(t *testing.T) {
	for _, s := range ServerCases {
		j := s.Job()
		if j.Name != s.Name() || j.What != s.What || j.Bytes == 0 {
			t.Errorf("%s: job %q (%q), %d bytes", s.What, j.Name, j.What, j.Bytes)
		}
		if s.Transpose == nil {
			continue
		}
		b := NewTransposeBuffers(*s.Transpose)
		b.Loop()()
		want := bytes.Clone(b.dst)
		clear(b.dst)
		if ok, err := bs.TransposeBytes(b.dst, b.src, s.Transpose.Width, s.Transpose.Shape, s.Transpose.Perm); !ok || err != nil || !bytes.Equal(b.dst, want) {
			t.Errorf("%s: %v %v or a wrong output", s.What, ok, err)
		}
	}
	if got := fmt.Sprint(ServerCases[1].Op.Params().Dims()); got != "{1 3 640 640}" {
		t.Errorf("YOLO focus: SpaceToDepth of %s", got)
	}
}
