package shape

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"unsafe"
)

// Sentinel errors. Every error the module returns wraps exactly one of them
// (test with errors.Is) and names the offending values in its message.
var (
	ErrBlockSize    = errors.New("block size must be at least 1")
	ErrNegativeDim  = errors.New("negative dimension")
	ErrNotDivisible = errors.New("shape not divisible by the block size")
	ErrOverflow     = errors.New("size out of range")
	ErrLength       = errors.New("slice length does not match the shape")
	ErrOverlap      = errors.New("dst and src share memory")
	ErrOrder        = errors.New("unknown order")
	ErrLayout       = errors.New("unknown layout")
	ErrElemSize     = errors.New("element size must be at least 1")
	ErrWorkers      = errors.New("worker count must not be negative")
	ErrOp           = errors.New("unknown operator")
	ErrRank         = errors.New("unsupported rank")
	ErrPerm         = errors.New("perm is not a permutation of the dims")
	ErrElemType     = errors.New("element type does not match the plan")
)

// Geometry is a validated call, described from the depth side: the tensor
// with many channels (the input of DepthToSpace, the output of SpaceToDepth).
// Its space side has dims [N, C/(B*B), H*B, W*B].
type Geometry struct {
	Op      Op
	Order   Order
	Layout  Layout
	B       int
	Depth   Dims // the many-channel tensor
	Space   Dims // the large-spatial tensor
	Elem    int  // size of one element in what the slice lengths count
	Workers int
}

// Len is the number of elements on each side.
func (g Geometry) Len() int { return g.Depth.Len() }

func (g Geometry) output() Dims {
	if g.Op == SpaceToDepth {
		return g.Depth
	}
	return g.Space
}

// Validate checks one call and describes it. dstLen and srcLen count slice
// elements, of which one tensor element takes elem (bytes for the byte API, elements for typed
// slices with elem = 1). overlap says whether dst and src share memory
// (see Overlap). On error nothing has been written anywhere.
func Validate(op Op, p Params, elem, dstLen, srcLen int, overlap bool) (Geometry, error) {
	g, err := Check(op, p, elem)
	if err != nil {
		return g, err
	}
	return g, Slices(op, p, elem, g.Len()*elem, dstLen, srcLen, overlap) // Check proved the product fits
}

// Slices checks the slices of a call whose parameters passed Check: both
// lengths must be want, in slice elements, of which one tensor element takes elem, and
// they must not overlap.
func Slices(op Op, p Params, elem, want, dstLen, srcLen int, overlap bool) error {
	return Lengths(op.String(), want, dstLen, srcLen, overlap, func() string { return describe(p, elem) })
}

// Lengths checks the slices of a call, which name names in its errors:
// both lengths must be want and they must not overlap. of describes the
// tensors for an error, and is called only to make one.
func Lengths(name string, want, dstLen, srcLen int, overlap bool, of func() string) error {
	switch {
	case srcLen != want:
		return fmt.Errorf("blockshuffle: %s: len(src) = %d, want %d for %s: %w", name, srcLen, want, of(), ErrLength)
	case dstLen != want:
		return fmt.Errorf("blockshuffle: %s: len(dst) = %d, want %d for %s: %w", name, dstLen, want, of(), ErrLength)
	case overlap:
		return fmt.Errorf("blockshuffle: %s: %w (in place is not supported)", name, ErrOverlap)
	}
	return nil
}

func describe(p Params, elem int) string {
	s := fmt.Sprintf("N=%d C=%d H=%d W=%d", p.N, p.C, p.H, p.W)
	if elem != 1 {
		s += fmt.Sprintf(" elemSize=%d", elem)
	}
	return s
}

// invalid is every validation error: the op, what is wrong with which
// value, and the sentinel it wraps.
func invalid(op Op, err error, format string, args ...any) error {
	return fmt.Errorf("blockshuffle: %v: %s: %w", op, fmt.Sprintf(format, args...), err)
}

