package main

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
)

// Chart geometry, in SVG pixels.
const (
	barWidth    = 13
	groupGap    = 22
	plotHeight  = 340
	marginLeft  = 64
	marginRight = 16
	marginTop   = 144 // title, two lines of subtitle, the legend and the groups' ratios
	minWidth    = 980
	charWidth   = 7  // a generous average for the 11-pixel sans-serif font
	marginBelow = 52 // group labels
)

// chart draws the cases as grouped bars, one group per shape and layout and
// one bar per runner (the hand-written loop, the tiers, copy): the geometric mean of the
// group's GB/s, with a whisker from its slowest to its fastest case. Every
// bar carries its figures in a tooltip.
func (r *Report) chart(logAxis bool) []byte {
	names := append([]string{"loop"}, r.tiers()...)
	names = append(names, "copy")
	gs := groups(r.Cases)

	type bar struct{ mean, lo, hi float64 }
	bars := make([][]bar, len(gs))
	lo, hi := math.Inf(1), 0.0
	for i, g := range gs {
		for _, n := range names {
			b := bar{lo: math.Inf(1)}
			for _, c := range g.cases {
				v := c.GBps[n].Median
				b.mean += math.Log(v)
				b.lo, b.hi = min(b.lo, v), max(b.hi, v)
			}
			b.mean = math.Exp(b.mean / float64(len(g.cases)))
			bars[i] = append(bars[i], b)
			lo, hi = min(lo, b.lo), max(hi, b.hi)
		}
	}
	ax := newAxis(lo, hi, logAxis)

	groupWidth := len(names)*barWidth + groupGap
	for _, g := range gs {
		groupWidth = max(groupWidth, charWidth*len(g.shapeName())+8)
	}
	width := max(minWidth, marginLeft+len(gs)*groupWidth+marginRight)
	if len(gs) > 0 {
		groupWidth = (width - marginLeft - marginRight) / len(gs)
	}
	height := marginTop + plotHeight + marginBelow
	y := func(v float64) float64 { return marginTop + plotHeight*(1-ax.pos(v)) }

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	scale := "log scale"
	if !logAxis {
		scale = "linear scale"
	}
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="15" font-weight="bold">blockshuffle: GB/s by shape and layout, %s</text>`+"\n", marginLeft, scale)
	fmt.Fprintf(&b, `<text x="%d" y="38" fill="#444">Bar: geometric mean over both ops, both orders and widths of %s, one goroutine; whisker: slowest to fastest case.</text>`+"\n",
		marginLeft, widthList(r.Cases))
	fmt.Fprintf(&b, `<text x="%d" y="54" fill="#444">Above each group: the tier in use, %s, as a fraction of copy() and as a multiple of the hand-written Go loop (geometric means).</text>`+"\n",
		marginLeft, r.Tier)
	fmt.Fprintf(&b, `<text x="%d" y="70" fill="#444">%s, %s/%s, %s, %s.</text>`+"\n",
		marginLeft, html.EscapeString(r.CPU), r.GOOS, r.GOARCH, r.Go, r.Date.Format("2006-01-02"))

	// Legend.
	x := marginLeft
	for i, n := range names {
		fmt.Fprintf(&b, `<rect x="%d" y="82" width="12" height="12" fill="%s"/><text x="%d" y="92">%s</text>`+"\n", x, color(n, i), x+16, legendName(n, r.Tier))
		x += 16 + charWidth*len(legendName(n, r.Tier)) + 14
	}

	// Grid and axis.
	for _, t := range ax.ticks() {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end" fill="#444">%s</text>`+"\n",
			marginLeft, width-marginRight, y(t), y(t), marginLeft-6, y(t)+4, strconv.FormatFloat(t, 'g', -1, 64))
	}
	fmt.Fprintf(&b, `<text transform="translate(16 %d) rotate(-90)" text-anchor="middle" fill="#444">GB/s</text>`+"\n", marginTop+plotHeight/2)

	// Bars.
	for i, g := range gs {
		gx := marginLeft + groupGap/2 + i*groupWidth
		for j, n := range names {
			bb := bars[i][j]
			bx := float64(gx + j*barWidth)
			top := y(bb.mean)
			fmt.Fprintf(&b, `<rect x="%.0f" y="%.1f" width="%d" height="%.1f" fill="%s"><title>%s, %s: %s GB/s (geometric mean), %s to %s</title></rect>`+"\n",
				bx, top, barWidth-2, y(ax.lo)-top, color(n, j), g.name, n, valueLabel(bb.mean), valueLabel(bb.lo), valueLabel(bb.hi))
			cx := bx + float64(barWidth-2)/2
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#222"/>`+"\n", cx, cx, y(bb.lo), y(bb.hi))
		}
		cx := gx + len(names)*barWidth/2
		inUse := slices.Index(names, r.Tier)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" font-size="10" fill="#444">%.2f of copy</text><text x="%d" y="%d" text-anchor="middle" font-size="10" fill="#444">%.3g× loop</text>`+"\n",
			cx, marginTop-18, bars[i][inUse].mean/bars[i][len(names)-1].mean, cx, marginTop-6, bars[i][inUse].mean/bars[i][0].mean)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text><text x="%d" y="%d" text-anchor="middle" font-weight="bold">%s</text>`+"\n",
			cx, marginTop+plotHeight+18, g.shapeName(), cx, marginTop+plotHeight+33, g.cases[0].Layout)
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#222"/>`+"\n", marginLeft, width-marginRight, marginTop+plotHeight, marginTop+plotHeight)
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// color gives the hand-written loop, generic and copy fixed colours and the SIMD
// tiers blues and greens in the order measured.
func color(name string, i int) string {
	switch name {
	case "loop":
		return "#e15759"
	case "generic":
		return "#b0a8a4"
	case "copy":
		return "#3a3a3a"
	}
	return []string{"#4e79a7", "#76b7b2", "#59a14f", "#8cd17d"}[(i-2)%4]
}

