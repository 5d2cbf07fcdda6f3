package doccheck

import (
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// snippet is one code block of a doc comment or of a Markdown document.
type snippet struct {
	pkg  *pkg   // nil for Markdown
	file string // module-relative, slash-separated
	line int    // line of the block's first code line in file
	code string // as go doc shows it: the common indentation removed
}

func (s snippet) String() string { return s.file + ":" + strconv.Itoa(s.line) }

// codeBlocks returns the code blocks of a doc comment, each with the line
// of the source file it starts on.
func codeBlocks(d docComment) []snippet {
	raw, numbers := d.rawLines()
	var p comment.Parser
	var out []snippet
	next := 0
	for _, b := range p.Parse(d.group.Text()).Content {
		code, ok := b.(*comment.Code)
		if !ok {
			continue
		}
		first, _, _ := strings.Cut(code.Text, "\n")
		s := snippet{pkg: d.pkg, file: d.pkg.file(d.group.Pos()), line: d.pkg.fset.Position(d.group.Pos()).Line, code: code.Text}
		for i := next; i < len(raw); i++ {
			if l := raw[i]; strings.TrimSpace(l) == strings.TrimSpace(first) && strings.TrimLeft(l, " \t") != l {
				s.line, next = numbers[i], i+1
				break
			}
		}
		out = append(out, s)
	}
	return out
}

// looksLikeGo reports whether a code block is meant as Go source: Go's
// scanner reads it without error, and it declares a variable with :=,
// starts a line with a declaration keyword (func, var, const, type,
// import, package) followed by a name or a parenthesis, or calls a
// qualified function or a method (x.F( ). Shell commands, JSON, HTTP
// headers, tables and grammars fail one test or the other.
func looksLikeGo(code string) bool {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(code))
	var s scanner.Scanner
	bad := false
	s.Init(file, []byte(code), func(token.Position, string) { bad = true }, 0)
	goish := false
	var last [3]token.Token // the latest tokens, newest first, semicolons skipped
	lastStartedLine, prevLine := false, 0
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON {
			continue
		}
		line := fset.Position(pos).Line
		switch {
		case tok == token.DEFINE:
			goish = true
		case tok == token.LPAREN && last[0] == token.IDENT && last[1] == token.PERIOD && last[2] == token.IDENT:
			goish = true
		case (tok == token.IDENT || tok == token.LPAREN) && lastStartedLine:
			switch last[0] {
			case token.FUNC, token.VAR, token.CONST, token.TYPE, token.IMPORT, token.PACKAGE:
				goish = true
			}
		}
		last = [3]token.Token{tok, last[0], last[1]}
		lastStartedLine, prevLine = line != prevLine, line
	}
	return goish && !bad
}

// given are the names a snippet may use without declaring them, as if
// pasted into a function that has them: the conventions of the docs.
// Besides these, "c" is the documented package's *Client, where it has one.
var given = map[string]string{
	"ctx":        "context.Context",
	"t":          "*testing.T",
	"err":        "error", // an error a call returned, to classify
	"apiKey":     "string",
	"licenseKey": "string",
	"fileKey":    "string",
	"handler":    "http.Handler",
}

// stdImports maps the standard packages snippets may use to their paths;
// the module's public packages are added by name.
var stdImports = map[string]string{
	"bytes":    "bytes",
	"context":  "context",
	"errors":   "errors",
	"fmt":      "fmt",
	"http":     "net/http",
	"httptest": "net/http/httptest",
	"io":       "io",
	"json":     "encoding/json",
	"log":      "log",
	"os":       "os",
	"filepath": "path/filepath",
	"slog":     "log/slog",
	"strings":  "strings",
	"testing":  "testing",
	"time":     "time",
}

