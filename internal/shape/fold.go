package shape

import "strings"

// Fold is s without surrounding ASCII spaces and with ASCII letters in
// upper case: the names of orders, layouts and tiers are compared in this
// form. Other bytes stay as they are, so that no Unicode folding (ſ as s,
// the Kelvin sign as K) or Unicode space makes an unknown name pass for a
// known one.
func Fold(s string) string {
	b := []byte(strings.Trim(s, " \t\n\v\f\r"))
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
