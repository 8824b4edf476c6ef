// Package gonnx adds DepthToSpace and SpaceToDepth to a
// github.com/advancedclimatesystems/gonnx model, and routes its Transpose
// nodes that are a block shuffle (the Reshape, Transpose, Reshape graphs
// PyTorch and others export) through blockshuffle's SIMD kernels.
//
// gonnx v1.1.0 has neither operator (its issues #29 and #107 ask for them),
// and its Transpose moves one element at a time through gorgonia's
// iterator. Its Model exports the GetOperator field, so no fork is needed:
//
//	m, err := gonnx.NewModelFromBytes(modelBytes)
//	...
//	bsonnx.Install(m)
//	out, err := m.Run(inputs)
//
// The operators follow the ONNX definitions: DepthToSpace-1 (attribute
// blocksize), -11 (and mode, "DCR" by default or "CRD") and -13 (more
// types); SpaceToDepth-1 and -13 (blocksize) and -28 (and mode). Every
// dtype gonnx runs works, strings included, and so do empty tensors.
// Tensors move through package
// github.com/blockshuffle/blockshuffle/integrations/gorgonia, so lazily
// transposed, sliced or masked inputs give right answers.
//
// # Opsets
//
// A model's opset reaches the operators through Getter. gonnx v1.1.0 loads
// opset 13 models only (NewModel refuses any other), so Install serves
// opset 13. A host that loads other opsets (a later gonnx, or a loader of
// its own) passes the model's, which Opset reads from its ModelProto:
//
//	m.GetOperator = bsonnx.Getter(bsonnx.Opset(mp), m.GetOperator)
//
// From opset 28 a SpaceToDepth node may have mode "CRD": PyTorch's
// pixel_unshuffle as one node rather than Reshape, Transpose, Reshape.
package gonnx
