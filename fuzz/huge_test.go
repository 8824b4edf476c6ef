package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	bs "github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/isa"
	"github.com/blockshuffle/blockshuffle/internal/random"
	"github.com/blockshuffle/blockshuffle/internal/ref"
	"github.com/blockshuffle/blockshuffle/internal/shape"
	"github.com/blockshuffle/blockshuffle/internal/transpose"
	"github.com/blockshuffle/blockshuffle/internal/verify"
)

// Dims up to the largest the checks accept: whatever passes them must plan
// and run on every tier, and whatever does not is an error, never a panic.
// A tensor is small enough to run here only where a dim is 0 or all are
// small, so the targets pair huge dims with zero-size partners (an empty
// tensor, which must plan however large its other dims) and with tiny
// slices (which must give ErrLength), and run the small ones against the
// reference.

// hugeDim turns a fuzz word into a dim: small (0 to 8) for a quarter of
// the words, else near a power of two up to 2^62, or near the largest
// tensor a check accepts divided by a small number.
func hugeDim(x uint64) int {
	small := int(x >> 8 % 9)
	e := int(x >> 16 % (bits.UintSize - 1))
	switch x % 4 {
	case 0:
		return small
	case 1, 2:
		return max(1<<e+small-4, 0)
	}
	return shape.MaxBytes/(1+int(x>>16%64)) + small - 4
}

// maxRun is the most bytes a huge case runs against the reference.
const maxRun = 1 << 16

// dimWord is hugeDim's word for the dim 2^e + v - 4 (e >= 0, 0 <= v <=
// 8), or for the small dim v (e < 0). hugeDim takes small from bits 8
// and up, e's bits included: bits 8 to 15 hold what makes it v.
func dimWord(e, v int) uint64 {
	if e < 0 {
		return uint64(v) << 8
	}
	return uint64(e)<<16 | uint64(((v-256*e)%9+9)%9)<<8 | 1
}

// FuzzHugeDims: an op of dims up to the checks' limits.
func FuzzHugeDims(f *testing.F) {
	one, four := dimWord(-1, 1), dimWord(-1, 4)
	for _, s := range []struct {
		n, c, h, w   uint64
		b, flags, es uint8
	}{
		{one, four, one, dimWord(60, 4), 1, 0, 0},                      // W = 2^60, N = 1: zip2x1AVX2 panicked
		{one, four, one, dimWord(59, 4), 1, 2, 0},                      // NHWC, W = 2^59: unzip2x2AVX2 panicked
		{dimWord(24, 4), four, one, one, 1, 0, 0},                      // N = 2^24, H = W = 1: the plan grew with N
		{dimWord(-1, 0), four, one, dimWord(62, 4), 1, 0, 0},           // a zero partner
		{one, one, one, 3 | four, 0, 4, 0},                             // SpaceToDepth b = 1 of the largest tensor the checks accept
		{one, one, one, 3 | dimWord(-1, 5), 0, 4, 0},                   // one byte more
		{one, dimWord(-1, 0), dimWord(61, 4), dimWord(40, 4), 1, 4, 3}, // no channels
	} {
		f.Add(s.n, s.c, s.h, s.w, s.b, s.flags, s.es)
	}
	f.Fuzz(func(t *testing.T, n, c, h, w uint64, b, flags, es uint8) {
		p := bs.Params{N: hugeDim(n), C: hugeDim(c), H: hugeDim(h), W: hugeDim(w), BlockSize: int(b%9) + 1,
			Order: bs.Order(flags & 1), Layout: bs.Layout(flags >> 1 & 1)}
		op := bs.Op(flags >> 2 & 1)
		checkHugeOp(t, op, p, int(es%17)+1)
	})
}

