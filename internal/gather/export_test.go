package gather

// SetBlockBudget sets the source a block of reps may read (block) until
// the returned func restores it.
func SetBlockBudget(n int) (restore func()) {
	old := blockBudget
	blockBudget = n
	return func() { blockBudget = old }
}
