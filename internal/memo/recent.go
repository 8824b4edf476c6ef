package memo

import "sync/atomic"

// RecentSlots is how many values a Recent holds, in slots h % RecentSlots
// for hashes h: more shapes than the layers of a model that shuffle, few
// enough to stay a small array.
const RecentSlots = 64

// Recent holds recently used values in a fixed array of slots, chosen by
// a hash of their key that the caller computes, in front of a Cache: a hit
// costs the hash, one atomic load and the caller's comparison of keys,
// where a map would hash the key with the runtime's hasher and probe. A
// value put in the slot of another replaces it; storing a pointer the
// Cache holds allocates nothing, so keys that share a slot cost lookups,
// never garbage.
type Recent[V any] struct {
	slots [RecentSlots]atomic.Pointer[V]
}

// Get returns the value last put with hash h, or nil.
func (c *Recent[V]) Get(h uint64) *V { return c.slots[h%RecentSlots].Load() }

// Put makes v the value of hash h.
func (c *Recent[V]) Put(h uint64, v *V) { c.slots[h%RecentSlots].Store(v) }

// Clear empties every slot.
func (c *Recent[V]) Clear() {
	for i := range c.slots {
		c.slots[i].Store(nil)
	}
}
