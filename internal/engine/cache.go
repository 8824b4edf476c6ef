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

// A key is a request as the cache holds it, with its tier.
type key struct {
	tier              uint8
	transpose         bool
	op, order, layout uint8
	rank, perms       uint8
	perm              [shape.MaxRank]uint8
	elem, workers     int
	dims              [shape.MaxRank]int
}

// keyOf is the key of request r on tier t, and whether it has one: a
// request of more dims or perm entries than the arrays hold has none.
// Perm entries are kept as bytes, so that only key.is tells whether a
// request is a key's.
func keyOf(t uint8, r *shape.Request) (key, bool) {
	if len(r.Dims) > shape.MaxRank || len(r.Perm) > shape.MaxRank {
		return key{}, false
	}
	k := key{tier: t, transpose: r.Transpose, op: r.Op, order: r.Order, layout: r.Layout,
		rank: uint8(len(r.Dims)), perms: uint8(len(r.Perm)), elem: r.Elem, workers: r.Workers}
	copy(k.dims[:], r.Dims)
	for i, p := range r.Perm {
		k.perm[i] = uint8(p)
	}
	return k, true
}

// is reports whether k is the key of request r on tier t, reading r as
// it is: a request need not be valid to be compared.
func (k *key) is(t uint8, r *shape.Request) bool {
	if k.tier != t || k.transpose != r.Transpose || k.op != r.Op || k.order != r.Order || k.layout != r.Layout ||
		k.elem != r.Elem || k.workers != r.Workers || int(k.rank) != len(r.Dims) || int(k.perms) != len(r.Perm) {
		return false
	}
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
func hash(t uint8, r *shape.Request) uint64 {
	h := uint64(r.Elem)*0xc4ceb9fe1a85ec53 + uint64(r.Workers)*0x94d049bb133111eb +
		uint64(t)<<48 + uint64(r.Op)<<44 + uint64(r.Order)<<42 + uint64(r.Layout)<<40
	if r.Transpose {
		h += 1 << 47
	}
	for i, d := range r.Dims {
		h += uint64(d) * mixers[i&7]
	}
	for i, p := range r.Perm {
		h += uint64(p) << (4 * i & 63)
	}
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>32
}

var mixers = [...]uint64{0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9, 0xd6e8feb86659fd93, 0xff51afd7ed558ccd,
	0x85ebca77c2b2ae63, 0x27d4eb2f165667c5, 0xa0761d6478bd642f}

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

// cached returns the prepared call of request r on tier t, whose hash is
// h, or nil.
func cached(h uint64, t uint8, r *shape.Request) *Prepared {
	if c := front[h%frontSlots].Load(); c != nil && c.key.is(t, r) {
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
	if c == nil || !c.key.is(t, r) { // a perm entry past 255 makes the key of another
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
