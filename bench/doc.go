// Package bench holds blockshuffle's benchmarks: every case of the report
// (bench/cmd/report, the project's main benchmark) with every tier this
// machine runs, the hand-written and typical Go loops and copy() of the same bytes, and the
// parallel scaling around the automatic worker threshold. Run them with
// go test -bench, for example
//
//	go test ./bench -run '^$' -bench 'Shuffle/op=d2s/order=DCR/layout=NCHW/width=4/.*/tier=(avx2|loop|typical)$'
//
// The package has no API: the shapes and the timing harness the benchmarks
// share with the report live in bench/internal/harness. bench/cmd/mca
// estimates the kernels' inner loops with llvm-mca for CPUs this machine
// lacks.
package bench
