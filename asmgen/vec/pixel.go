package vec

import "fmt"

// PixelNetwork builds a chunk of an NHWC CRD period pd whose interleaved
// pixels lie whole in a 16-byte lane (b*E divides 16), for b and E powers
// of two: the unpack network of b lanes of E-byte elements (UnpackZip,
// UnpackUnzip), which moves each lane's run of a pixel as one element, with
// every interleaved register's pixels reordered between the CRD order and
// the lanes' order by one byte shuffle. That is one shuffle per register
// where the windows of PeriodZip and PeriodUnzip take one per window.
// Pixels of two lanes of 16 bytes fill a 32-byte register: see pixelLanes.
func PixelNetwork(pd Period, chunk int, unzip bool) (*Prog, error) {
	b, e := pd.B, pd.E
	if !PixelFits(pd) {
		return nil, fmt.Errorf("%v: pixels of %d bytes do not fit a lane whole", pd, b*e)
	}
	if b*e == 2*LaneBytes {
		return pixelLanes(pd, chunk, unzip)
	}
	build := UnpackZip
	if unzip {
		build = UnpackUnzip
	}
	net, err := build(b, e, chunk)
	if err != nil {
		return nil, err
	}
	// One shuffle per register, pixel by pixel within each lane.
	from, pixel := pd.pixelOrder(unzip), b*e
	mask := make([]int8, net.Width)
	for q := range mask {
		mask[q] = int8((q - q%pixel + from[q%pixel]) % LaneBytes)
	}
	p := NewProg(net.Width)
	vals := make([]int, net.NumValues())
	shuffled := map[int]int{} // the shuffled twin of each stored value
	for _, in := range net.Instrs {
		switch {
		case !unzip && in.Op == Store:
			v, ok := shuffled[vals[in.A]]
			if !ok {
				v = p.Shuffle(vals[in.A], mask)
				shuffled[vals[in.A]] = v
			}
			p.Store(v, in.Part, in.Size, in.Mem)
		case in.Op == Store:
			p.Store(vals[in.A], in.Part, in.Size, in.Mem)
		case unzip && (in.Op == Load || in.Op == LoadPair):
			vals[in.Dst] = p.Shuffle(p.apply(in, 0, 0), mask)
		default:
			vals[in.Dst] = p.apply(in, vals[in.A], vals[in.B])
		}
	}
	return p.finishPeriod(pd, chunk, unzip)
}

// pixelOrder is, for each place q of an interleaved pixel, the byte of the
// pixel it takes: from the CRD order into the lanes' order (unzip), or
// back (zip).
func (pd Period) pixelOrder(unzip bool) []int {
	from := make([]int, pd.B*pd.E)
	for j := range pd.B {
		for t := range pd.E {
			crd, lanes := pd.Map(j, t), j*pd.E+t
			if unzip {
				from[lanes] = crd
			} else {
				from[crd] = lanes
			}
		}
	}
	return from
}

// PixelFits reports whether PixelNetwork builds pd's chunks.
func PixelFits(pd Period) bool {
	pow2 := func(n int) bool { return n&(n-1) == 0 }
	return pow2(pd.B) && pow2(pd.E) && LaneBytes%(pd.B*pd.E) == 0 || pd.B == 2 && pd.E == LaneBytes
}

// pixelLanes builds a chunk of a period of b = 2 lanes of 16 bytes: each
// pixel is one 32-byte register, whose lane j is lane j's run once its
// bytes are reordered across the whole register (a lane swap, two
// shuffles and an or). A zip loads a pixel's runs as the two lanes of one
// register; an unzip stores the lanes of the reordered pixels.
func pixelLanes(pd Period, chunk int, unzip bool) (*Prog, error) {
	const width = 2 * LaneBytes
	if chunk%LaneBytes != 0 {
		return nil, fmt.Errorf("%v: chunk %d is not whole pixels", pd, chunk)
	}
	from := pd.pixelOrder(unzip)
	p := NewProg(width)
	for x := range chunk / LaneBytes {
		var v int
		if unzip {
			v = p.Load(Mem{0, x * width}, width)
		} else {
			v = p.LoadPair(Mem{0, x * LaneBytes}, Mem{1, x * LaneBytes})
		}
		v = p.reorder(v, from)
		if unzip {
			for j := range pd.B {
				p.Store(v, j, LaneBytes, Mem{j, x * LaneBytes})
			}
		} else {
			p.Store(v, 0, width, Mem{0, x * width})
		}
	}
	return p.finishPeriod(pd, chunk, unzip)
}

