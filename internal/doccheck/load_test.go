package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/pfcsdk/pfc-go"

// pkg is one public package, parsed from its non-test files (build tags
// ignored: every file's docs count).
type pkg struct {
	dir   string // relative to the module root, slash-separated
	path  string // import path
	name  string
	fset  *token.FileSet
	files []*ast.File
	docs  []docComment
}

// docComment is a comment that go doc shows: a package doc, or the doc
// (or line comment) of an exported declaration, spec, field or interface
// method.
type docComment struct {
	pkg   *pkg
	group *ast.CommentGroup
	of    string // what it documents, for messages: "package", "Client.Wait" ...
}

// rawLines returns the lines of a doc comment as written, comment markers
// removed, each with its line number in the file.
func (d docComment) rawLines() (lines []string, numbers []int) {
	for _, c := range d.group.List {
		start := d.pkg.fset.Position(c.Slash).Line
		text, ok := strings.CutPrefix(c.Text, "//")
		if !ok {
			text = strings.TrimSuffix(strings.TrimPrefix(c.Text, "/*"), "*/")
		}
		for i, l := range strings.Split(text, "\n") {
			lines = append(lines, l)
			numbers = append(numbers, start+i)
		}
	}
	return lines, numbers
}

// line returns "dir/file.go:N" for the comment line holding pos.
func (p *pkg) line(pos token.Pos) string {
	return p.file(pos) + ":" + strconv.Itoa(p.fset.Position(pos).Line)
}

// file returns the module-relative, slash-separated name of pos's file.
func (p *pkg) file(pos token.Pos) string {
	return p.dir + "/" + filepath.Base(p.fset.Position(pos).Filename)
}

// skipDir reports whether a directory holds no public package: internal
// and main packages, test data, and directories go build ignores.
func skipDir(name string) bool {
	switch name {
	case "internal", "examples", "cmd", "testdata", "vendor":
		return true
	}
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// nestedModule reports whether dir is the root of another module (an
// adapter under contrib/, with its own go.mod): its packages are not this
// module's, and its snippets import what this module cannot.
func nestedModule(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

var loadOnce = sync.OnceValues(func() ([]*pkg, error) { return loadPublic(moduleRoot()) })

// moduleRoot is the module's directory: the test runs in internal/doccheck.
func moduleRoot() string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		panic(err)
	}
	return root
}

// publicPackages returns every public package of the module, parsed.
func publicPackages(t *testing.T) []*pkg {
	t.Helper()
	pkgs, err := loadOnce()
	require.NoError(t, err)
	require.NotEmpty(t, pkgs)
	return pkgs
}

func loadPublic(root string) ([]*pkg, error) {
	byDir := map[string]*pkg{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (skipDir(d.Name()) || nestedModule(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		p := byDir[rel]
		if p == nil {
			p = &pkg{dir: rel, path: module + "/" + rel, fset: token.NewFileSet()}
			byDir[rel] = p
		}
		f, err := parser.ParseFile(p.fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		p.name = f.Name.Name
		p.files = append(p.files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []*pkg
	for _, p := range byDir {
		if p.name == "main" {
			continue
		}
		p.collectDocs()
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out, nil
}

// collectDocs gathers the comments go doc shows for p.
func (p *pkg) collectDocs() {
	add := func(g *ast.CommentGroup, of string) {
		if g != nil {
			p.docs = append(p.docs, docComment{pkg: p, group: g, of: of})
		}
	}
	for _, f := range p.files {
		add(f.Doc, "package "+p.name)
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				name := decl.Name.Name
				if decl.Recv != nil && len(decl.Recv.List) > 0 {
					recv := recvName(decl.Recv.List[0].Type)
					if !ast.IsExported(recv) {
						continue
					}
					name = recv + "." + name
				}
				if decl.Name.IsExported() {
					add(decl.Doc, name)
				}
			case *ast.GenDecl:
				exported := false
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if !spec.Name.IsExported() {
							continue
						}
						exported = true
						add(spec.Doc, spec.Name.Name)
						add(spec.Comment, spec.Name.Name)
						p.collectFields(spec, add)
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							if n.IsExported() {
								exported = true
								add(spec.Doc, n.Name)
								add(spec.Comment, n.Name)
								break
							}
						}
					}
				}
				if exported {
					add(decl.Doc, "declaration at "+p.line(decl.Pos()))
				}
			}
		}
	}
}

// collectFields adds the docs of the exported fields of a struct type and
// the exported methods of an interface type.
func (p *pkg) collectFields(spec *ast.TypeSpec, add func(*ast.CommentGroup, string)) {
	var fields *ast.FieldList
	switch t := spec.Type.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		return
	}
	for _, f := range fields.List {
		names := f.Names
		if len(names) == 0 { // embedded
			if n := recvName(f.Type); ast.IsExported(n) {
				add(f.Doc, spec.Name.Name+"."+n)
				add(f.Comment, spec.Name.Name+"."+n)
			}
			continue
		}
		for _, n := range names {
			if n.IsExported() {
				add(f.Doc, spec.Name.Name+"."+n.Name)
				add(f.Comment, spec.Name.Name+"."+n.Name)
				break
			}
		}
	}
}

// recvName returns the base type name of a receiver or embedded field
// type: T for T, *T, T[P], pkg.T.
func recvName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.SelectorExpr:
			return t.Sel.Name
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}
