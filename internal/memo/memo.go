// Package memo caches what the runtime plans once per shape (prepared
// calls, gather and stacked-row plans), so that a call with a shape seen
// before costs a lookup and no allocation.
package memo

import (
	"sync"
	"sync/atomic"
)

// maxEntries bounds a cache; when it is full it starts again empty.
const maxEntries = 256

// A Cache maps keys to values built on first use. Readers never lock: the
// map is copied on every write, which only a shape not seen before makes.
type Cache[K comparable, V any] struct {
	m  atomic.Pointer[map[K]V] // nil until the first entry
	mu sync.Mutex              // serializes writers
}

// Get returns the value of k, building it with build on first use.
func (c *Cache[K, V]) Get(k K, build func() V) V {
	if v, ok := c.Lookup(k); ok {
		return v
	}
	v := build()
	c.Put(k, v)
	return v
}

// Lookup returns the value of k, if it has one.
func (c *Cache[K, V]) Lookup(k K) (v V, ok bool) {
	if m := c.m.Load(); m != nil {
		v, ok = (*m)[k]
	}
	return v, ok
}

// Put makes v the value of k.
func (c *Cache[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var old map[K]V
	if m := c.m.Load(); m != nil {
		old = *m
	}
	next := make(map[K]V, len(old)+1)
	if len(old) < maxEntries {
		for k, v := range old {
			next[k] = v
		}
	}
	next[k] = v
	c.m.Store(&next)
}