// generate returns a test file in package snippet that holds s: a block of
// statements becomes the body of a function whose parameters are the
// given names it uses, and declarations stay top-level declarations. The
// packages it names are imported (the module's public packages by their
// names, and stdImports). Each variable a statement declares is used
// right after it ("; _ = v" on the same line), since a fragment need not
// go on to use everything it declares. A //line directive makes compiler
// errors point into the doc comment.
func generate(s snippet, imports map[string]string, client string) (string, error) {
	const stmtPrefix = "package snippet\n\nfunc snippet() {\n"
	fset := token.NewFileSet()
	f, stmtErr := parser.ParseFile(fset, "", stmtPrefix+s.code+"\n}\n", 0)
	if stmtErr != nil {
		src := "package snippet\n\n" + s.code
		df, declErr := parser.ParseFile(token.NewFileSet(), "", src, 0)
		if declErr != nil {
			return "", parseError(s, stmtErr, 3)
		}
		return assemble(s, imports, nil, unresolved(df), lineDirective(s)+s.code), nil
	}

	// Use what each statement declares, right after it.
	type insert struct {
		off  int
		text string
	}
	var inserts []insert
	useDeclared := func(list []ast.Stmt) {
		for _, st := range list {
			var text strings.Builder
			for _, n := range declaredNames(st) {
				fmt.Fprintf(&text, "; _ = %s", n)
			}
			if text.Len() > 0 {
				inserts = append(inserts, insert{fset.Position(st.End()).Offset - len(stmtPrefix), text.String()})
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			useDeclared(n.List)
		case *ast.CaseClause:
			useDeclared(n.Body)
		case *ast.CommClause:
			useDeclared(n.Body)
		}
		return true
	})
	sort.Slice(inserts, func(i, j int) bool { return inserts[i].off > inserts[j].off })
	body := s.code
	for _, in := range inserts {
		body = body[:in.off] + in.text + body[in.off:]
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", stmtPrefix+body+"\n}\n", 0)
	if err != nil {
		return "", parseError(s, err, 3)
	}
	free := unresolved(f)
	var params []string
	for _, name := range free {
		typ, ok := given[name]
		if name == "c" && client != "" {
			typ, ok = client, true
		}
		if ok {
			params = append(params, name+" "+typ)
		}
	}
	code := "func snippet(" + strings.Join(params, ", ") + ") {\n\t{\n" + lineDirective(s) + body + "\n\t}\n}\n"
	return assemble(s, imports, params, free, code), nil
}

// assemble adds the package clause and the imports of the names code
// leaves unresolved and of its parameters' types.
func assemble(s snippet, imports map[string]string, params, free []string, code string) string {
	need := map[string]bool{}
	for _, name := range free {
		if _, ok := imports[name]; ok {
			need[name] = true
		}
	}
	for _, p := range params {
		for _, m := range regexp.MustCompile(`([a-z]+)\.`).FindAllStringSubmatch(p, -1) {
			need[m[1]] = true
		}
	}
	var paths []string
	for name := range need {
		path := imports[name]
		if pathBase(path) != name {
			path = name + " " + strconv.Quote(path)
		} else {
			path = strconv.Quote(path)
		}
		paths = append(paths, "\t"+path)
	}
	sort.Strings(paths)
	return "// Code generated from " + s.String() + " by doccheck. DO NOT EDIT.\n\npackage snippet\n\nimport (\n" +
		strings.Join(paths, "\n") + "\n)\n\n" + code
}

// lineDirective makes the lines after it count from the snippet's first
// line in its source file, named by its absolute path.
func lineDirective(s snippet) string {
	return "//line " + filepath.Join(moduleRoot(), filepath.FromSlash(s.file)) + ":" + strconv.Itoa(s.line) + "\n"
}

func pathBase(path string) string { return path[strings.LastIndex(path, "/")+1:] }

// parseError reports a snippet that looks like Go but does not parse,
// with the line of the doc comment. prefixLines is how many lines the
// wrapper put before the snippet.
func parseError(s snippet, err error, prefixLines int) error {
	msg := err.Error()
	if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
		e := list[0]
		msg = s.file + ":" + strconv.Itoa(s.line+e.Pos.Line-prefixLines-1) + ": " + e.Msg
	}
	if strings.Contains(s.code, "...") {
		msg += ` (a literal "..." does not compile: write a comment, or the code)`
	}
	return fmt.Errorf("%s: does not parse as Go statements or declarations: %s", s, msg)
}

