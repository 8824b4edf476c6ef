// Package memo caches what the runtime plans once per shape (prepared
// calls), so that a call with a shape seen before costs a lookup and no
// allocation.
package memo

import "sync"

// MaxEntries bounds a cache: when it is full, putting a new key evicts the
// oldest one of its shard. A prepared call is a few hundred bytes, more
// for a large tensor cut into pieces for goroutines (about 130 bytes per
// piece of 256 KiB, at most engine.MaxPieces of them), whatever its dims.
const MaxEntries = 1024

const shards = 16

// A Cache maps keys to values, at most MaxEntries of them. Readers take a
// read lock of one of its shards, chosen by a hash of the key that the
// caller computes, as for Recent.
type Cache[K comparable, V any] struct {
	shards [shards]shard[K, V]
}

type shard[K comparable, V any] struct {
	mu   sync.RWMutex
	m    map[K]V
	keys []K // in the order they were put: the ring of evictions
	next int // the oldest key, once keys is full
}

// shard is the shard of a key of hash h: high bits, which Recent's slots
// do not use.
func (c *Cache[K, V]) shard(h uint64) *shard[K, V] { return &c.shards[h>>40%shards] }

// Get returns the value of k, whose hash is h, if it has one.
func (c *Cache[K, V]) Get(h uint64, k K) (v V, ok bool) {
	s := c.shard(h)
	s.mu.RLock()
	v, ok = s.m[k]
	s.mu.RUnlock()
	return v, ok
}

// Put makes v the value of k, whose hash is h, evicting the shard's oldest
// key if it is full.
func (c *Cache[K, V]) Put(h uint64, k K, v V) {
	s := c.shard(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[K]V)
	}
	if _, ok := s.m[k]; ok {
		s.m[k] = v
		return
	}
	if len(s.keys) < MaxEntries/shards {
		s.keys = append(s.keys, k)
	} else {
		delete(s.m, s.keys[s.next])
		s.keys[s.next] = k
		s.next = (s.next + 1) % len(s.keys)
	}
	s.m[k] = v
}

// Clear removes every entry.
func (c *Cache[K, V]) Clear() {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		s.m, s.keys, s.next = nil, nil, 0
		s.mu.Unlock()
	}
}
