// Command with is the hello world of the binary-size budget: it imports
// blockshuffle and calls DepthToSpace and Transpose once each (see
// TestHelloWorldBudget).
package main

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle"
)

func main() {
	src := []float32{0, 1, 2, 3, 4, 5, 6, 7}
	dst := make([]float32, len(src))
	err := blockshuffle.DepthToSpace(dst, src, blockshuffle.Params{N: 1, C: 4, H: 1, W: 2, BlockSize: 2})
	fmt.Println(dst, err)
	_, err = blockshuffle.Transpose(dst, src, []int{2, 4}, []int{1, 0})
	fmt.Println(dst, err)
}
