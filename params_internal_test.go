package blockshuffle

import (
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/public"
)

// TestConversions checks the package's own conversions to and from
// internal/shape, field by field (TestInternalTypes holds the two types'
// fields and numbers to each other).
func TestConversions(t *testing.T) {
	p := Params{N: 1, C: 2, H: 3, W: 4, BlockSize: 5, Order: CRD, Layout: NHWC, Workers: 6}
	if q := public.Params[Params](p.internal()); q != p {
		t.Errorf("%+v converts to %+v and back", p, q)
	}
}
