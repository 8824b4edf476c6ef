//go:build purego || !(amd64 || arm64)

package dispatch

import "github.com/blockshuffle/blockshuffle/generic"

// Without assembly only the generic tier exists.
func cpuHas(Tier) bool { return false }

func builtin(Tier) *generic.Sets { return nil }
