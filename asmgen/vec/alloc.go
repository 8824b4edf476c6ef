package vec

import "fmt"

// Alloc describes the registers of a back end for Allocate.
type Alloc struct {
	// Regs is how many vector registers there are, numbered from 0;
	// Reserved ones are never handed out (hoisted constants, say). The
	// lowest free register is taken first.
	Regs     int
	Reserved map[int]bool
	// Temps is how many scratch registers an instruction writes and reads
	// before it writes its result, which may then take one of them.
	Temps func(Instr) int
	// Held is how many scratch registers an instruction needs while it
	// writes its result, such as the index of a permute.
	Held func(Instr) int
	// Reuse, if set, returns the value whose register an instruction's
	// result overwrites (a destructive instruction whose operand dies
	// there), or -1 for a fresh register. dies tells which values the
	// instruction reads for the last time.
	Reuse func(in Instr, dies func(v int) bool) int
}

// Regs is a register allocation: the register of each value, and for
// each instruction its scratch registers (its Temps, then its Held ones)
// and the value whose register its result took over (-1 for none).
type Regs struct {
	Of      []int
	Scratch [][]int
	Reused  []int
}

// Allocate assigns registers to the values of a straight-line program by a
// linear scan: a value's register is freed after its last use, so no more
// registers are needed than values are live at once (see MaxLive). It
// panics if the registers run out, which the back ends rule out with
// MaxLive before they lower a program.
func (p *Prog) Allocate(a Alloc) Regs {
	last := make([]int, p.NumValues())
	for i, in := range p.Instrs {
		for _, v := range in.Uses() {
			last[v] = i
		}
	}
	var pool regPool
	for r := a.Regs - 1; r >= 0; r-- {
		if !a.Reserved[r] {
			pool.free = append(pool.free, r)
		}
	}
	count := func(f func(Instr) int, in Instr) int {
		if f == nil {
			return 0
		}
		return f(in)
	}
	out := Regs{Of: make([]int, p.NumValues()), Scratch: make([][]int, len(p.Instrs)), Reused: make([]int, len(p.Instrs))}
	for i, in := range p.Instrs {
		dies := func(v int) bool { return last[v] == i }
		reuse := -1
		if a.Reuse != nil {
			reuse = a.Reuse(in, dies)
		}
		var scratch []int
		for range count(a.Temps, in) {
			scratch = append(scratch, pool.take())
		}
		for _, r := range scratch { // read before the result is written
			pool.release(r)
		}
		temps := len(scratch)
		for range count(a.Held, in) {
			scratch = append(scratch, pool.take())
		}
		for k, v := range in.Uses() {
			// A value read twice is freed once; a reused one lives on
			// as the result.
			if dies(v) && (k == 0 || v != in.A) && v != reuse {
				pool.release(out.Of[v])
			}
		}
		switch {
		case in.Op == Store:
		case reuse >= 0:
			out.Of[in.Dst] = out.Of[reuse]
		default:
			out.Of[in.Dst] = pool.take()
		}
		for _, r := range scratch[temps:] {
			pool.release(r)
		}
		out.Scratch[i], out.Reused[i] = scratch, reuse
	}
	return out
}

// regPool hands out registers to a linear scan, and checks that it never
// hands one out twice or takes one back twice.
type regPool struct {
	free []int
	busy map[int]bool
}

func (p *regPool) take() int {
	if len(p.free) == 0 {
		panic("vec: out of registers")
	}
	r := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	if p.busy == nil {
		p.busy = map[int]bool{}
	}
	if p.busy[r] {
		panic(fmt.Sprintf("vec: register %d handed out twice", r))
	}
	p.busy[r] = true
	return r
}

func (p *regPool) release(r int) {
	if !p.busy[r] {
		panic(fmt.Sprintf("vec: register %d freed twice", r))
	}
	p.busy[r] = false
	p.free = append(p.free, r)
}
