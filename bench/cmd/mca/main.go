// Command mca estimates, with llvm-mca, the steady-state speed of each
// kernel's inner loop on several CPU models, next to a plain vector copy
// loop: bytes written per cycle, and the ratio to the copy loop (and, for
// AVX-512, to the AVX2 kernel doing the same). It is how the speed of
// kernels for CPUs this machine lacks is judged, and what explains kernels
// that miss their targets here.
//
//	go run ./bench/cmd/mca                              # AVX2: the default kernels and CPUs
//	go run ./bench/cmd/mca -isa avx512vbmi              # AVX-512 on Ice Lake, Sapphire Rapids, Zen 4, against AVX2
//	go run ./bench/cmd/mca -isa neon                    # NEON on Neoverse N1, V1, V2 and Apple M1
//	go run ./bench/cmd/mca -kernels 'zip2x' -cpus znver3,skylake
//	go run ./bench/cmd/mca -kernels zip2x1AVX2 -loop 2   # the loop of the third chunk path
//	go run ./bench/cmd/mca -isa neon -kernels '^zip3x3NEON$' -cpus neoverse-v1 -detail
//
// It needs llvm-objdump-19 and llvm-mca-19 (Debian package llvm-19). LLVM
// 16 has no Neoverse V1 model of its own (it runs V1 code on the N2 model,
// with two vector pipes instead of four) and none for V2, and its N1 model
// puts a plain copy at 8 bytes per cycle, half the core's store bandwidth;
// -mca llvm-mca-16 still gives its figures. Loops are taken from the test
// binary of package kernels, built for the ISA's architecture: loop i is
// the i-th backward jump of the function (conditional ones on amd64); for
// the AVX2 and NEON zip kernels loop 0 is the 32-byte chunk path, loop 1
// the 16-byte one, and so on, and the AVX-512 kernels have one chunk loop.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

