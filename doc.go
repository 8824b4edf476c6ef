// Package blockshuffle implements the tensor block shuffles DepthToSpace and
// SpaceToDepth (ONNX, DirectML, TensorFlow depth_to_space, PyTorch
// pixel_shuffle and pixel_unshuffle) on the caller's own slices, with SIMD
// kernels where the CPU has them and pure Go everywhere else.
//
// It is meant as a drop-in fast path for Go tensor libraries, ONNX
// interpreters and image pipelines: pass typed slices ([]float32,
// []float16.Float16, []uint8, ...) or raw bytes with an element size, and a
// Params describing the input tensor. Nothing is allocated on the
// single-goroutine path and no tensor type is imposed.
//
// # Operators
//
// With block size b and input dims [N, C, H, W]:
//
//   - DepthToSpace: C must be a multiple of b*b; the output is
//     [N, C/(b*b), H*b, W*b].
//   - SpaceToDepth: H and W must be multiples of b; the output is
//     [N, C*b*b, H/b, W/b]. It is the exact inverse of DepthToSpace with the
//     same b and Order.
//
// Order DCR (depth-column-row, ONNX's default, TensorFlow) and CRD
// (column-row-depth, PyTorch pixel_shuffle) differ in how the channel index
// splits into the block; Layout NCHW and NHWC is the memory order of both
// tensors. Elements are moved as bits: NaN payloads, signalling NaNs and -0
// survive.
//
// # Errors
//
// Invalid parameters or slice lengths return an error wrapping one of the
// Err* sentinels (test with errors.Is); no input makes a function panic, and
// dst is untouched on error. dst and src must not overlap: an in-place call
// returns ErrOverlap, and the way out is a second buffer reused from call to
// call (see the example of DepthToSpace in place).
//
// # Using it from a tensor library
//
// Graphs without these ops write them as Reshape, Transpose, Reshape.
// MatchTranspose recognizes the Transpose, and Transpose and TransposeBytes
// run it as the op, and every other transpose with SIMD kernels too, for a
// host's Transpose kernel; ONNXParams maps an ONNX node's attributes to
// Params. The modules under integrations/ adapt
// gorgonia.org/tensor's *tensor.Dense (including the views, lazy
// transposes and masks whose Data is not their elements in row-major
// order) and gonnx models; the repository's docs/benchmark-log.md measures
// what they gain.
//
// # Tiers
//
// At start-up the package picks the fastest kernel tier the CPU supports;
// Tier names it, and Describe tells which kernel serves a given call. The
// environment variable BLOCKSHUFFLE_TIER chooses another available tier
// (for example BLOCKSHUFFLE_TIER=generic); a value that cannot be honoured
// fails no call, and dispatch.EnvVarError says why. The purego build tag
// leaves out all assembly. Element types that hold pointers, such as
// string, go through package generic, which moves them with ordinary Go
// assignments.
//
// # Concurrency
//
// Calls are safe for concurrent use on distinct dst slices. Params.Workers
// bounds how many goroutines one call may use: 0 lets large calls use up to
// GOMAXPROCS goroutines and keeps small ones on the caller's goroutine.
//
// The first call of a set of Params and an element size validates and
// plans it, and keeps the plan (a few hundred bytes, up to tens of KiB
// for a tensor split among goroutines, whatever its dims; the last 1024
// per tier, the oldest evicted first): later calls with the same Params check
// only their slices' lengths and overlap, and allocate nothing. A caller
// that knows its shapes, such as an ONNX interpreter loading a model,
// makes a Plan for each instead and runs it.
package blockshuffle
