package transpose

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unsafe"

	_ "github.com/blockshuffle/blockshuffle/internal/loops" // the generic tier

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/random"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// naiveBytes is the reference: ref.Transpose on elements of elem bytes.
func naiveBytes(src []byte, size, perm []int, elem int) []byte {
	n := len(src) / elem
	in, out := make([][]byte, n), make([][]byte, n)
	for i := range in {
		in[i] = src[i*elem : (i+1)*elem]
	}
	ref.Transpose(out, in, size, perm)
	return bytes.Join(out, nil)
}

// randomTranspose draws a shape of rank 1 to 8 (dims often 1, sometimes
// 0), a permutation and an element size of 1 to 16 bytes, at most about
// 4096 elements.
func randomTranspose(rng *rand.Rand) (size, perm []int, elem int) {
	rank := 1 + rng.IntN(8)
	size = make([]int, rank)
	n := 1
	for k := range size {
		switch rng.IntN(8) {
		case 0:
			size[k] = 1
		case 1:
			size[k] = rng.IntN(2) // 0 or 1
		default:
			size[k] = 1 + rng.IntN(9)
		}
		if n*max(size[k], 1) > 4096 {
			size[k] = 1
		}
		n *= max(size[k], 1)
	}
	elem = []int{1, 2, 4, 8, 1, 2, 4, 8, 3, 6, 12, 16, 5, 7, 10, 14}[rng.IntN(16)]
	return size, rng.Perm(rank), elem
}

// TestGeneral runs random transposes against the naive one, in Go alone.
func TestGeneral(t *testing.T) {
	count := 100_000
	if testing.Short() {
		count = 5_000
	}
	checkGeneral(t, engine.Generic(), count, rand.New(rand.NewPCG(32, 1)), randomTranspose)
}

// checkGeneral runs count transposes drawn by draw, planned on tier k,
// against the naive one, in slices with guard bytes on both sides: dst
// in turn at the start of a cache line (where streaming stores may run),
// 8 bytes into one, and one byte off the alignment of the words.
func checkGeneral(t *testing.T, k *engine.Kit, count int, rng *rand.Rand, draw func(*rand.Rand) (size, perm []int, elem int)) {
	// Every other transpose runs on up to three goroutines, in pieces of
	// 64 bytes: the pieces and the uncut form of every plan are checked.
	defer engine.SetShares(64, 0)()
	for i := range count {
		size, perm, elem := draw(rng)
		workers := 3 * (i % 2)
		r := shape.Request{Transpose: true, Elem: elem, Workers: workers, Dims: size, Perm: perm}
		n, err := r.CheckTranspose()
		if err != nil {
			t.Fatalf("shape %v perm %v elem %d: %v", size, perm, elem, err)
		}
		name := k.Name
		g := General(k, size, perm, elem, n, workers)
		buf := random.Bytes(rng, n+128)
		off := 64 - int(uintptr(unsafe.Pointer(&buf[0]))%64) + []int{0, 8, 9}[i%3]
		src := random.Bytes(rng, n+16)[8+i%2 : 8+i%2+n]
		want := naiveBytes(src, size, perm, elem)
		before := bytes.Clone(buf)
		g.Run(buf[off:off+n], src)
		if !bytes.Equal(buf[off:off+n], want) {
			t.Fatalf("%s: shape %v perm %v elem %d (%s): wrong output", name, size, perm, elem, g.Describe())
		}
		if !bytes.Equal(buf[:off], before[:off]) || !bytes.Equal(buf[off+n:], before[off+n:]) {
			t.Fatalf("%s: shape %v perm %v elem %d: wrote outside dst", name, size, perm, elem)
		}
	}
}

// randomMatrixTranspose draws, more often than randomTranspose, shapes
// whose innermost matrix is large enough for tile kernels: one dim of 16
// to 70 among a few small ones, the last one often moved.
func randomMatrixTranspose(rng *rand.Rand) (size, perm []int, elem int) {
	size, perm, elem = randomTranspose(rng)
	n := 1
	for _, d := range size {
		n *= max(d, 1)
	}
	for k := range size {
		if d := 16 + rng.IntN(55); n/max(size[k], 1)*d*elem <= 1<<16 && rng.IntN(2) == 0 {
			n = n / max(size[k], 1) * d
			size[k] = d
		}
	}
	return size, perm, elem
}