func main() {
	isa := flag.String("isa", "avx2", "avx2, avx512bw, avx512vbmi (amd64) or neon (arm64)")
	kernels := flag.String("kernels", "", "regexp of kernel names (default: a representative set)")
	cpus := flag.String("cpus", "", "llvm-mca -mcpu values, comma-separated (default: per ISA)")
	loop := flag.Int("loop", 0, "which backward loop of each function")
	mca := flag.String("mca", "llvm-mca-19", "llvm-mca binary")
	detail := flag.Bool("detail", false, "print each loop and llvm-mca's full report on it (resource pressure per port) instead of the table")
	flag.Parse()
	t, ok := targets[strings.ToLower(*isa)]
	if !ok {
		check(fmt.Errorf("unknown -isa %q", *isa))
	}
	if *kernels == "" {
		*kernels = fmt.Sprintf(`^(zip|unzip)(2|3|4|8)x(1|4|16)%[1]s$|^(zip|unzip)5x1%[1]s$|^t(zip|unzip)(2x4x1|3x3x1)%[1]s$|^(zip|unzip)2x6%[1]s$|^copyRuns%[1]s$`, t.isa)
	}
	if *cpus == "" {
		*cpus = t.cpus
	}

	dir, err := os.MkdirTemp("", "mca")
	check(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "kernels.test")
	build := exec.Command("go", "test", "-c", "-o", bin, "./kernels")
	build.Env = append(os.Environ(), "GOARCH="+t.arch)
	if out, err := build.CombinedOutput(); err != nil {
		check(fmt.Errorf("building the kernels: %v\n%s", err, out))
	}
	re := regexp.MustCompile(*kernels)

	var names []string
	for _, line := range strings.Split(run("go", "tool", "nm", bin), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[1] == "T" && strings.HasPrefix(f[2], "github.com/blockshuffle/blockshuffle/kernels.") {
			// The kernels are ABI0 functions, which only their entry words name.
			name := strings.TrimSuffix(strings.TrimPrefix(f[2], "github.com/blockshuffle/blockshuffle/kernels."), ".abi0")
			if !strings.Contains(name, ".") && re.MatchString(name) {
				names = append(names, name)
			}
		}
	}
	cpuList := strings.Split(*cpus, ",")
	base := map[string]float64{}
	for _, c := range cpuList {
		for _, body := range t.copyLoops {
			base[c] = max(base[c], 64/loopText{body: body, bytes: 64}.cycles(*mca, t.triple, c))
		}
	}
	cols := "B/cycle | vs copy |"
	if t.than != "" {
		cols += " vs " + t.than + " |"
	}
	fmt.Printf("| kernel | bytes/iter |")
	for _, c := range cpuList {
		fmt.Printf(" %s %s", c, cols)
	}
	fmt.Printf("\n|---|---:|")
	for range cpuList {
		fmt.Print(strings.Repeat("---:|", strings.Count(cols, "|")))
	}
	fmt.Println()
	// bpc is the bytes per cycle of function name's loop on each CPU.
	bpc := func(name string) (map[string]float64, loopText, error) {
		l, err := t.syntax.extract(bin, name, *loop)
		if err != nil {
			return nil, l, err
		}
		out := map[string]float64{}
		for _, c := range cpuList {
			out[c] = float64(l.bytes) / l.cycles(*mca, t.triple, c)
		}
		return out, l, nil
	}
	fmt.Printf("| best copy loop | 64 |")
	for _, c := range cpuList {
		fmt.Printf(" %.1f | 1.00 |", base[c])
		if t.than != "" {
			fmt.Print(" |")
		}
	}
	fmt.Println()
	for _, name := range names {
		if *detail {
			l, err := t.syntax.extract(bin, name, *loop)
			if err != nil {
				fmt.Fprintf(os.Stderr, "mca: %s: %v\n", name, err)
				continue
			}
			for _, c := range cpuList {
				fmt.Printf("\n## %s on %s\n\n%s", name, c, l.report(*mca, t.triple, c))
			}
			continue
		}
		got, l, err := bpc(name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "mca: %s: %v\n", name, err)
			continue
		}
		var than map[string]float64
		if t.than != "" {
			if than, _, err = bpc(strings.Replace(name, t.isa, t.than, 1)); err != nil {
				fmt.Fprintf(os.Stderr, "mca: %s has no %s counterpart: %v\n", name, t.than, err)
			}
		}
		fmt.Printf("| %s | %d |", name, l.bytes)
		for _, c := range cpuList {
			fmt.Printf(" %.1f | %.2f |", got[c], got[c]/base[c])
			switch {
			case t.than == "":
			case than == nil:
				fmt.Print(" |")
			default:
				fmt.Printf(" %.2f |", got[c]/than[c])
			}
		}
		fmt.Println()
	}
}

// target is what differs between ISAs.
type target struct {
	isa, arch, triple, cpus string
	than                    string   // an ISA whose kernel of the same name to compare with
	copyLoops               []string // plain vector copy loops moving 64 bytes per iteration; the fastest is the baseline
	syntax                  syntax
}

var (
	ymmCopy = `vmovdqu ymm0, ymmword ptr [rsi + rax]
vmovdqu ymm1, ymmword ptr [rsi + rax + 32]
vmovdqu ymmword ptr [rdi + rax], ymm0
vmovdqu ymmword ptr [rdi + rax + 32], ymm1
add rax, 64
cmp rax, rdx
jl top
`
	zmmCopy = `vmovdqu64 zmm0, zmmword ptr [rsi + rax]
vmovdqu64 zmmword ptr [rdi + rax], zmm0
add rax, 64
cmp rax, rdx
jl top
`
	avx512 = target{
		isa: "AVX512VBMI", than: "AVX2", arch: "amd64", triple: "x86_64", cpus: "icelake-server,sapphirerapids,znver4",
		copyLoops: []string{ymmCopy, zmmCopy}, syntax: amd64Syntax,
	}
)

