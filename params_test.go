package blockshuffle_test

import (
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	bs "github.com/blockshuffle/blockshuffle"
)

func TestParseOrder(t *testing.T) {
	for s, want := range map[string]bs.Order{
		"DCR": bs.DCR, "dcr": bs.DCR, " DCR ": bs.DCR, "DEPTH_COLUMN_ROW": bs.DCR,
		"DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW": bs.DCR,
		"CRD":                                    bs.CRD, "Crd": bs.CRD, "COLUMN_ROW_DEPTH": bs.CRD,
		"DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH": bs.CRD,
		"DML_DEPTH_TO_SPACE":                     bs.DCR, "dml_space_to_depth": bs.DCR, "depth_to_space": bs.DCR, "space_to_depth": bs.DCR,
		"pixel_shuffle": bs.CRD, "PIXEL_UNSHUFFLE": bs.CRD, "\tcrd\n": bs.CRD,
	} {
		if got, err := bs.ParseOrder(s); got != want || err != nil {
			t.Errorf("ParseOrder(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	// Only ASCII folds: ſ (long s), the Kelvin sign and Unicode spaces do not.
	for _, s := range []string{"", "RDC", "DCR2", "DML_DEPTH_SPACE_ORDER_", "pixel_ſhuffle", "\u00a0CRD\u3000", "DCR\u200b"} {
		if _, err := bs.ParseOrder(s); !errors.Is(err, bs.ErrOrder) {
			t.Errorf("ParseOrder(%q) error %v, want ErrOrder", s, err)
		}
	}
}

func TestParseLayout(t *testing.T) {
	for s, want := range map[string]bs.Layout{
		"NCHW": bs.NCHW, "nchw": bs.NCHW, "channels_first": bs.NCHW,
		"NHWC": bs.NHWC, "channels_last": bs.NHWC, "CHANNELS_LAST": bs.NHWC,
	} {
		if got, err := bs.ParseLayout(s); got != want || err != nil {
			t.Errorf("ParseLayout(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"NWHC", "channelſ_last", "\u00a0nhwc\u3000", "NHWC\u0000"} {
		if _, err := bs.ParseLayout(s); !errors.Is(err, bs.ErrLayout) {
			t.Errorf("ParseLayout(%q) error %v, want ErrLayout", s, err)
		}
	}
}

// TestREADMELength keeps README.md for users: at most 250 lines, the
// maintainers' matters being under docs/.
func TestREADMELength(t *testing.T) {
	inSourceTree(t)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 250 {
		t.Errorf("README.md has %d lines; keep it to 250 and move what maintainers need to docs/", n)
	}
}

// TestREADMEOrderNames keeps the README's promise that ParseOrder reads
// every name in its table of orders: each name in backquotes in a row of
// that table must parse as the row's order.
func TestREADMEOrderNames(t *testing.T) {
	inSourceTree(t)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(readme), "| Order | formula |")
	name := regexp.MustCompile("`\"?([A-Za-z_]+)\"?`")
	rows := 0
	for _, line := range strings.Split(rest, "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(line, "|")
		want, err := bs.ParseOrder(strings.Trim(cells[1], " `(zero value)"))
		if err != nil {
			t.Fatalf("row %q: %v", line, err)
		}
		rows++
		for _, cell := range cells[3:] { // the names, after the formula
			for _, m := range name.FindAllStringSubmatch(cell, -1) {
				if got, err := bs.ParseOrder(m[1]); got != want || err != nil {
					t.Errorf("ParseOrder(%q) = %v, %v; the README's table says %v", m[1], got, err, want)
				}
			}
		}
	}
	if rows != 2 {
		t.Fatalf("found %d rows in the README's table of orders, want 2", rows)
	}
}

func TestTextRoundTrip(t *testing.T) {
	type attrs struct {
		Order  bs.Order
		Layout bs.Layout
	}
	in := attrs{bs.CRD, bs.NHWC}
	b, err := json.Marshal(in)
	if err != nil || string(b) != `{"Order":"CRD","Layout":"NHWC"}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var out attrs
	if err := json.Unmarshal([]byte(`{"Order":"column_row_depth","Layout":"channels_last"}`), &out); err != nil || out != in {
		t.Fatalf("Unmarshal = %+v, %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"Order":"XYZ"}`), &out); !errors.Is(err, bs.ErrOrder) {
		t.Errorf("Unmarshal of a bad order: %v", err)
	}
	if _, err := json.Marshal(attrs{Order: 7}); !errors.Is(err, bs.ErrOrder) {
		t.Errorf("Marshal of Order(7): %v", err)
	}
	if _, err := json.Marshal(attrs{Layout: 7}); !errors.Is(err, bs.ErrLayout) {
		t.Errorf("Marshal of Layout(7): %v", err)
	}
	if s := bs.Order(7).String() + bs.Layout(9).String(); s != "Order(7)Layout(9)" {
		t.Errorf("String of bad values: %s", s)
	}
}

func TestOutputDims(t *testing.T) {
	p := bs.Params{N: 2, C: 18, H: 4, W: 6, BlockSize: 3, Layout: bs.NHWC}
	d, err := p.DepthToSpaceDims()
	if err != nil || d != (bs.Dims{N: 2, C: 2, H: 12, W: 18}) || d.Shape(p.Layout) != [4]int{2, 12, 18, 2} {
		t.Errorf("DepthToSpaceDims = %+v, %v", d, err)
	}
	p = bs.Params{N: 2, C: 3, H: 6, W: 9, BlockSize: 3}
	d, err = p.SpaceToDepthDims()
	if err != nil || d != (bs.Dims{N: 2, C: 27, H: 2, W: 3}) || d.Shape(bs.NCHW) != [4]int{2, 27, 2, 3} || d.Len() != p.Dims().Len() {
		t.Errorf("SpaceToDepthDims = %+v, %v", d, err)
	}
	if _, err := p.DepthToSpaceDims(); !errors.Is(err, bs.ErrNotDivisible) {
		t.Errorf("DepthToSpaceDims of C=3, b=3: %v", err)
	}
}

// inSourceTree skips a test that reads the repository's files when its
// binary runs away from them, as under Bochs.
func inSourceTree(t *testing.T) {
	if _, err := os.Stat("blockshuffle.go"); err != nil {
		t.Skipf("not in the package's source directory: %v", err)
	}
}
