package generic_test

import (
	"fmt"

	"github.com/blockshuffle/blockshuffle"
	"github.com/blockshuffle/blockshuffle/generic"
)

// Strings hold pointers, so they go through package generic, which moves
// them with ordinary assignments.
func ExampleDepthToSpace() {
	src := []string{"a", "b", "c", "d", "e", "f", "g", "h"} // 4 channels of 1x2
	dst := make([]string, len(src))
	p := blockshuffle.Params{N: 1, C: 4, H: 1, W: 2, BlockSize: 2}
	if err := generic.DepthToSpace(dst, src, p); err != nil {
		panic(err)
	}
	fmt.Println(dst[:4], dst[4:])
	// Output: [a c b d] [e g f h]
}
