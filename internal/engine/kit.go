// Package engine plans and runs checked calls, and holds the tiers.
//
// Every call of every entry point comes to the front door (front.go) as
// a shape.Request and is looked up in the one cache of prepared calls
// (cache.go); a request never seen is checked and planned by its Planner,
// once. A call is planned into a Prepared call: the kernel calls that
// move it, each with its arguments checked and its slices as spans of the
// two tensors. An operator's row calls come from a plan of outer loops
// around groups of rows (plan.go, operator.go), each handed to the tier's
// kernels (Kernels.Row) or, where the tier has none, to the generic
// tier's loops; a call whose rows are too short for row kernels may
// instead be one pass of the tier's own (Kernels.OnePass). A transpose's
// calls come from internal/transpose. Prepared.Run makes the kernel calls
// in one loop, on the caller's goroutine or spread over several for large
// tensors, as the one parallel policy says (policy.go).
//
// The tiers register their Kits here at init (Register): internal/loops
// the generic tier, internal/simd one per ISA this build has. Package
// dispatch chooses the one calls use (Activate); the tests and benchmarks
// of the module run each by its name (Lookup). This is the one registry of
// tiers.
package engine

import "github.com/blockshuffle/blockshuffle/internal/isa"

// A Kit is a tier's kernels as the engine plans calls with them, and the
// tier's name. A tier registers one (Register); the front door plans and
// runs calls with the kit of the tier in use (Active) or of one named
// (Lookup).
type Kit struct {
	Name    string // the tier's, as dispatch spells it
	Kernels Kernels
	id      uint8 // its tier's index in isa.All, in the cache's keys
}

var (
	kits    = map[string]*Kit{}
	generic *Kit // every tier's fallback
	active  *Kit // the tier calls use
)

// Register makes k the kit of its tier. It is called from the init
// functions of internal/loops and internal/simd.
func Register(k *Kit) {
	for i := range isa.All {
		if isa.All[i].TierName == k.Name {
			k.id = uint8(i)
		}
	}
	if k.Name == isa.Generic {
		generic = k
	}
	kits[k.Name] = k
}

// Generic returns the generic tier's kit, every tier's fallback.
func Generic() *Kit { return generic }

// Lookup returns the kit of the named tier, or nil if this build has
// none. It does not check that this CPU can run it: see
// isa.ISA.Supported.
func Lookup(name string) *Kit { return kits[name] }

// Activate makes k the kit calls use. Package dispatch calls it once, at
// init, with the tier it chose.
func Activate(k *Kit) { active = k }

// Active returns the kit calls use.
func Active() *Kit { return active }