// declaredNames returns the names a statement declares: the new names of
// a := and the names of a var declaration, "_" left out.
func declaredNames(st ast.Stmt) []string {
	var names []string
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			for _, e := range st.Lhs {
				if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
					names = append(names, id.Name)
				}
			}
		}
	case *ast.DeclStmt:
		if gd, ok := st.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, spec := range gd.Specs {
				for _, id := range spec.(*ast.ValueSpec).Names {
					if id.Name != "_" {
						names = append(names, id.Name)
					}
				}
			}
		}
	}
	return names
}

// unresolved returns the names a parsed file uses but does not declare,
// each once, sorted: packages, given names, builtins and mistakes.
func unresolved(f *ast.File) []string {
	var names []string
	for _, id := range f.Unresolved {
		if !slices.Contains(names, id.Name) {
			names = append(names, id.Name)
		}
	}
	sort.Strings(names)
	return names
}

// goSnippets returns the Go snippets of every public package's docs.
func goSnippets(t *testing.T) []snippet {
	var out []snippet
	for _, p := range publicPackages(t) {
		for _, d := range p.docs {
			for _, s := range codeBlocks(d) {
				if looksLikeGo(s.code) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// markdownSnippets returns the ```go blocks of the module's Markdown
// documents other than README.md, which internal/readme checks, and
// CHANGELOG.md, which quotes old code.
func markdownSnippets(t *testing.T) []snippet {
	t.Helper()
	root := moduleRoot()
	var out []snippet
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".md") || filepath.Dir(path) == root && (name == "README.md" || name == "CHANGELOG.md") {
			return nil
		}
		md, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		var cur *snippet
		for n, line := range strings.Split(string(md), "\n") {
			switch {
			case cur == nil && strings.TrimSpace(line) == "```go":
				cur = &snippet{file: filepath.ToSlash(rel), line: n + 2}
			case cur != nil && strings.TrimSpace(line) == "```":
				out = append(out, *cur)
				cur = nil
			case cur != nil:
				cur.code += line + "\n"
			}
		}
		if cur != nil {
			t.Errorf("%s: unterminated ```go block", cur)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// TestDocSnippetsCompile builds every Go snippet of the public packages'
// doc comments, and every ```go block of the Markdown documents besides
// README.md, against the module as it is, with go vet (which type-checks
// and runs the usual checks). The snippets are written to a
// temporary directory inside this package whose name starts with "_", so
// that ./... never sees it.
func TestDocSnippetsCompile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the module: skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go tool is not available (%v): doc snippets not checked", err)
	}
	imports := map[string]string{}
	for name, path := range stdImports {
		imports[name] = path
	}
	clients := map[*pkg]string{}
	for _, p := range publicPackages(t) {
		imports[p.name] = p.path
		if p.declares("Client") {
			clients[p] = "*" + p.name + ".Client"
		}
	}
	snips := goSnippets(t)
	require.GreaterOrEqual(t, len(snips), 10, "too few Go snippets found: is the walk broken?")
	snips = append(snips, markdownSnippets(t)...)

	dir, err := os.MkdirTemp(".", "_snippets")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	var pkgs []string
	srcs := map[string]string{}
	var parseErrs []string
	for i, s := range snips {
		src, err := generate(s, imports, clients[s.pkg])
		if err != nil {
			parseErrs = append(parseErrs, err.Error())
			continue
		}
		sub := fmt.Sprintf("s%02d", i)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, sub), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, sub, "snippet_test.go"), []byte(src), 0o644))
		pkgs = append(pkgs, "./internal/doccheck/"+filepath.Base(dir)+"/"+sub)
		srcs[sub] = src
	}
	for _, e := range parseErrs {
		t.Error(e)
	}

	cmd := exec.Command(goTool, append([]string{"vet"}, pkgs...)...)
	cmd.Dir = moduleRoot()
	out, err := cmd.CombinedOutput()
	if err != nil {
		var failed strings.Builder
		for _, m := range regexp.MustCompile(`(?m)^# \S+/(s\d+)$`).FindAllStringSubmatch(string(out), -1) {
			fmt.Fprintf(&failed, "\n--- %s:\n%s", m[1], srcs[m[1]])
		}
		t.Errorf("doc snippets do not compile (%v):\n%s\ngenerated sources of the failing snippets:%s", err, out, failed.String())
	}
}

