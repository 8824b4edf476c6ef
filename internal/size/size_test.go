// Package size holds the binary-size budget: what importing blockshuffle
// adds to a program, built as size-conscious users ship it.
package size

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// budget is the most, in bytes, importing blockshuffle and calling
// DepthToSpace and Transpose once each may add to a hello world built for
// linux/amd64 with -ldflags='-s -w'. Every kernel costs every importer
// these bytes, whether or not it moves a tensor.
const budget = 1_200_000

// TestHelloWorldBudget builds ./testdata/with and ./testdata/without
// (programs under testdata, which ./... leaves out, so that no package
// under internal/ imports the module's root) for linux/amd64,
// stripped, and fails if with is more than budget bytes larger.
func TestHelloWorldBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	if runtime.GOARCH != "amd64" { // an emulated run: the go command is the host's
		t.Skip("measured on amd64 hosts")
	}
	size := func(pkg string) int64 {
		out := filepath.Join(t.TempDir(), pkg)
		cmd := exec.Command("go", "build", "-ldflags=-s -w", "-o", out, "./testdata/"+pkg)
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build ./%s: %v\n%s", pkg, err, msg)
		}
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	// Stat every Go file of the module, so that go test's cache, which
	// knows the files a test opens or stats but not those go build reads,
	// runs this test again when any of them changes.
	filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			os.Stat(path)
		}
		return nil
	})
	with, without := size("with"), size("without")
	t.Logf("hello world: %d bytes without blockshuffle, %d with: +%d (budget +%d)", without, with, with-without, budget)
	if with-without > budget {
		t.Errorf("importing blockshuffle adds %d bytes to a stripped hello world, over the budget of %d", with-without, budget)
	}
}
