package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Folding identical kernels. Kernels of two ISAs of one architecture can
// lower to the same instructions: AVX-512 BW's and VBMI's of elements of 4
// bytes and more, whose permutes move the same grains whether or not the
// ISA permutes bytes. A later ISA's table then names the earlier ISA's
// function, and its own assembly leaves the kernel out. Equality is of
// the functions' text, compared in a canonical form, so nothing is
// folded on a belief.

// folds remembers, per architecture, the canonical text of every function
// written so far and its name.
type folds map[string]map[string]string

// canonical returns each function of an assembly file under its name, in a
// form that compares equal for the same instructions: the function's own
// name removed, labels numbered in order of appearance, file-local data
// (avo's constants, named by their order in the file) replaced by their
// contents.
func canonical(asm string) map[string]string {
	data := map[string][]string{}
	for _, m := range regexp.MustCompile(`(?m)^DATA (\w+)<>\+(\d+)\(SB\)/(\d+), \$(\S+)$`).FindAllStringSubmatch(asm, -1) {
		data[m[1]] = append(data[m[1]], m[2]+"/"+m[3]+"="+m[4])
	}
	for _, v := range data {
		sort.Strings(v)
	}
	out := map[string]string{}
	text := regexp.MustCompile(`(?m)^TEXT ·(\w+)\(SB\)`)
	starts := text.FindAllStringSubmatchIndex(asm, -1)
	for n, m := range starts {
		end := len(asm)
		if n+1 < len(starts) {
			end = starts[n+1][0]
		}
		name, body := asm[m[2]:m[3]], asm[m[1]:end]
		if i := strings.Index(body, "\nDATA "); i >= 0 { // the file's data after its last function
			body = body[:i]
		}
		if i := strings.LastIndex(body, "\n// func "); i >= 0 { // the next function's comment
			body = body[:i]
		}
		labels := map[string]string{}
		for _, l := range regexp.MustCompile(`(?m)^(\w+):`).FindAllStringSubmatch(body, -1) {
			labels[l[1]] = fmt.Sprintf("L%d", len(labels))
		}
		body = regexp.MustCompile(`(\w+)<>`).ReplaceAllStringFunc(body, func(s string) string {
			return "data" + fmt.Sprint(data[strings.TrimSuffix(s, "<>")])
		})
		body = regexp.MustCompile(`\b\w+\b`).ReplaceAllStringFunc(body, func(w string) string {
			if l, ok := labels[w]; ok {
				return l
			}
			return w
		})
		out[name] = body
	}
	return out
}

// match returns, for each function of asm that has the text of a function
// written before for goarch, that function's name.
func (f folds) match(goarch, asm string) map[string]string {
	same := map[string]string{}
	for name, body := range canonical(asm) {
		if other, ok := f[goarch][body]; ok {
			same[name] = other
		}
	}
	return same
}

// add remembers the functions of asm, written for goarch.
func (f folds) add(goarch, asm string) {
	if f[goarch] == nil {
		f[goarch] = map[string]string{}
	}
	for name, body := range canonical(asm) {
		if _, ok := f[goarch][body]; !ok {
			f[goarch][body] = name
		}
	}
}
