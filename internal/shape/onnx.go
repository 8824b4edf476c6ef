package shape

// ONNX builds the Params of an ONNX DepthToSpace or SpaceToDepth node from
// its input dims and attributes, validating them as Check does. Modes are
// exactly ONNX's: "DCR" and "CRD", case-sensitive, or "" for an absent
// attribute; SpaceToDepth has one from opset 28.
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
	switch mode {
	case "", "DCR": // absent: ONNX's default
	case "CRD":
		p.Order = CRD
	default:
		return fail(ErrOrder, `mode %q (ONNX has "DCR", the default, and "CRD")`, mode)
	}
	if _, err := Check(op, p, 1); err != nil {
		return Params{}, err
	}
	return p, nil
}