var targets = map[string]target{
	"avx2": {
		isa: "AVX2", arch: "amd64", triple: "x86_64", cpus: "znver3,haswell,skylake,icelake-server",
		copyLoops: []string{ymmCopy}, syntax: amd64Syntax,
	},
	"avx512vbmi": avx512,
	"avx512bw": func() target {
		t := avx512
		t.isa, t.cpus = "AVX512BW", "skylake-avx512,icelake-server,znver4"
		return t
	}(),
	"neon": {
		isa: "NEON", arch: "arm64", triple: "aarch64", cpus: "neoverse-n1,neoverse-v1,neoverse-v2,apple-m1",
		copyLoops: []string{`ldp q0, q1, [x1], #32
stp q0, q1, [x0], #32
ldp q2, q3, [x1], #32
stp q2, q3, [x0], #32
subs x2, x2, #64
b.ne top
`, `ldp q0, q1, [x1]
ldp q2, q3, [x1, #32]
stp q0, q1, [x0]
stp q2, q3, [x0, #32]
add x1, x1, #64
add x0, x0, #64
subs x2, x2, #64
b.ne top
`, `ld1 { v0.16b, v1.16b, v2.16b, v3.16b }, [x1], #64
st1 { v0.16b, v1.16b, v2.16b, v3.16b }, [x0], #64
subs x2, x2, #64
b.ne top
`},
		syntax: arm64Syntax,
	},
}

// loopText is one loop body in Intel syntax, ending in a jump to top, and
// the bytes its stores write per iteration.
type loopText struct {
	body  string
	bytes int
}

// report is llvm-mca's output for the loop on cpu.
func (l loopText) report(mca, triple, cpu string) string {
	src := "top:\n" + l.body
	if triple == "x86_64" {
		src = ".intel_syntax noprefix\n" + src
	}
	cmd := exec.Command(mca, "-mtriple="+triple, "-mcpu="+cpu, "-iterations=200")
	cmd.Stdin = strings.NewReader(src)
	out, err := cmd.CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mca: %s: %v\n%s\n%s", cpu, err, out, src)
		os.Exit(1)
	}
	return string(out)
}