// FuzzHugeTranspose: a transpose of rank 1 to 6 of dims up to the checks'
// limits, by the order-th permutation; the small ones run on every tier
// this machine runs.
func FuzzHugeTranspose(f *testing.F) {
	small := func(v int) uint64 { return dimWord(-1, v) }
	for _, s := range []struct {
		d           [6]uint64
		rank, order uint16
		es          uint8
	}{
		{[6]uint64{small(3), dimWord(61, 4)}, 2, 1, 0},                                           // [3 2^61] by [1 0]: zip3x1AVX2 panicked
		{[6]uint64{small(2), dimWord(62, 3)}, 2, 1, 0},                                           // [2 2^62-1] by [1 0]: zip2x1AVX2
		{[6]uint64{small(0), dimWord(62, 4), small(3)}, 3, 5, 3},                                 // a zero partner
		{[6]uint64{dimWord(16, 4), small(2), small(2), small(3), small(1), small(2)}, 6, 432, 0}, // by [0 3 4 1 5 2]: DepthToSpace of N = 2^16, H = W = 1
		{[6]uint64{dimWord(10, 4), dimWord(4, 4)}, 2, 1, 3},                                      // [1024 16] by [1 0] of 4-byte words: dst rows a page apart, AVX2's quad tiles
		{[6]uint64{dimWord(6, 4), dimWord(10, 4)}, 2, 1, 0},                                      // [64 1024] by [1 0] of bytes: src rows 1 KiB apart, through a padded buffer
		{[6]uint64{dimWord(4, 4), dimWord(12, 4)}, 2, 1, 0},                                      // [16 4096] of bytes: tiles of 16 rows, src rows a page apart
		{[6]uint64{dimWord(5, 4), dimWord(10, 4)}, 2, 1, 1},                                      // [32 1024] of 2-byte words, src rows 2 KiB apart
		{[6]uint64{dimWord(4, 4), dimWord(11, 4)}, 2, 1, 1},                                      // [16 2048] of 2-byte words, src rows a page apart
	} {
		f.Add(s.d[0], s.d[1], s.d[2], s.d[3], s.d[4], s.d[5], s.rank, s.order, s.es)
	}
	f.Fuzz(func(t *testing.T, d0, d1, d2, d3, d4, d5 uint64, rank, order uint16, es uint8) {
		all := []int{hugeDim(d0), hugeDim(d1), hugeDim(d2), hugeDim(d3), hugeDim(d4), hugeDim(d5)}
		size := all[:int(rank-1)%6+1]
		checkHugeTranspose(t, size, permOf(len(size), int(order)), int(es%17)+1)
	})
}

// TestHugeDims runs the two targets' checks on random draws: 20,000 of
// each (2,000 with -short).
func TestHugeDims(t *testing.T) {
	count := 20_000
	if testing.Short() {
		count = 2_000
	}
	rng := rand.New(rand.NewPCG(39, 1))
	word := func() uint64 { return rng.Uint64() }
	for range count {
		p := bs.Params{N: hugeDim(word()), C: hugeDim(word()), H: hugeDim(word()), W: hugeDim(word()),
			BlockSize: 1 + rng.IntN(8), Order: bs.Order(rng.IntN(2)), Layout: bs.Layout(rng.IntN(2))}
		if rng.IntN(4) == 0 { // a block size that divides
			p.BlockSize = 2
		}
		checkHugeOp(t, bs.Op(rng.IntN(2)), p, 1+rng.IntN(16))
		size := make([]int, 1+rng.IntN(6))
		for i := range size {
			size[i] = hugeDim(word())
		}
		checkHugeTranspose(t, size, permOf(len(size), rng.IntN(720)), 1+rng.IntN(16))
	}
}

// permOf is the k-th permutation of n dims, modulo n!.
func permOf(n, k int) []int {
	free := make([]int, n)
	for i := range free {
		free[i] = i
	}
	perm := make([]int, 0, n)
	for m := n; m > 0; m-- {
		i := k % m
		k /= m
		perm = append(perm, free[i])
		free = append(free[:i], free[i+1:]...)
	}
	return perm
}

// builtTiers are every tier this build registered, whether or not this CPU
// runs it: planning runs no kernel, so each tier's planner meets every
// shape here.
func builtTiers() []*engine.Kit {
	var out []*engine.Kit
	for _, i := range isa.All {
		if t := engine.Lookup(i.TierName); t != nil {
			out = append(out, t)
		}
	}
	return out
}

// onlyOne fails t unless err wraps exactly one sentinel.
func onlyOne(t *testing.T, what string, err error) {
	t.Helper()
	if n := verify.Wrapped(err); n != 1 {
		t.Fatalf("%s: error %v wraps %d sentinels", what, err, n)
	}
}

