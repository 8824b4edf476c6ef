package blockshuffle

import "github.com/blockshuffle/blockshuffle/internal/shape"

// ONNXParams turns what an ONNX DepthToSpace or SpaceToDepth node holds
// into Params: dims, the input tensor's shape (4-D, NCHW); blocksize, the
// attribute; mode, the attribute "DCR" or "CRD", or "" when the node has
// none, which means ONNX's default, DCR. Both ops read mode as ONNX defines
// it: DepthToSpace has had it since opset 11, SpaceToDepth since opset 28
// (a node of an older opset has none, so pass ""). Modes are matched
// exactly, case included, as ONNX does; ParseOrder is the lenient reader
// of names for people.
//
// It checks what the op will check, and every int64 against the range of
// int, so that an error names the attribute or dim at fault and wraps
// ErrRank, ErrNegativeDim, ErrOverflow, ErrBlockSize, ErrOrder,
// ErrNotDivisible or ErrOp. The output tensor's dims are
// p.DepthToSpaceDims() or p.SpaceToDepthDims().
func ONNXParams(op Op, dims []int64, blocksize int64, mode string) (Params, error) {
	fail := func(err error, format string, args ...any) (Params, error) {
		return Params{}, shape.Invalid(op.String(), err, format, args...)
	}
	if op > OpSpaceToDepth {
		return fail(ErrOp, "want OpDepthToSpace or OpSpaceToDepth")
	}
	if len(dims) != 4 {
		return fail(ErrRank, "input dims %v, want [N C H W]", dims)
	}
	var d [4]int
	for i, v := range dims {
		switch {
		case v < 0:
			return fail(ErrNegativeDim, "dim %d of %v is %d", i, dims, v)
		case int64(int(v)) != v:
			return fail(ErrOverflow, "dim %d of %v does not fit in int", i, dims)
		}
		d[i] = int(v)
	}
	if int64(int(blocksize)) != blocksize {
		return fail(ErrOverflow, "blocksize = %d does not fit in int", blocksize)
	}
	p := Params{N: d[0], C: d[1], H: d[2], W: d[3], BlockSize: int(blocksize)}
	switch mode {
	case "", "DCR": // absent: ONNX's default
	case "CRD":
		p.Order = CRD
	default:
		return fail(ErrOrder, `mode %q (ONNX has "DCR", the default, and "CRD")`, mode)
	}
	if _, err := p.outputDims(op); err != nil {
		return Params{}, err
	}
	return p, nil
}
