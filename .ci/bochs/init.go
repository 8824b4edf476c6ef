// Command init is PID 1 of the AVX-512 test boots under Bochs (.ci/avx512):
// it mounts what Go's tests need, prints what the CPU reports, runs every
// test binary in /tests with the arguments given after "--" on the kernel
// command line and those in the file beside it named <name>.args, reports
// each exit status and powers the machine off.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/cpu"
)

func main() {
	for _, m := range [][3]string{{"proc", "/proc", "proc"}, {"sysfs", "/sys", "sysfs"},
		{"devtmpfs", "/dev", "devtmpfs"}, {"tmpfs", "/tmp", "tmpfs"}} {
		os.MkdirAll(m[1], 0o755)
		if err := syscall.Mount(m[0], m[1], m[2], 0, ""); err != nil {
			fmt.Printf("init: mount %s: %v\n", m[1], err)
		}
	}
	os.Setenv("TMPDIR", "/tmp")
	os.Setenv("HOME", "/tmp")
	x := cpu.X86
	fmt.Printf("init: cpu AVX2=%v BMI2=%v AVX512F=%v BW=%v VL=%v DQ=%v VBMI=%v\n",
		x.HasAVX2, x.HasBMI2, x.HasAVX512F, x.HasAVX512BW, x.HasAVX512VL, x.HasAVX512DQ, x.HasAVX512VBMI)
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				fmt.Println("init:", l)
				break
			}
		}
	}
	failed := 0
	tests, _ := filepath.Glob("/tests/*.test")
	for _, t := range tests {
		args := append([]string{"-test.v"}, os.Args[1:]...)
		if b, err := os.ReadFile(strings.TrimSuffix(t, ".test") + ".args"); err == nil {
			args = append(args, strings.Fields(string(b))...) // this binary's own, such as -test.run
		}
		cmd := exec.Command(t, args...)
		cmd.Stdout, cmd.Stderr, cmd.Dir = os.Stdout, os.Stderr, "/tmp"
		code := 0
		if err := cmd.Run(); err != nil {
			code = 1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			failed++
		}
		fmt.Printf("init: EXIT %s %d\n", filepath.Base(t), code)
	}
	fmt.Printf("init: DONE failed=%d\n", failed)
	syscall.Syscall(syscall.SYS_IOCTL, 1, 0x5409, 1) // TCSBRK: drain the console first
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	select {}
}
