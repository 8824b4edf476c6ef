package loops

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Any are the row loops for any element type, pointers included: every
// element moves by ordinary Go assignment or copy, so the garbage
// collector's write barriers run. Package generic runs them on typed
// slices (engine.Execute).
type Any[T any] struct{}

// loop is one of the pure-Go row loops.
type loop uint8

const (
	copyAll     loop = iota // a Runs call whose rows form one block: one copy (b = 1 lands here)
	runLoop                 // Runs: one copy per pixel's run
	wordsLoop               // elements of several words each, one at a time, any kind
	zipLoop                 // Interleave
	regroupLoop             // Regroup
	wordLoop                // Runs of exactly 4, 8 or 16 bytes, as whole words
)

// pick chooses the loop of a call whose elements are size bytes; words
// says that they hold no pointers, so that runs may move as words.
func pick(kind engine.Kind, a *engine.Args, size int, words bool) loop {
	switch run := a.B * a.Cp * size; {
	case kind == engine.Runs && a.Contiguous():
		return copyAll
	case kind == engine.Runs && words && (run == 4 || run == 8 || run == 16):
		return wordLoop
	case kind == engine.Runs: // runs are contiguous whatever the word
		return runLoop
	case a.Words != 1:
		return wordsLoop
	case kind == engine.Interleave:
		return zipLoop
	}
	return regroupLoop
}

// name is how Describe reports a loop.
func (l loop) name(toDepth bool, a *engine.Args, size int) string {
	switch l {
	case copyAll:
		return "generic: one copy"
	case runLoop:
		return fmt.Sprintf("generic: a copy per %d-element run", a.B*a.Cp)
	case wordsLoop:
		return fmt.Sprintf("generic: %d-byte elements one by one", size)
	case zipLoop:
		dir := "zip"
		if toDepth {
			dir = "unzip"
		}
		switch a.B {
		case 2, 3, 4, 8:
			return fmt.Sprintf("generic: %s%d blocks", dir, a.B)
		}
		return fmt.Sprintf("generic: %s by rows (b = %d)", dir, a.B)
	case regroupLoop:
		return "generic: regrouped rows"
	}
	return fmt.Sprintf("generic: %d-byte word runs", a.B*a.Cp*size)
}

// Run implements engine.RowLoops.
func (Any[T]) Run(toDepth bool, kind engine.Kind, space, depth []T, a *engine.Args) {
	run(pick(kind, a, a.Words*int(unsafe.Sizeof(*new(T))), false), !toDepth, space, depth, a)
}

// run runs loop l on a call's slices.
func run[T any](l loop, d2s bool, space, depth []T, a *engine.Args) {
	if l == copyAll {
		n := a.Groups * a.GroupSpace
		if d2s {
			copy(space[:n], depth[:n])
		} else {
			copy(depth[:n], space[:n])
		}
		return
	}
	forGroups(space, depth, a, func(space, depth []T) {
		switch l {
		case runLoop:
			runs(d2s, space, depth, a)
		case wordsLoop:
			anyWords(d2s, space, depth, a)
		case zipLoop:
			zipRows(d2s, space, depth, a)
		case regroupLoop:
			regroupRows(d2s, space, depth, a)
		default:
			wordRuns(d2s, engine.Bytes(space), engine.Bytes(depth), a, int(unsafe.Sizeof(*new(T))))
		}
	})
}

// forGroups calls rows once per group, with the slices starting at the group.
func forGroups[T any](space, depth []T, a *engine.Args, rows func(space, depth []T)) {
	for g := range a.Groups {
		rows(space[g*a.GroupSpace:], depth[g*a.GroupDepth:])
	}
}

// anyWords moves elements of any number of words one element at a time
// following the engine.Args formula; it serves every kind.
func anyWords[T any](d2s bool, space, depth []T, a *engine.Args) {
	u := a.Words
	for r := 0; r < a.Rows; r++ {
		so, do := r*a.SpaceStride, r*a.DepthStride
		for x := 0; x < a.W; x++ {
			for j := 0; j < a.B; j++ {
				dj := do + x*a.XS + j*a.JS
				for c := 0; c < a.Cp; c++ {
					s, d := space[so:so+u], depth[dj+c*a.CS:][:u]
					if d2s {
						copy(s, d)
					} else {
						copy(d, s)
					}
					so += u
				}
			}
		}
	}
}

