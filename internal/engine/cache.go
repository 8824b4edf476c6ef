package engine

import (
	"sync"
	"sync/atomic"

	"github.com/blockshuffle/blockshuffle/internal/shape"
)

// The one cache of prepared calls, for operators and transposes and
// every tier alike: a request seen lately costs a hash, one atomic load
// and a comparison of keys (a front slot), or a read-locked map lookup
// where its slot holds another; one never seen is checked and planned
// once (Tier.Do). Only requests that passed their check are kept, so a
// hit is a valid request.

// MaxEntries bounds the cache: when it is full, keeping a new request
// evicts the oldest of its shard. A prepared call is a few hundred bytes,
// more for a large tensor cut into pieces for goroutines (about 130 bytes
// per piece of 256 KiB, at most MaxPieces of them), whatever its dims.
const MaxEntries = 1024

const (
	frontSlots = 64 // more shapes than the layers of a model that shuffle or transpose
	shards     = 16
)

// A key is a request as the cache holds it, with its tier: head packs
// what fits in a word (headOf), so that a lookup compares it at once.
type key struct {
	head          uint64
	elem, workers int
	dims          [shape.MaxRank]int
	perm          [shape.MaxRank]uint8
}

// headOf packs request r's tier, kind, Op, Order, Layout and counts of
// dims and perm entries into a word; counts past the arrays' read as 255,
// which no key holds.
func headOf(t uint8, r *shape.Request) uint64 {
	h := uint64(t) | uint64(r.Op)<<16 | uint64(r.Order)<<24 | uint64(r.Layout)<<32 |
		uint64(min(len(r.Dims), 255))<<40 | uint64(min(len(r.Perm), 255))<<48
	if r.Transpose {
		h |= 1 << 8
	}
	return h
}

// keyOf is the key of request r on tier t, and whether it has one: a
// request of more dims or perm entries than the arrays hold has none.
// Perm entries are kept as bytes, so that only key.is tells whether a
// request is a key's.
func keyOf(t uint8, r *shape.Request) (key, bool) {
	if len(r.Dims) > shape.MaxRank || len(r.Perm) > shape.MaxRank {
		return key{}, false
	}
	k := key{head: headOf(t, r), elem: r.Elem, workers: r.Workers}
	copy(k.dims[:], r.Dims)
	for i, p := range r.Perm {
		k.perm[i] = uint8(p)
	}
	return k, true
}

// is reports whether k is the key of request r, whose head is head,
// reading r as it is: a request need not be valid to be compared.
func (k *key) is(head uint64, r *shape.Request) bool {
	if k.head != head || k.elem != r.Elem || k.workers != r.Workers {
		return false
	}
	// The heads agree: len(r.Dims) and len(r.Perm) are the key's, at most
	// shape.MaxRank.
	for i, d := range r.Dims {
		if k.dims[i] != d {
			return false
		}
	}
	for i, p := range r.Perm {
		if int(k.perm[i]) != p {
			return false
		}
	}
	return true
}

// hash mixes what tells requests apart, cheaply: it spreads them over
// the front slots and the shards, nothing more. The dims' products are
// independent, so that they overlap in the CPU.
func hash(head uint64, r *shape.Request) uint64 {
	h := head*0x9e3779b97f4a7c15 + uint64(r.Elem)*0xc4ceb9fe1a85ec53 + uint64(r.Workers)*0x94d049bb133111eb
	for i, d := range r.Dims {
		h += uint64(d) * mixers[i&7]
	}
	for i, p := range r.Perm {
		h += uint64(p) << (4 * i & 63)
	}
	return h ^ h>>32 ^ h>>47
}

var mixers = [...]uint64{0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9, 0xd6e8feb86659fd93, 0xff51afd7ed558ccd,
	0x85ebca77c2b2ae63, 0x27d4eb2f165667c5, 0xa0761d6478bd642f, 0xbf58476d1ce4e5b9}

// The cache: front slots chosen by a hash's low bits, then the shards,
// by its high bits.
var (
	front [frontSlots]atomic.Pointer[Prepared]
	back  [shards]shard
)

type shard struct {
	mu   sync.RWMutex
	m    map[key]*Prepared
	keys []key // in the order they were put: the ring of evictions
	next int   // the oldest key, once keys is full
}

// cached returns the prepared call of request r on tier t, whose head and
// hash are head and h, or nil.
func cached(head, h uint64, t uint8, r *shape.Request) *Prepared {
	if c := front[h%frontSlots].Load(); c != nil && c.key.is(head, r) {
		return c
	}
	k, ok := keyOf(t, r)
	if !ok {
		return nil
	}
	s := &back[h>>40%shards]
	s.mu.RLock()
	c := s.m[k]
	s.mu.RUnlock()
	if c == nil || !c.key.is(head, r) { // a perm entry past 255 makes the key of another
		return nil
	}
	front[h%frontSlots].Store(c)
	return c
}

// keep puts c, prepared for a request whose hash is h, in the cache,
// evicting its shard's oldest call if the shard is full.
func keep(h uint64, c *Prepared) {
	front[h%frontSlots].Store(c)
	s := &back[h>>40%shards]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[key]*Prepared)
	}
	if _, ok := s.m[c.key]; ok {
		s.m[c.key] = c
		return
	}
	if len(s.keys) < MaxEntries/shards {
		s.keys = append(s.keys, c.key)
	} else {
		delete(s.m, s.keys[s.next])
		s.keys[s.next] = c.key
		s.next = (s.next + 1) % len(s.keys)
	}
	s.m[c.key] = c
}

// Forget drops every prepared call, so that the seams of the tests
// (seams.go, and internal/transpose's) take effect on the next call.
func Forget() {
	for i := range front {
		front[i].Store(nil)
	}
	for i := range back {
		s := &back[i]
		s.mu.Lock()
		s.m, s.keys, s.next = nil, nil, 0
		s.mu.Unlock()
	}
}
