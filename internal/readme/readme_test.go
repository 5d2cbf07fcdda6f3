package readme

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// snippet is one ```go block of README.md.
type snippet struct {
	line int // README line of the block's first code line
	code string
}

// goBlocks returns the ```go blocks of a Markdown document.
func goBlocks(t *testing.T, md []byte) []snippet {
	t.Helper()
	var out []snippet
	var cur *snippet
	var b strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &snippet{line: n + 1}
			b.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.code = b.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "unterminated ```go block")
	return out
}

// knownImports maps the package names snippets may use to import paths.
var knownImports = map[string]string{
	"context":      "context",
	"errors":       "errors",
	"fmt":          "fmt",
	"io":           "io",
	"log":          "log",
	"os":           "os",
	"http":         "net/http",
	"httptest":     "net/http/httptest",
	"filepath":     "path/filepath",
	"strings":      "strings",
	"time":         "time",
	"hosted":       "github.com/pfcsdk/pfc-go/hosted",
	"webhook":      "github.com/pfcsdk/pfc-go/webhook",
	"mockserver":   "github.com/pfcsdk/pfc-go/mockserver",
	"hostedmock":   "github.com/pfcsdk/pfc-go/mockserver/hostedmock",
	"pfcmock":      "github.com/pfcsdk/pfc-go/mockserver/pfcmock",
	"bgmock":       "github.com/pfcsdk/pfc-go/mockserver/bgmock",
	"pfccontainer": "github.com/pfcsdk/pfc-go/pfccontainer",
	"bgcontainer":  "github.com/pfcsdk/pfc-go/bgcontainer",
	"pfc":          "github.com/pfcsdk/pfc-go/pfc",
}

// source returns a test file with each snippet as the body of its own
// function taking t, as if pasted into main or a test function. //line
// directives make compiler errors point into README.md.
func source(snips []snippet) string {
	used := map[string]bool{}
	for _, s := range snips {
		for name := range knownImports {
			if regexp.MustCompile(`\b` + name + `\.`).MatchString(s.code) {
				used[name] = true
			}
		}
	}
	var b strings.Builder
	b.WriteString("package snippets\n\nimport (\n\t\"testing\"\n")
	for name, path := range knownImports {
		if used[name] {
			fmt.Fprintf(&b, "\t%q\n", path)
		}
	}
	b.WriteString(")\n")
	for i, s := range snips {
		fmt.Fprintf(&b, "\nfunc snippet%d(t *testing.T) {\n//line README.md:%d\n%s}\n", i, s.line, s.code)
	}
	return b.String()
}

// TestREADMESnippetsCompile builds every Go snippet of README.md against
// the module as it is, with go vet (which type-checks and runs the usual
// checks). The snippets are written to a temporary directory inside this
// package whose name starts with "_", so that ./... never sees it.
func TestREADMESnippetsCompile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the module: skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go tool is not available (%v): README snippets not checked", err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	md, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	snips := goBlocks(t, md)
	require.NotEmpty(t, snips, "README.md has no ```go block")
	for _, s := range snips {
		for i, line := range strings.Split(s.code, "\n") {
			code, _, _ := strings.Cut(line, "//")
			require.NotContains(t, code, "...", "README.md:%d: a literal ... does not compile", s.line+i)
		}
	}

	dir, err := os.MkdirTemp(".", "_snippets")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	src := source(snips)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "snippets_test.go"), []byte(src), 0o644))

	cmd := exec.Command(goTool, "vet", "./internal/readme/"+filepath.Base(dir))
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("README.md snippets do not compile as pasted into a function:\n%s\ngenerated source:\n%s", out, src)
	}
}

// The extractor itself: blocks, lines and imports.
func TestGoBlocks(t *testing.T) {
	t.Parallel()
	md := "text\n```sh\nls\n```\n```go\nctx := context.Background()\n_ = ctx\n```\n"
	snips := goBlocks(t, []byte(md))
	require.Len(t, snips, 1)
	require.Equal(t, 6, snips[0].line)
	src := source(snips)
	require.Contains(t, src, `"context"`)
	require.NotContains(t, src, `"fmt"`)
	require.Contains(t, src, "//line README.md:6\nctx := context.Background()")
}
