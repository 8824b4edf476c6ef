package gather

import (
	"math"
	"slices"

	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// program builds the program of a tile for kernels of windows w: src[t] is
// the source byte, relative to the tile's base, of the tile's byte t. The
// tile's vectors lie w.Vector bytes apart, the last one ending at the
// tile's end (overlapping the one before it where the tile is not a whole
// number of vectors). Each vector's windows cover the bytes it needs,
// placed upward from the lowest one, or with down set from the highest,
// then moved where needed to lie between lo and hi (relative to the tile's
// base, hi - lo >= w.Window): still over the bytes they hold, as these lie
// between lo and hi too. It reports false if a vector needs more than
// w.MaxGroups groups, or a window lies further from the tile's first
// than the kernels' int32 offsets hold.
func program(w isa.Windows, src []int, down bool, lo, hi int) (Prog, bool) {
	v := w.Vector
	steps := (len(src) + v - 1) / v
	wins := make([][]int, steps)
	groups := 1
	for s := range steps {
		ws := cover(src[start(s, v, len(src)):][:v], w.Window, down)
		for i, o := range ws {
			ws[i] = min(max(o, lo), hi-w.Window)
		}
		wins[s] = slices.Compact(ws)
		groups = max(groups, (len(wins[s])+w.PerGroup-1)/w.PerGroup)
	}
	if groups > w.MaxGroups {
		return Prog{}, false
	}
	p := Prog{Steps: steps, Groups: groups, Tile: len(src), Origin: wins[0][0]}
	for _, ws := range wins {
		p.Origin = min(p.Origin, slices.Min(ws))
	}
	n := groups * w.PerGroup
	for s, ws := range wins {
		at := start(s, v, len(src))
		p.Offs = append(p.Offs, int32(at))
		for k := range n {
			o := ws[min(k, len(ws)-1)]               // unused windows repeat the last one
			if o-p.Origin > math.MaxInt32-w.Window { // the kernels' offsets are int32
				return Prog{}, false
			}
			p.Offs = append(p.Offs, int32(o-p.Origin))
			p.Span = max(p.Span, o-p.Origin+w.Window)
		}
		idx := make([]byte, groups*v)
		for i := range idx {
			idx[i] = w.None
		}
		for l, a := range src[at : at+v] {
			k := slices.IndexFunc(ws, func(o int) bool { return o <= a && a < o+w.Window })
			idx[k/w.PerGroup*v+l] = w.Used | byte(k%w.PerGroup*w.Window+a-ws[k])
		}
		p.Idx = append(p.Idx, idx...)
	}
	return p, true
}

// start is where vector s of a tile of n bytes starts.
func start(s, v, n int) int { return min(s*v, n-v) }

// cover returns the starts of the fewest windows of size bytes that hold
// every address of a, from the lowest address up, or with down set from
// the highest down, in increasing order.
func cover(a []int, size int, down bool) []int {
	u := slices.Clone(a)
	slices.Sort(u)
	u = slices.Compact(u)
	var out []int
	if !down {
		for i := 0; i < len(u); {
			o := u[i]
			out = append(out, o)
			for i < len(u) && u[i] < o+size {
				i++
			}
		}
		return out
	}
	for i := len(u) - 1; i >= 0; {
		o := u[i] + 1 - size
		out = append(out, o)
		for i >= 0 && u[i] >= o {
			i--
		}
	}
	slices.Reverse(out)
	return out
}

// Bytes returns the source byte, relative to the tile's base plus Origin,
// of byte l of vector s, for kernels of windows w: the program read back,
// as the kernels read it.
func (p *Prog) Bytes(w isa.Windows, s, l int) int {
	stride := 1 + p.Groups*w.PerGroup
	for g := range p.Groups {
		x := p.Idx[(s*p.Groups+g)*w.Vector+l]
		if x == w.None {
			continue
		}
		x &^= w.Used
		k := g*w.PerGroup + int(x)/w.Window
		return int(p.Offs[s*stride+1+k]) + int(x)%w.Window
	}
	panic("gather: a byte no group supplies")
}