func legendName(n, inUse string) string {
	switch n {
	case "loop":
		return "hand-written Go loop"
	case "generic":
		return "generic (pure Go)"
	case "copy":
		return "copy()"
	case inUse:
		return n + " (in use)"
	}
	return n
}

// widthList names the widths the cases cover, such as "1, 2, 4, 8 bytes".
func widthList(cases []Case) string {
	var ws []int
	for _, c := range cases {
		if !slices.Contains(ws, c.Width) {
			ws = append(ws, c.Width)
		}
	}
	slices.Sort(ws)
	s := ""
	for i, w := range ws {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(w)
	}
	return s + " bytes"
}

// axis maps GB/s to 0..1 of the plot's height.
type axis struct {
	lo, hi float64
	log    bool
}

// newAxis covers lo..hi: from tick to tick (1, 2 and 5 of every decade)
// on a log axis, from 0 to a round number on a linear one.
func newAxis(lo, hi float64, log bool) axis {
	if !log {
		return axis{0, niceStep(hi) * math.Ceil(hi/niceStep(hi)), false}
	}
	a := axis{math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi))), true}
	ticks := a.ticks()
	for _, t := range ticks {
		if t <= lo {
			a.lo = t
		}
	}
	for _, t := range slices.Backward(ticks) {
		if t >= hi {
			a.hi = t
		}
	}
	return a
}

func (a axis) pos(v float64) float64 {
	if a.log {
		return math.Log(v/a.lo) / math.Log(a.hi/a.lo)
	}
	return (v - a.lo) / (a.hi - a.lo)
}

// ticks are 1, 2 and 5 of every decade on a log axis, and about six round
// steps on a linear one.
func (a axis) ticks() []float64 {
	var out []float64
	if a.log {
		for d := math.Pow(10, math.Floor(math.Log10(a.lo))); d <= a.hi; d *= 10 {
			for _, m := range []float64{1, 2, 5} {
				if t := d * m; t >= a.lo*0.999 && t <= a.hi*1.001 {
					out = append(out, t)
				}
			}
		}
		return out
	}
	step := niceStep(a.hi)
	for v := 0.0; v <= a.hi*1.001; v += step {
		out = append(out, v)
	}
	return out
}

// niceStep is 1, 2 or 5 times a power of ten, about a sixth of hi.
func niceStep(hi float64) float64 {
	raw := hi / 6
	d := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5} {
		if d*m >= raw {
			return d * m
		}
	}
	return 10 * d
}

// valueLabel prints GB/s to three significant figures.
func valueLabel(v float64) string { return fmt.Sprintf("%.*f", digits(v), v) }