// declares reports whether p declares a top-level type of that name.
func (p *pkg) declares(name string) bool {
	for _, f := range p.files {
		if obj := f.Scope.Lookup(name); obj != nil && obj.Kind == ast.Typ {
			return true
		}
	}
	return false
}

// The rule that tells Go from the other code blocks of the docs.
func TestLooksLikeGo(t *testing.T) {
	t.Parallel()
	for _, code := range []string{
		"c, err := hosted.NewClient(apiKey)\n",
		"var ve *pfc.ValidationError\nswitch {\n}\n",
		"func StartX(tb testing.TB) {\n}\n",
		"type T struct{}\n",
		"hosted.NewCorrection().WithLong(1200)\n",
		"if err != nil { ... }\njob := c.Wait(ctx)\n",
	} {
		require.True(t, looksLikeGo(code), code)
	}
	for _, code := range []string{
		"go run ./examples/batch\n",
		"go run github.com/pfcsdk/pfc-go/mockserver/cmd/pfc-mockserver\n",
		"PFC_API_KEY=... go run ./examples/batch -in ./photos -url https://api.example.com/v2\n",
		"go test -run 'TestX' ./...\n",
		`{"status": 400, "code": "invalid_parameter", "parameter": "width"}` + "\n",
		"webhook-id:        evt_<job_id>, the same on every retry\nwebhook-signature: v1,<base64 HMAC-SHA256>\n",
		"400, 422  ErrBadRequest\n102       ErrStillProcessing (a final 102 Processing: poll again)\n",
		"rate=0.2,kinds=503|429|reset|latency,seed=7\n",
		"hosted: http://127.0.0.1:8080/v2\nbg: http://127.0.0.1:8000\n",
		`param   = "rate=" float          probability, 0 to 1` + "\n",
		"4  night      mean luma < 0.22 with ≥ 55% of cells below 0.16\n",
	} {
		require.False(t, looksLikeGo(code), code)
	}
}

// What generate makes of statements, declarations and "...".
func TestGenerate(t *testing.T) {
	t.Parallel()
	imports := map[string]string{"hosted": module + "/hosted", "context": "context", "time": "time"}
	s := snippet{file: "hosted/doc.go", line: 10, code: "c, err := hosted.NewClient(apiKey)\nfor _, d := range ds {\n\tx := d // a comment\n}\n_ = ctx\n"}
	src, err := generate(s, imports, "*hosted.Client")
	require.NoError(t, err)
	// ds is no given name: it is no parameter, and stays undefined.
	require.Contains(t, src, "func snippet(apiKey string, ctx context.Context) {")
	require.Contains(t, src, "\t\"context\"\n\t\"github.com/pfcsdk/pfc-go/hosted\"\n)")
	require.NotContains(t, src, `"time"`)
	require.Contains(t, src, "//line "+filepath.Join(moduleRoot(), "hosted", "doc.go")+":10\nc, err := hosted.NewClient(apiKey); _ = c; _ = err\n")
	require.Contains(t, src, "\tx := d; _ = x // a comment\n")

	s.code = "c.Wait(ctx)\n"
	src, err = generate(s, imports, "*hosted.Client")
	require.NoError(t, err)
	require.Contains(t, src, "func snippet(c *hosted.Client, ctx context.Context) {")

	s.code = "func F(d time.Duration) {}\n"
	src, err = generate(s, imports, "")
	require.NoError(t, err)
	require.Contains(t, src, "import (\n\t\"time\"\n)\n\n//line ")
	require.Contains(t, src, ":10\nfunc F(d time.Duration) {}\n")

	s.code = "c, err := hosted.NewClient(apiKey)\n...\njob, err := c.Wait(ctx)\n"
	_, err = generate(s, imports, "")
	require.ErrorContains(t, err, "hosted/doc.go:11: expected statement, found '...'")
	require.ErrorContains(t, err, `a literal "..." does not compile`)
}
