// Package fuzz holds the native Go fuzz targets of blockshuffle:
// FuzzDepthToSpace and FuzzSpaceToDepth compare the public API, the generic
// path and every kernel tier this machine can run with the naive reference
// on shapes, block sizes, orders, layouts and widths decoded from the fuzz
// input; FuzzValidate throws arbitrary parameters and slice lengths at every
// entry point; FuzzHugeDims and FuzzHugeTranspose draw dims up to the
// largest the checks accept, which must plan on every tier and run, or be
// refused with an error. Run one with, for example,
//
//	go test ./fuzz -run=^$ -fuzz=FuzzDepthToSpace -fuzztime=30s
//
// Plain go test runs the seed corpora.
package fuzz
