package transpose

import "testing"

// BenchmarkMatch: a host calls Match once per Transpose it runs, so its
// cost is the floor of the fast path on small tensors.
func BenchmarkMatch(b *testing.B) {
	for _, c := range []struct {
		name       string
		size, perm []int
	}{
		{"onnx_rank6", []int{1, 2, 2, 64, 13, 13}, []int{0, 3, 4, 1, 5, 2}},
		{"unit_dims", []int{1, 2, 1, 2, 64, 13, 1, 13}, []int{0, 4, 2, 1, 3, 6, 5, 7}},
		{"no_match", []int{2, 3, 5, 7, 11, 13}, []int{5, 3, 1, 0, 2, 4}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Match(c.size, c.perm)
			}
		})
	}
}
