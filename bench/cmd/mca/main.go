// Command mca estimates, with llvm-mca, the steady-state speed of each
// kernel's inner loop on several CPU models, next to a plain vector copy
// loop: bytes written per cycle, and the ratio to the copy loop. It is how
// the speed of kernels for CPUs this machine lacks is judged, and what
// explains kernels that miss their targets here.
//
//	go run ./bench/cmd/mca                              # the default kernels and CPUs
//	go run ./bench/cmd/mca -kernels 'zip2x' -cpus znver3,skylake
//	go run ./bench/cmd/mca -kernels zip2x1AVX2 -loop 2   # the loop of the third chunk path
//
// It needs objdump and llvm-mca-16 (Debian packages binutils and llvm-16).
// Loops are taken from the test binary of package kernels: loop i is the
// i-th backward conditional jump of the function, and for the zip kernels
// loop 0 is the 32-byte chunk path, loop 1 the 16-byte one, and so on.
package main

import (
	"bufio"
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
	kernels := flag.String("kernels", `^(zip|unzip)(2|3|4|8)x(1|4)AVX2$|^tunzip3x3x1AVX2$|^copyRunsAVX2$`, "regexp of kernel names")
	cpus := flag.String("cpus", "znver3,haswell,skylake,icelake-server", "llvm-mca -mcpu values, comma-separated")
	loop := flag.Int("loop", 0, "which backward loop of each function")
	mca := flag.String("mca", "llvm-mca-16", "llvm-mca binary")
	flag.Parse()

	dir, err := os.MkdirTemp("", "mca")
	check(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "kernels.test")
	run("go", "test", "-c", "-o", bin, "./kernels")
	re := regexp.MustCompile(*kernels)

	var names []string
	for _, line := range strings.Split(run("go", "tool", "nm", bin), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[1] == "T" && strings.HasPrefix(f[2], "github.com/blockshuffle/blockshuffle/kernels.") {
			name := strings.TrimPrefix(f[2], "github.com/blockshuffle/blockshuffle/kernels.")
			if !strings.Contains(name, ".") && re.MatchString(name) {
				names = append(names, name)
			}
		}
	}
	cpuList := strings.Split(*cpus, ",")
	copyLoop := loopText{body: copyBody, bytes: 64}
	base := map[string]float64{}
	fmt.Printf("| kernel | bytes/iter |")
	for _, c := range cpuList {
		fmt.Printf(" %s B/cycle | vs copy |", c)
	}
	fmt.Printf("\n|---|---:|")
	for range cpuList {
		fmt.Printf("---:|---:|")
	}
	fmt.Println()
	row := func(name string, l loopText) {
		fmt.Printf("| %s | %d |", name, l.bytes)
		for _, c := range cpuList {
			cyc := l.cycles(*mca, c)
			bpc := float64(l.bytes) / cyc
			if name == "copy loop" {
				base[c] = bpc
			}
			fmt.Printf(" %.1f | %.2f |", bpc, bpc/base[c])
		}
		fmt.Println()
	}
	row("copy loop", copyLoop)
	for _, name := range names {
		l, err := extract(bin, name, *loop)
		if err != nil {
			fmt.Fprintf(os.Stderr, "mca: %s: %v\n", name, err)
			continue
		}
		row(name, l)
	}
}

// copyBody is a plain AVX2 copy loop moving 64 bytes per iteration.
const copyBody = `vmovdqu ymm0, ymmword ptr [rsi + rax]
vmovdqu ymm1, ymmword ptr [rsi + rax + 32]
vmovdqu ymmword ptr [rdi + rax], ymm0
vmovdqu ymmword ptr [rdi + rax + 32], ymm1
add rax, 64
cmp rax, rdx
jl top
`

// loopText is one loop body in Intel syntax, ending in a jump to top, and
// the bytes its stores write per iteration.
type loopText struct {
	body  string
	bytes int
}

// cycles is llvm-mca's estimate of cycles per iteration on cpu.
func (l loopText) cycles(mca, cpu string) float64 {
	src := ".intel_syntax noprefix\ntop:\n" + l.body
	cmd := exec.Command(mca, "-mtriple=x86_64", "-mcpu="+cpu, "-iterations=200")
	cmd.Stdin = strings.NewReader(src)
	out, err := cmd.CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mca: %s: %v\n%s\n%s", cpu, err, out, src)
		os.Exit(1)
	}
	var total, iters float64
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Total Cycles:"); ok {
			total, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
		if v, ok := strings.CutPrefix(line, "Iterations:"); ok {
			iters, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return total / iters
}

var (
	insnRe  = regexp.MustCompile(`^\s*([0-9a-f]+):\s+(.*)$`)
	jumpRe  = regexp.MustCompile(`^(j\w+)\s+([0-9a-f]+)`)
	storeRe = regexp.MustCompile(`(?i)^(vmovdqu|vmovntdq|vmovq|vmovd|vextracti128|vmovhps|vpextrd)\s+(ymmword|xmmword|qword|dword) ptr \[`)
)

// extract disassembles function name and returns its loop-th backward
// conditional loop, the jump rewritten to top and other jumps dropped.
func extract(bin, name string, loop int) (loopText, error) {
	out := run("objdump", "-d", "-M", "intel", "--no-show-raw-insn", "--disassemble=github.com/blockshuffle/blockshuffle/kernels."+name+".abi0", bin)
	type insn struct {
		addr uint64
		text string
	}
	var insns []insn
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		m := insnRe.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		addr, _ := strconv.ParseUint(m[1], 16, 64)
		text := strings.TrimSpace(m[2])
		if i := strings.Index(text, "<"); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
		insns = append(insns, insn{addr, strings.Join(strings.Fields(text), " ")})
	}
	seen := 0
	for i, in := range insns {
		m := jumpRe.FindStringSubmatch(in.text)
		if m == nil || m[1] == "jmp" {
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
			if b.addr < target {
				continue
			}
			if jumpRe.MatchString(b.text) {
				continue // the loop's exit tests: llvm-mca assumes them not taken
			}
			if s := storeRe.FindStringSubmatch(b.text); s != nil {
				l.bytes += map[string]int{"ymmword": 32, "xmmword": 16, "qword": 8, "dword": 4}[strings.ToLower(s[2])]
			}
			body.WriteString(b.text + "\n")
		}
		body.WriteString(m[1] + " top\n")
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