// reorder permutes the bytes of a 32-byte value across its lanes: place q
// takes byte from[q], from its own lane by one shuffle, from the other lane
// by a shuffle of the lanes swapped.
func (p *Prog) reorder(v int, from []int) int {
	own, other := make([]int8, len(from)), make([]int8, len(from))
	for q, f := range from {
		own[q], other[q] = -1, -1
		if f/LaneBytes == q/LaneBytes {
			own[q] = int8(f % LaneBytes)
		} else {
			other[q] = int8(f % LaneBytes)
		}
	}
	return p.Or(p.Shuffle(v, own), p.Shuffle(p.Lanes(v, v, [2]int{1, 0}), other))
}

// RunNetwork builds a chunk (bytes of each space row) of the NHWC CRD
// transpose of b = 2 with runs of C'*w = 16 or 32 bytes: a depth pixel's
// channels (c, i, j) are a zip of b*b lanes (i, j) of w-byte elements, lane
// (i, j) holding the pixel's run of C' elements, which space row i takes
// at j*C'*w. So the unpack network of b*b lanes moves whole runs, and the
// space rows are the lanes' 16-byte halves put side by side, as the lanes
// path of the runtime does one pixel per kernel row.
func RunNetwork(b, cp, w, chunk int, unzip bool) (*Prog, error) {
	run := cp * w
	pd := CRD(b, cp, w)
	if !RunFits(b, cp, w) || chunk%(b*run) != 0 || chunk/b > 2*LaneBytes {
		return nil, fmt.Errorf("%v: no run network for chunks of %d bytes", pd, chunk)
	}
	lanes, laneChunk := b*b, chunk/b
	p := NewProg(width(laneChunk))
	ilv, rows := pd.want(chunk, !unzip)
	if unzip {
		p.unpackLanes(lanes, w, laneChunk, 0)
		for i := range b {
			if err := p.storeAll(i, 0, rows[i]); err != nil {
				return nil, fmt.Errorf("%v, chunk %d: %w", pd, chunk, err)
			}
		}
		return p.finishPeriod(pd, chunk, true)
	}
	vals := make([]int, lanes)
	for l := range vals {
		i, j := l/b, l%b
		at := func(x int) Mem { return Mem{i, x*b*run + j*run} }
		switch {
		case laneChunk == run:
			vals[l] = p.Load(at(0), run)
		case run == LaneBytes && laneChunk == 2*LaneBytes:
			vals[l] = p.LoadPair(at(0), at(1))
		default:
			return nil, fmt.Errorf("%v: no load of %d-byte runs into %d bytes", pd, run, laneChunk)
		}
	}
	unpackNetwork(p, vals, w)
	if err := p.storeAll(0, 0, ilv); err != nil {
		return nil, fmt.Errorf("%v, chunk %d: %w", pd, chunk, err)
	}
	return p.finishPeriod(pd, chunk, false)
}

// RunFits reports whether RunNetwork builds the transpose of b, C' and w.
func RunFits(b, cp, w int) bool {
	run := cp * w
	return b == 2 && w&(w-1) == 0 && (run == LaneBytes || run == 2*LaneBytes)
}

// RunChunks are the chunks of RunNetwork's kernels, largest first: lanes
// of 32 and 16 bytes of whole runs.
func RunChunks(b, cp, w int) []int {
	var out []int
	for _, lane := range []int{2 * LaneBytes, LaneBytes} {
		if lane%(cp*w) == 0 {
			out = append(out, b*lane)
		}
	}
	return out
}
