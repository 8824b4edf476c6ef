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
	// Most tilings Nest tries fail: a vector of more windows than a
	// kernel takes ends the try, where no bounds may move windows
	// together (planning was most of some tests' time).
	most := v
	if lo == -unbounded && hi == unbounded {
		most = w.MaxGroups * w.PerGroup
	}
	groups := 1
	for s := range steps {
		ws := cover(src[start(s, v, len(src)):][:v], w.Window, down, most)
		if ws == nil {
			return Prog{}, false
		}
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
		p.Origin = min(p.Origin, ws[0])
	}
	n := groups * w.PerGroup
	p.Idx = make([]byte, steps*groups*v)
	for i := range p.Idx {
		p.Idx[i] = w.None
	}
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
		idx := p.Idx[s*groups*v:]
		for l, a := range src[at : at+v] {
			k := 0 // the window that holds a
			for a < ws[k] || a >= ws[k]+w.Window {
				k++
			}
			idx[k/w.PerGroup*v+l] = w.Used | byte(k%w.PerGroup*w.Window+a-ws[k])
		}
	}
	return p, true
}

// start is where vector s of a tile of n bytes starts.
func start(s, v, n int) int { return min(s*v, n-v) }

// cover returns the starts of the fewest windows of size bytes that hold
// every address of a, from the lowest address up, or with down set from
// the highest down, in increasing order, or nil if they are more than
// most.
func cover(a []int, size int, down bool, most int) []int {
	u := a // the sources of a vector rise, more often than not
	if !slices.IsSorted(u) {
		u = slices.Clone(a)
		slices.Sort(u)
	}
	var out []int
	for i := 0; i < len(u) && len(out) <= most; {
		o := u[i]
		if down {
			o = u[len(u)-1-i] + 1 - size
		}
		out = append(out, o)
		for i < len(u) && (!down && u[i] < o+size || down && u[len(u)-1-i] >= o) {
			i++
		}
	}
	if len(out) > most {
		return nil
	}
	if down {
		slices.Reverse(out)
	}
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
