package shape

// ONNX builds the Params of an ONNX DepthToSpace or SpaceToDepth node from
// its input dims and attributes, validating them as Check does.
func ONNX(op Op, dims []int64, blocksize int64, mode string) (Params, error) {
	fail := func(err error, format string, args ...any) (Params, error) {
		return Params{}, invalid(op, err, format, args...)
	}
	if op > SpaceToDepth {
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
	if mode != "" {
		o, err := ParseOrder(mode)
		if err != nil {
			return fail(ErrOrder, "mode %q (want DCR or CRD)", mode)
		}
		if op == SpaceToDepth && o != DCR {
			return fail(ErrOrder, "mode %q: ONNX SpaceToDepth has no mode, and is DCR", mode)
		}
		p.Order = o
	}
	if _, err := Check(op, p, 1); err != nil {
		return Params{}, err
	}
	return p, nil
}
