package blockshuffle

import (
	"unsafe"

	"github.com/blockshuffle/blockshuffle/dispatch"
	"github.com/blockshuffle/blockshuffle/internal/engine"
	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// Element is every fixed-size element type without pointers, and every type
// defined over one, such as float16.Float16 from github.com/x448/float16 or
// a bfloat16 defined as uint16. Types that hold pointers (strings, structs
// with pointers) go through package generic instead.
type Element interface {
	~bool | ~int8 | ~int16 | ~int32 | ~int64 | ~int |
		~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~uintptr |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// DepthToSpace moves the depth of src into space: src has the dims of p
// (N, C, H, W, with C a multiple of BlockSize²) and dst gets
// [N, C/BlockSize², H*BlockSize, W*BlockSize], in p.Layout, with
//
//	DCR: dst[n, c, h*b+i, w*b+j] = src[n, (i*b+j)*C/(b*b) + c, h, w]
//	CRD: dst[n, c, h*b+i, w*b+j] = src[n, c*b*b + i*b + j, h, w]
//
// Every element is copied bit for bit. dst and src must not overlap and must
// each hold N*C*H*W elements. On error dst is untouched.
func DepthToSpace[T Element](dst, src []T, p Params) error {
	size := int(unsafe.Sizeof(*new(T)))
	return p.run(OpDepthToSpace, size, size, engine.Bytes(dst), engine.Bytes(src))
}

// SpaceToDepth is the inverse of DepthToSpace with the same BlockSize and
// Order: src has the dims of p (N, C, H, W, with H and W multiples of
// BlockSize) and dst gets [N, C*BlockSize², H/BlockSize, W/BlockSize], with
//
//	DCR: dst[n, (i*b+j)*C + c, h, w] = src[n, c, h*b+i, w*b+j]
//	CRD: dst[n, c*b*b + i*b + j, h, w] = src[n, c, h*b+i, w*b+j]
//
// dst and src must not overlap and must each hold N*C*H*W elements. On error
// dst is untouched.
func SpaceToDepth[T Element](dst, src []T, p Params) error {
	size := int(unsafe.Sizeof(*new(T)))
	return p.run(OpSpaceToDepth, size, size, engine.Bytes(dst), engine.Bytes(src))
}

// DepthToSpaceBytes is DepthToSpace on raw elements of elemSize bytes, for
// any elemSize >= 1: dst and src each hold N*C*H*W*elemSize bytes. The
// slices need no particular alignment.
func DepthToSpaceBytes(dst, src []byte, elemSize int, p Params) error {
	return p.run(OpDepthToSpace, elemSize, 1, dst, src)
}

// SpaceToDepthBytes is SpaceToDepth on raw elements of elemSize bytes, for
// any elemSize >= 1: dst and src each hold N*C*H*W*elemSize bytes.
func SpaceToDepthBytes(dst, src []byte, elemSize int, p Params) error {
	return p.run(OpSpaceToDepth, elemSize, 1, dst, src)
}

// run makes a call of op with p on the bytes of dst and src, elements of
// elem bytes, whose lengths count slice elements of sliceElem bytes.
func (p *Params) run(op Op, elem, sliceElem int, dst, src []byte) error {
	var r shape.Request
	var dims [5]int
	p.request(&r, &dims, op, elem)
	r.Dims = dims[:]
	return engine.Active().Do(&r, engine.PlanOperator, sliceElem, dst, src)
}

// Tier names the kernel tier in use: "generic" (pure Go), or a SIMD tier:
// "avx2", "avx512bw" or "avx512vbmi" on amd64, "neon" on arm64. The
// environment variable BLOCKSHUFFLE_TIER, read once at start-up, can choose
// another available tier (BLOCKSHUFFLE_TIER=generic); the purego build tag
// leaves only "generic". Package dispatch has the details, and
// dispatch.EnvVarError says why a BLOCKSHUFFLE_TIER value was not used.
func Tier() string { return dispatch.Active().String() }

// Describe tells how the tier in use would serve a call of op with
// parameters p on elements of elemSize bytes (unsafe.Sizeof of the
// element type for the typed functions): the tier, the plan the call
// splits into (its kind, and how many kernel calls of how many rows), the
// goroutines it uses, and the kernel or pure-Go loop its rows go to, for
// example
//
//	avx2: interleave, 832 groups of 2 rows of 13 pixels of 2×1 4-byte elements in 1 kernel call; 1 goroutine; zip2x4AVX2
//
// It runs the same code as the call, moving nothing, on buffers it takes
// to be 32-byte aligned, as Go allocates large slices; where they are not,
// a streaming kernel (name ending in NT, for tensors from a quarter of the
// CPU's last-level cache, between 1 and 8 MiB, or 8 MiB where the CPU does
// not say) gives way to its ordinary twin. Parameters the call would
// reject get the call's error. The kernels package documents the route a
// call takes.
func Describe(op Op, p Params, elemSize int) (string, error) {
	var r shape.Request
	var dims [5]int
	p.request(&r, &dims, op, elemSize)
	r.Dims = dims[:]
	c, err := engine.Active().Prepare(&r, engine.PlanOperator)
	if err != nil {
		return "", err
	}
	return c.Describe().String(), nil
}