// elements moves a call's elements, a.Words bytes each, one at a time,
// the pixel loop innermost (regroupRows's order): those of 3 to 16 bytes
// by moveElements, where copy() calls memmove. On a Zen 4, NCHW
// DepthToSpace b = 2 of 5-byte elements (1x12x270x480) ran at 0.73 of
// package generic's typed loops with a copy() per element, 3.4 times as
// fast as them so.
func elements(d2s bool, space, depth []byte, a *engine.Args) {
	u := a.Words
	if u < 3 || u > 16 {
		anyWords(d2s, space, depth, a)
		return
	}
	blk := a.B * a.Cp * u
	for r := 0; r < a.Rows; r++ {
		s, d := space[r*a.SpaceStride:], depth[r*a.DepthStride:]
		for j := 0; j < a.B; j++ {
			for c := 0; c < a.Cp; c++ {
				to, from := s[(j*a.Cp+c)*u:], d[j*a.JS+c*a.CS:]
				if d2s {
					moveElements(to, from, a.W, blk, a.XS, u)
				} else {
					moveElements(from, to, a.W, a.XS, blk, u)
				}
			}
		}
	}
}

// moveElements moves n elements of u bytes, 3 to 16, element k from
// from[k*fs:] to to[k*ts:], each as two words that overlap inside it, of
// 8 bytes for u > 8, 4 for u > 4, else 2: one load and one store each,
// where a byte array of u bytes takes up to three of each, and one
// function serves every size (eleven instantiations of a byte array
// loop took 16 KiB of a stripped binary).
func moveElements(to, from []byte, n, ts, fs, u int) {
	switch {
	case u > 8:
		halves[[8]byte](to, from, n, ts, fs, u)
	case u > 4:
		halves[[4]byte](to, from, n, ts, fs, u)
	default:
		halves[[2]byte](to, from, n, ts, fs, u)
	}
}

// halves is moveElements with words of type H, of h bytes, h < u <= 2h.
// It checks the slices' bounds once: with ts, fs >= 0, every element
// lies before the last one's end. (A bounds check per word ran at a third
// of the speed.)
func halves[H [2]byte | [4]byte | [8]byte](to, from []byte, n, ts, fs, u int) {
	if n <= 0 {
		return
	}
	if ts < 0 || fs < 0 {
		panic("loops: negative element steps")
	}
	_, _ = to[(n-1)*ts+u-1], from[(n-1)*fs+u-1]
	t, f := unsafe.Pointer(unsafe.SliceData(to)), unsafe.Pointer(unsafe.SliceData(from))
	h := int(unsafe.Sizeof(*new(H)))
	for k := range n {
		tk, fk := unsafe.Add(t, k*ts), unsafe.Add(f, k*fs)
		*(*H)(tk) = *(*H)(fk) // moves, not values: an array value would go through the stack
		*(*H)(unsafe.Add(tk, u-h)) = *(*H)(unsafe.Add(fk, u-h))
	}
}

// kernels are the generic tier's kernels: the loops on pointer-free
// elements of 1, 2, 4, 8 or 16 bytes, and on bytes for elements of other
// sizes (a.Words bytes each).
type kernels struct{}

// Row implements engine.Kernels: a loop serves every row call.
func (kernels) Row(toDepth bool, kind engine.Kind, space, depth engine.Span, a *engine.Args, w int) engine.Call {
	c := &call{l: pick(kind, a, a.Words*w, true), toDepth: toDepth, a: *a, w: w, space: space, depth: depth}
	c.bytes = a.In(w, 1) // the same call on bytes, for tensors whose addresses w does not divide
	c.byteLoop = pick(kind, &c.bytes, c.bytes.Words, true)
	return c
}

// OnePass implements engine.Kernels: the loops have no one-pass plans.
func (kernels) OnePass(*shape.Geometry) (fmt.Stringer, []engine.Call) { return nil, nil }

// Gathered implements engine.Kernels: the loops have no shuffles.
func (kernels) Gathered(engine.Span, engine.Span, []int, []int, int, bool, engine.Rival) (fmt.Stringer, int, func(lo, hi int) []engine.Call) {
	return nil, 0, nil
}

