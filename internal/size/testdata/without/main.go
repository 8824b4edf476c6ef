// Command without is with's program without blockshuffle: the baseline of
// the binary-size budget (see TestHelloWorldBudget).
package main

import "fmt"

func main() {
	src := []float32{0, 1, 2, 3, 4, 5, 6, 7}
	dst := make([]float32, len(src))
	copy(dst, src)
	fmt.Println(dst, error(nil))
}