func checkHugeOp(t *testing.T, op bs.Op, p bs.Params, es int) {
	what := func() string { return fmt.Sprintf("%v %+v es=%d", op, p, es) }
	_, derr := bs.Describe(op, p, es)
	pl, perr := bs.NewPlan(op, p, es)
	if (derr == nil) != (perr == nil) {
		t.Fatalf("%s: Describe gave %v, NewPlan %v", what(), derr, perr)
	}
	run := map[bs.Op]func(dst, src []byte, es int, p bs.Params) error{
		bs.OpDepthToSpace: bs.DepthToSpaceBytes, bs.OpSpaceToDepth: bs.SpaceToDepthBytes}[op]
	if perr != nil {
		onlyOne(t, what(), perr)
		if err := run(make([]byte, 8), make([]byte, 8), es, p); err == nil || err.Error() != perr.Error() {
			t.Fatalf("%s: the call gave %v, NewPlan %v", what(), err, perr)
		}
		return
	}
	r := request(op, p, es)
	g, err := r.Check()
	if err != nil {
		t.Fatalf("%s: NewPlan accepted it, shape's Check did not: %v", what(), err)
	}
	for _, tier := range builtTiers() {
		tier.Operator(&g).Describe()
	}
	n := g.Len() * es
	if n > maxRun {
		ranWithTiny(t, what(), n, func(dst, src []byte) error { return run(dst, src, es, p) }, pl)
		return
	}
	src := random.Bytes(rand.New(rand.NewPCG(uint64(n), 2)), n)
	want, got := make([]byte, n), make([]byte, n)
	ref.RunBytes(&g, want, src)
	if err := run(got, src, es, p); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s: the call gave %v or a wrong output", what(), err)
	}
	clear(got)
	if err := pl.Run(got, src); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s: the plan gave %v or a wrong output", what(), err)
	}
}

func checkHugeTranspose(t *testing.T, size, perm []int, es int) {
	what := func() string { return fmt.Sprintf("transpose %v by %v es=%d", size, perm, es) }
	pl, perr := bs.NewTransposePlan(size, perm, es, 0)
	r := shape.Request{Transpose: true, Elem: es, Dims: size, Perm: perm}
	n, cerr := r.CheckTranspose()
	if (perr == nil) != (cerr == nil) {
		t.Fatalf("%s: NewTransposePlan gave %v, CheckTranspose %v", what(), perr, cerr)
	}
	run := func(dst, src []byte) error {
		handled, err := bs.TransposeBytes(dst, src, es, size, perm)
		if !handled {
			t.Fatalf("%s: not handled", what())
		}
		return err
	}
	if perr != nil {
		onlyOne(t, what(), perr)
		if err := run(make([]byte, 8), make([]byte, 8)); err == nil || err.Error() != perr.Error() {
			t.Fatalf("%s: the call gave %v, NewTransposePlan %v", what(), err, perr)
		}
		return
	}
	var tiers []*engine.Prepared // the plans of the tiers this machine runs
	runs := verify.Kits()
	for _, tier := range builtTiers() {
		if p := transpose.General(tier, size, perm, es, n, 0); slices.Contains(runs, tier) {
			tiers = append(tiers, p)
		}
		if _, err := transpose.Plan(tier, &r); err != nil {
			t.Fatalf("%s: %s: %v", what(), tier.Name, err)
		}
	}
	if n > maxRun {
		ranWithTiny(t, what(), n, run, pl)
		return
	}
	src := random.Bytes(rand.New(rand.NewPCG(uint64(n), 3)), n)
	elems := make([][]byte, n/es)
	for i := range elems {
		elems[i] = src[i*es : (i+1)*es]
	}
	want := make([][]byte, len(elems))
	ref.Transpose(want, elems, size, perm)
	got := make([]byte, n)
	if err := run(got, src); err != nil || !bytes.Equal(got, bytes.Join(want, nil)) {
		t.Fatalf("%s: the call gave %v or a wrong output", what(), err)
	}
	clear(got)
	if err := pl.Run(got, src); err != nil || !bytes.Equal(got, bytes.Join(want, nil)) {
		t.Fatalf("%s: the plan gave %v or a wrong output", what(), err)
	}
	for _, p := range tiers {
		clear(got)
		if p.Run(got, src); !bytes.Equal(got, bytes.Join(want, nil)) {
			t.Fatalf("%s: %v: a wrong output", what(), p.Describe())
		}
	}
}

// ranWithTiny checks that a valid call of n bytes, too large to run, is
// refused with ErrLength on slices shorter than n, by the plain function
// and the plan, and leaves dst untouched.
func ranWithTiny(t *testing.T, what string, n int, run func(dst, src []byte) error, pl *bs.Plan) {
	t.Helper()
	dst, src := bytes.Repeat([]byte{0xa5}, 64), make([]byte, 64)
	for _, err := range []error{run(dst, src), pl.Run(dst, src)} {
		if !errors.Is(err, bs.ErrLength) {
			t.Fatalf("%s (%d bytes) on 64-byte slices: %v, want ErrLength", what, n, err)
		}
	}
	if !bytes.Equal(dst, bytes.Repeat([]byte{0xa5}, 64)) {
		t.Fatalf("%s: a refused call wrote dst", what)
	}
}