// A call is a loop's row call: its arguments count words of w bytes.
type call struct {
	l            loop
	toDepth      bool
	a            engine.Args
	w            int
	space, depth engine.Span
	// bytes and byteLoop are the call on bytes, elements of a.Words*w
	// of them, for tensors whose addresses w does not divide.
	bytes    engine.Args
	byteLoop loop
}

func (c *call) Kernel() string { return c.l.name(c.toDepth, &c.a, c.a.Words*c.w) }

func (c *call) Run(space, depth []byte) {
	s, d, d2s := c.space.In(space, depth), c.depth.In(space, depth), !c.toDepth
	switch {
	case c.l == wordsLoop || c.w == 16 && c.byteLoop == wordsLoop:
		forGroups(s, d, &c.bytes, func(s, d []byte) { elements(d2s, s, d, &c.bytes) })
	case c.w == 1 || c.w == 16 || !aligned(s, d, c.w):
		run(c.byteLoop, d2s, s, d, &c.bytes)
	case c.w == 2:
		run(c.l, d2s, words[uint16](s), words[uint16](d), &c.a)
	case c.w == 4:
		run(c.l, d2s, words[uint32](s), words[uint32](d), &c.a)
	default:
		run(c.l, d2s, words[uint64](s), words[uint64](d), &c.a)
	}
}

// The loops move w-byte words as integers (uint16, uint32, uint64),
// whose loads and stores the compiler composes well, where both slices'
// addresses are multiples of the integer's size or the GOARCH does not
// mind (unalignedOK; checkptr accepts misaligned pointers to types
// without pointers), 16-byte words as bytes, element by element in two
// 8-byte halves (elements); else the row loops move the call's elements
// as bytes, and the Go tiles words as byte arrays, which any address
// holds, slower: on a Zen 4, NCHW DepthToSpace b = 2 of 4-byte elements
// ran at 15.8 GB/s as uint32, 1.4 as [4]byte.

// aligned reports whether a and b start at multiples of the size of the
// integers w-byte words move as, or words move as integers from any
// address on this GOARCH (unalignedOK).
func aligned(a, b []byte, w int) bool {
	if unalignedOK {
		return true
	}
	m := uintptr(min(w, 8) - 1)
	return (uintptr(unsafe.Pointer(unsafe.SliceData(a)))|uintptr(unsafe.Pointer(unsafe.SliceData(b))))&m == 0
}

// words views b as words of type W.
func words[W any](b []byte) []W {
	return unsafe.Slice((*W)(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b))/unsafe.Sizeof(*new(W)))
}

// unalignedOK says that this GOARCH loads and stores integers at any
// address: those on which the compiler itself combines byte loads into
// wider ones (cmd/compile/internal/ssa's Config.unalignedOK). There the
// byte-array twins of the word loops are dead code, which the linker
// leaves out of every binary (3.6 KiB of an amd64 one), and misaligned
// slices move as fast as aligned ones.
const unalignedOK = runtime.GOARCH == "amd64" || runtime.GOARCH == "386" || runtime.GOARCH == "arm64" ||
	runtime.GOARCH == "ppc64" || runtime.GOARCH == "ppc64le" || runtime.GOARCH == "loong64" ||
	runtime.GOARCH == "s390x" || runtime.GOARCH == "wasm"

var le = binary.LittleEndian

// wordRuns moves runs of exactly 4, 8 or 16 bytes with one or two loads and
// stores each; a call to memmove costs more than that.
func wordRuns(d2s bool, space, depth []byte, a *engine.Args, size int) {
	run, xs := a.B*a.Cp*a.Words*size, a.XS*size // bytes
	for r := 0; r < a.Rows; r++ {
		to, from := space[r*a.SpaceStride*size:][:a.W*run], depth[r*a.DepthStride*size:]
		ts, fs := run, xs
		if !d2s {
			to, from, ts, fs = from, to, fs, ts
		}
		switch run {
		case 4:
			for x := 0; x < a.W; x++ {
				le.PutUint32(to[x*ts:], le.Uint32(from[x*fs:]))
			}
		case 8:
			for x := 0; x < a.W; x++ {
				le.PutUint64(to[x*ts:], le.Uint64(from[x*fs:]))
			}
		default:
			for x := 0; x < a.W; x++ {
				t, f := to[x*ts:][:16], from[x*fs:][:16]
				le.PutUint64(t, le.Uint64(f))
				le.PutUint64(t[8:], le.Uint64(f[8:]))
			}
		}
	}
}