// Check validates everything but the slices: a call's parameters, for
// elements of elem slice elements each.
func Check(op Op, p Params, elem int) (Geometry, error) {
	b := p.BlockSize
	g := Geometry{Op: op, Order: p.Order, Layout: p.Layout, B: b, Elem: elem, Workers: p.Workers}
	fail := func(err error, format string, args ...any) (Geometry, error) {
		return Geometry{}, invalid(op, err, format, args...)
	}
	switch {
	case op > SpaceToDepth:
		return fail(ErrOp, "want OpDepthToSpace or OpSpaceToDepth")
	case b < 1:
		return fail(ErrBlockSize, "BlockSize = %d", b)
	case p.Order > CRD:
		return fail(ErrOrder, "Order = %d (want DCR or CRD)", uint8(p.Order))
	case p.Layout > NHWC:
		return fail(ErrLayout, "Layout = %d (want NCHW or NHWC)", uint8(p.Layout))
	case p.Workers < 0:
		return fail(ErrWorkers, "Workers = %d", p.Workers)
	case elem < 1:
		return fail(ErrElemSize, "elemSize = %d", elem)
	}
	for _, d := range [...]struct {
		name string
		v    int
	}{{"N", p.N}, {"C", p.C}, {"H", p.H}, {"W", p.W}} {
		if d.v < 0 {
			return fail(ErrNegativeDim, "%s = %d", d.name, d.v)
		}
	}
	bb, bbOK := mul(b, b)
	if op == DepthToSpace {
		if !bbOK || p.C%bb != 0 {
			if p.C != 0 { // 0 is a multiple of every b*b, even one too big for int
				return fail(ErrNotDivisible, "C = %d is not a multiple of BlockSize*BlockSize = %d*%d", p.C, b, b)
			}
		}
		if _, ok := mul(p.H, b); !ok {
			return fail(ErrOverflow, "output height H*BlockSize = %d*%d", p.H, b)
		}
		if _, ok := mul(p.W, b); !ok {
			return fail(ErrOverflow, "output width W*BlockSize = %d*%d", p.W, b)
		}
		g.Depth = p.Dims()
		g.Space = Dims{p.N, 0, p.H * b, p.W * b}
		if bbOK {
			g.Space.C = p.C / bb
		}
	} else {
		if p.H%b != 0 || p.W%b != 0 {
			return fail(ErrNotDivisible, "H = %d and W = %d must be multiples of BlockSize = %d", p.H, p.W, b)
		}
		c, ok := mul(p.C, bb)
		if !ok || (!bbOK && p.C != 0) {
			return fail(ErrOverflow, "output channels C*BlockSize*BlockSize = %d*%d*%d", p.C, b, b)
		}
		g.Depth = Dims{p.N, c, p.H / b, p.W / b}
		g.Space = p.Dims()
	}
	if _, ok := Bytes(elem, p.N, p.C, p.H, p.W); !ok {
		return fail(ErrOverflow, "%s is more than %d bytes", describe(p, elem), MaxBytes)
	}
	return g, nil
}

// MaxBytes is the largest tensor, in bytes, that the checks accept. On
// 64-bit platforms it is 2^57 - 1 (128 PiB, all that 57-bit virtual
// addresses reach), so that the kernels' arithmetic on a call's sizes (a
// row's length times its block, the reach of a tile's strides) keeps far
// from overflow; the kernel calls' checks (internal/simd) refuse what
// would overflow, and no size the shape checks accept may reach them.
// 32-bit platforms have no kernels: there every size that fits int.
const MaxBytes = math.MaxInt >> (6 * (bits.UintSize / 64))

// Bytes is the size in bytes of a tensor of non-negative dims and
// elements of elem bytes; ok is false where it is more than MaxBytes. A
// tensor with a zero dim has 0 bytes, however large its other dims.
func Bytes(elem int, dims ...int) (n int, ok bool) {
	n, ok = Count(dims...)
	if ok {
		n, ok = mul(n, elem)
	}
	return n, ok && n <= MaxBytes
}

// Count is the product of non-negative dims, which is 0 (not an overflow)
// when any dim is 0; ok is false if it does not fit in int.
func Count(dims ...int) (int, bool) {
	for _, d := range dims {
		if d == 0 {
			return 0, true
		}
	}
	n := 1
	for _, d := range dims {
		var ok bool
		if n, ok = mul(n, d); !ok {
			return 0, false
		}
	}
	return n, true
}

// mul multiplies non-negative ints, reporting overflow.
func mul(a, b int) (int, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt {
		return 0, false
	}
	return int(lo), true
}

// Overlap reports whether a and b share any byte of memory.
func Overlap[T any](a, b []T) bool {
	size := unsafe.Sizeof(*new(T))
	if len(a) == 0 || len(b) == 0 || size == 0 {
		return false
	}
	pa := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
	pb := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b))*size && pb < pa+uintptr(len(a))*size
}
