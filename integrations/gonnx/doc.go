// Package gonnx adds DepthToSpace and SpaceToDepth to a
// github.com/advancedclimatesystems/gonnx model, and runs its Transpose
// nodes, every perm and dtype, through blockshuffle's SIMD kernels.
//
// gonnx v1.1.0 has neither operator (its issues #29 and #107 ask for them),
// and its Transpose moves one element at a time through gorgonia's
// iterator. Its Model exports the GetOperator field, so no fork is needed:
//
//	m, err := gonnx.NewModelFromBytes(modelBytes)
//	...
//	bsonnx.Install(m, 0) // 0: goroutines chosen per node; 1: one per node
//	out, err := m.Run(inputs)
//
// Each node is planned once, on its first run (integrations/gorgonia's
// NewPlan and NewTransposePlan), and again only when its input's shape or
// dtype changes; a run then checks only the tensors.
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
//	m.GetOperator = bsonnx.Getter(bsonnx.Opset(mp), 0, m.GetOperator)
//
// From opset 28 a SpaceToDepth node may have mode "CRD": PyTorch's
// pixel_unshuffle as one node rather than Reshape, Transpose, Reshape.
//
// A vision model's input is a gorgonia tensor filled by blockshuffle's
// imagetensor package, and its output goes back into an image the same
// way (the output tensor plain, as gonnx returns it):
//
//	x := tensor.New(tensor.WithShape(1, 3, h, w), tensor.Of(tensor.Float32))
//	err := imagetensor.FromImage(x.Data().([]float32), img, imagetensor.Options{})
//	out, err := m.Run(map[string]tensor.Tensor{"input": x})
//	err = imagetensor.ToImage(dstImg, out["output"].Data().([]float32), imagetensor.Options{})
package gonnx