// cycles is llvm-mca's estimate of cycles per iteration on cpu.
func (l loopText) cycles(mca, triple, cpu string) float64 {
	var total, iters float64
	for _, line := range strings.Split(l.report(mca, triple, cpu), "\n") {
		if v, ok := strings.CutPrefix(line, "Total Cycles:"); ok {
			total, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
		if v, ok := strings.CutPrefix(line, "Iterations:"); ok {
			iters, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return total / iters
}

// syntax is what loop extraction needs to know of an architecture's
// disassembly.
type syntax struct {
	disassemble func(bin, symbol string) []string // the command line
	jump        *regexp.Regexp                    // a branch: mnemonic, then target address
	backEdge    func(mnemonic string) bool        // whether a backward branch of this kind closes a loop
	closing     func(mnemonic string) string      // the branch that ends the loop text, to the label top
	stores      func(text string) int             // bytes an instruction stores
}

var (
	insnRe = regexp.MustCompile(`^\s*([0-9a-f]+):\s+(.*)$`)

	amd64Syntax = syntax{
		disassemble: func(bin, symbol string) []string {
			return []string{"objdump", "-d", "-M", "intel", "--no-show-raw-insn", "--disassemble=" + symbol, bin}
		},
		jump:     regexp.MustCompile(`^(j\w+)\s+([0-9a-f]+)`),
		backEdge: func(m string) bool { return m != "jmp" }, // conditional jumps only
		closing:  func(m string) string { return m + " top" },
		stores: func(text string) int {
			// A masked store counts whole: the partial last register of an
			// AVX-512 period kernel adds a few bytes too many.
			if s := x86StoreRe.FindStringSubmatch(text); s != nil {
				return map[string]int{"zmmword": 64, "ymmword": 32, "xmmword": 16, "qword": 8, "dword": 4}[strings.ToLower(s[2])]
			}
			return 0
		},
	}
	x86StoreRe = regexp.MustCompile(`(?i)^(vmovdqu|vmovdqu8|vmovdqu64|vmovntdq|vmovq|vmovd|vextracti128|vmovhps|vpextrd)\s+(zmmword|ymmword|xmmword|qword|dword) ptr \[`)

	// On arm64 a loop's back edge may be an unconditional branch to its test.
	arm64Syntax = syntax{
		disassemble: func(bin, symbol string) []string {
			return []string{"llvm-objdump-19", "-d", "--no-show-raw-insn", "--disassemble-symbols=" + symbol, bin}
		},
		jump:     regexp.MustCompile(`^(b|b\.\w+|cbz|cbnz|tbz|tbnz)\s+(?:\w+,\s*)*0x([0-9a-f]+)`),
		backEdge: func(string) bool { return true },
		closing:  func(string) string { return "b top" },
		stores:   storeBytes,
	}
)

// extract disassembles function name and returns its loop-th backward
// loop: the instructions from the branch's target to the branch, with the
// loop's exit tests dropped (llvm-mca assumes them not taken) and the
// branch rewritten to top.
func (sx syntax) extract(bin, name string, loop int) (loopText, error) {
	type insn struct {
		addr uint64
		text string
	}
	var insns []insn
	cmd := sx.disassemble(bin, "github.com/blockshuffle/blockshuffle/kernels."+name+".abi0")
	for _, line := range strings.Split(run(cmd[0], cmd[1:]...), "\n") {
		m := insnRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		addr, _ := strconv.ParseUint(m[1], 16, 64)
		text := m[2]
		if i := strings.Index(text, "<"); i >= 0 {
			text = text[:i]
		}
		insns = append(insns, insn{addr, strings.Join(strings.Fields(text), " ")})
	}
	seen := 0
	for i, in := range insns {
		m := sx.jump.FindStringSubmatch(in.text)
		if m == nil || !sx.backEdge(m[1]) {
			continue
		}
		target, _ := strconv.ParseUint(m[2], 16, 64)
		if target >= in.addr {
			continue
		}
		if seen++; seen-1 != loop {
			continue
		}
		var body bytes.Buffer
		l := loopText{}
		for _, b := range insns[:i] {
			if b.addr < target || sx.jump.MatchString(b.text) {
				continue
			}
			l.bytes += sx.stores(b.text)
			body.WriteString(b.text + "\n")
		}
		body.WriteString(sx.closing(m[1]) + "\n")
		l.body = body.String()
		if l.bytes == 0 {
			return l, fmt.Errorf("loop %d stores nothing", loop)
		}
		return l, nil
	}
	return loopText{}, fmt.Errorf("no loop %d", loop)
}

func run(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mca: %s %s: %v\n", name, strings.Join(args, " "), err)
		os.Exit(1)
	}
	return string(out)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "mca:", err)
		os.Exit(1)
	}
}

var (
	a64ListRe  = regexp.MustCompile(`^st[1-4]\s+\{([^}]*)\}(\[\d+\])?`)
	a64ScalRe  = regexp.MustCompile(`^(str|stp)\s+([qds])\d+`)
	a64LaneArr = map[string]int{"b": 1, "h": 2, "s": 4, "d": 8}
)

// storeBytes is how many bytes an arm64 store instruction writes.
func storeBytes(text string) int {
	if m := a64ListRe.FindStringSubmatch(text); m != nil {
		regs := strings.Split(m[1], ",")
		if m[2] != "" { // one lane of each register
			arr := strings.TrimSpace(regs[0])
			return len(regs) * a64LaneArr[arr[strings.LastIndex(arr, ".")+1:]]
		}
		arr := strings.TrimSpace(regs[0])
		arr = arr[strings.LastIndex(arr, ".")+1:]
		if arr == "16b" || arr == "8h" || arr == "4s" || arr == "2d" {
			return 16 * len(regs)
		}
		return 8 * len(regs)
	}
	if m := a64ScalRe.FindStringSubmatch(text); m != nil {
		n := map[string]int{"q": 16, "d": 8, "s": 4}[m[2]]
		if m[1] == "stp" {
			n *= 2
		}
		return n
	}
	return 0
}
