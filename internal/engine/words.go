package engine

// The one rule of how an element moves: as words, the widest of 16, 8,
// 4, 2 and 1 bytes that divides it, up to the widest word the kernels
// that move it take. The operators' lane kernels take elements of up to
// MaxWord bytes; a transpose's tile kernels take words of up to
// MaxTileWord, and a transpose keeps the words of one element together as
// a run (a 16-byte element is a run of two 8-byte words, which the SIMD
// tiers' tiles of 16-byte words take whole: internal/transpose's route).
// A kernel moves an element of one word; the generic tier's loops, any
// number.

// MaxWord and MaxTileWord are the widest words of the operators' and the
// transposes' kernels (internal/simd's MaxWidth and MaxTileWidth).
const (
	MaxWord     = 16
	MaxTileWord = 8
)

// Word is the word of an element of elem bytes for kernels whose widest
// word is widest.
func Word(elem, widest int) int {
	w := widest
	for elem%w != 0 {
		w /= 2
	}
	return w
}
