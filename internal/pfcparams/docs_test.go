package pfcparams_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/pfcparams"
)

// TestDocumentedRangesAreTheTables: every range the module's
// documentation gives a numeric parameter ("scale 1..62500", "Scale is a
// percentage (1..62500", "outputQuality outside 40..100" in Go comments
// and Markdown) is the one the declaration table checks, for both
// clients and both mocks.
func TestDocumentedRangesAreTheTables(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	texts := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(path, "_test.go") ||
			!(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".md")) {
			return nil // a link is not followed
		}
		b, err := os.ReadFile(path)
		texts[path] = strings.ToLower(string(b))
		return err
	})
	require.NoError(t, err)
	require.Contains(t, texts, filepath.Join(root, "docs", "mockserver.md"))

	ranges := map[string][2]int{}
	var names []string
	for _, p := range pfcparams.Table {
		if p.Kind == pfcparams.Int {
			ranges[strings.ToLower(p.Name)] = [2]int{p.Min, p.Max}
			names = append(names, regexp.QuoteMeta(strings.ToLower(p.Name)))
		}
	}
	// A name (any case), then up to 30 characters without a digit or a
	// full stop, then "N..M" or "N to M".
	re := regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b[^.\d]{0,30}?(\d[\d,]*)\s*(?:\.\.|to)\s*(\d[\d,]*)`)
	seen := 0
	for path, text := range texts {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			seen++
			lo, _ := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
			hi, _ := strconv.Atoi(strings.ReplaceAll(m[3], ",", ""))
			assert.Equal(t, ranges[m[1]], [2]int{lo, hi}, "%s: %q", path, m[0])
		}
	}
	assert.Positive(t, seen, "the pattern finds the documented ranges")
}
