//go:build race

package engine

// raced: the race detector's runtime allocates as goroutines start.
const raced = true
