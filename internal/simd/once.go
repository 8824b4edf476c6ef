package simd

import "github.com/blockshuffle/blockshuffle/internal/engine"

// The Once methods make one call of a kernel on the given slices, checked
// as a planned call is, with a's spans set to the whole slices: space and
// depth, or dst and src for the copiers and the gather kernels. The kernel
// tests and benchmarks call kernels so.

func (f *LaneFunc) Once(space, depth []byte, a LaneArgs, b, split int) {
	a.Space, a.Depth = engine.SpaceSpan(len(space)), engine.DepthSpan(len(depth))
	f.Call(a, b, split).Run(space, depth)
}

func (f *AnyBFunc) Once(space, depth []byte, a AnyBArgs) {
	a.Space, a.Depth = engine.SpaceSpan(len(space)), engine.DepthSpan(len(depth))
	f.Call(a).Run(space, depth)
}

func (f *CopyFunc) Once(dst, src []byte, a CopyArgs) {
	a.Dst, a.Src = engine.SpaceSpan(len(dst)), engine.DepthSpan(len(src))
	f.Call(a).Run(dst, src)
}

func (f *GatherFunc) Once(dst, src []byte, a GatherArgs, p *GatherProg) {
	a.Dst, a.Src = engine.SpaceSpan(len(dst)), engine.DepthSpan(len(src))
	f.Call(a, p).Run(dst, src)
}

func (f *StackFunc) Once(space, depth, tab []byte, a StackArgs) {
	a.Space, a.Depth, a.Tab = engine.SpaceSpan(len(space)), engine.DepthSpan(len(depth)), engine.OwnSpan(tab)
	f.Call(a).Run(space, depth)
}

func (f *BundleFunc) Once(space, depth []byte, a BundleArgs, w int) {
	a.Space, a.Depth = engine.SpaceSpan(len(space)), engine.DepthSpan(len(depth))
	f.Call(a, w).Run(space, depth)
}

func (f *TileFunc) Once(dst, src []byte, a TileArgs, b, chunk, w int) {
	a.Dst, a.Src = engine.SpaceSpan(len(dst)), engine.DepthSpan(len(src))
	f.Call(a, b, chunk, w).Run(dst, src)
}
