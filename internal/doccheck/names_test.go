package doccheck

import (
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// unexportedNames returns the unexported names p declares at top level:
// functions, methods, types, variables and constants.
func (p *pkg) unexportedNames() map[string]bool {
	names := map[string]bool{}
	add := func(id *ast.Ident) {
		if id.Name != "_" && !id.IsExported() {
			names[id.Name] = true
		}
	}
	for _, f := range p.files {
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				add(decl.Name)
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						add(spec.Name)
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							add(n)
						}
					}
				}
			}
		}
	}
	return names
}

// fileOf returns the file of p that holds pos.
func (p *pkg) fileOf(pos token.Pos) *ast.File {
	for _, f := range p.files {
		if f.FileStart <= pos && pos <= f.FileEnd {
			return f
		}
	}
	return nil
}

// internalImports returns the names under which f imports internal
// packages.
func internalImports(f *ast.File) []string {
	var names []string
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if !strings.Contains(path+"/", "/internal/") {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names = append(names, name)
	}
	return names
}

var wordRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// identLike reports whether a word reads as an identifier rather than
// English: it has an upper-case letter after the first, a digit or an
// underscore. All-lower-case names (key, backend) are words too, and are
// not checked.
func identLike(w string) bool {
	return strings.ContainsAny(w[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") || strings.Contains(w, "_")
}

// TestDocsNameNoUnexported checks that no doc comment go doc shows names
// what a user of the package cannot see: an unexported top-level name of
// its package written like an identifier (defaultTolerance, headerID), or
// a name qualified by an internal package the file imports
// (bulk.Manifest).
func TestDocsNameNoUnexported(t *testing.T) {
	t.Parallel()
	for _, p := range publicPackages(t) {
		unexported := p.unexportedNames()
		for _, d := range p.docs {
			var qualified *regexp.Regexp
			if names := internalImports(p.fileOf(d.group.Pos())); len(names) > 0 {
				qualified = regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\.[A-Za-z_]\w*`)
			}
			lines, numbers := d.rawLines()
			for i, line := range lines {
				at := p.file(d.group.Pos()) + ":" + strconv.Itoa(numbers[i])
				for _, w := range wordRE.FindAllString(line, -1) {
					if unexported[w] && identLike(w) {
						t.Errorf("%s: the doc of %s names %s, unexported in package %s: say what it is instead", at, d.of, w, p.name)
					}
				}
				if qualified != nil {
					for _, m := range qualified.FindAllString(line, -1) {
						t.Errorf("%s: the doc of %s names %s, of an internal package", at, d.of, m)
					}
				}
			}
		}
	}
}

// kindWords maps the words that say what a glob names to the kind of
// declaration it must match.
var kindWords = map[string]string{
	"setter": "method", "setters": "method", "method": "method", "methods": "method",
	"field": "field", "fields": "field",
	"constant": "const", "constants": "const",
	"function": "func", "functions": "func", "option": "func", "options": "func",
	"type": "type", "types": "type",
}

// exportedByKind returns p's exported names by kind: "method" (of
// exported types), "field" (of exported struct types), "const", "var",
// "func" and "type".
func (p *pkg) exportedByKind() map[string][]string {
	out := map[string][]string{}
	for _, f := range p.files {
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if !decl.Name.IsExported() {
					continue
				}
				if decl.Recv == nil {
					out["func"] = append(out["func"], decl.Name.Name)
				} else if ast.IsExported(recvName(decl.Recv.List[0].Type)) {
					out["method"] = append(out["method"], decl.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if !spec.Name.IsExported() {
							continue
						}
						out["type"] = append(out["type"], spec.Name.Name)
						if st, ok := spec.Type.(*ast.StructType); ok {
							for _, fld := range st.Fields.List {
								for _, n := range fld.Names {
									if n.IsExported() {
										out["field"] = append(out["field"], n.Name)
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							if n.IsExported() {
								kind := "var"
								if decl.Tok == token.CONST {
									kind = "const"
								}
								out[kind] = append(out[kind], n.Name)
							}
						}
					}
				}
			}
		}
	}
	return out
}

var globRE = regexp.MustCompile(`\b(?:([a-z]\w*)\.)?([A-Z]\w*)\*(\W|$)`)

// TestDocGlobsNameFamilies checks that a family of names written as a glob
// ("every Resize* setter", "a Preset* constant", "pfc.With*") has members:
// an exported name of that kind (the word after the glob, or the nearest
// one before it in the sentence: setter, field, constant ...; any kind
// when none says) that starts with the glob's prefix and is longer.
func TestDocGlobsNameFamilies(t *testing.T) {
	t.Parallel()
	pkgs := publicPackages(t)
	byName := map[string]*pkg{}
	for _, p := range pkgs {
		byName[p.name] = p
	}
	for _, p := range pkgs {
		for _, d := range p.docs {
			lines, numbers := d.rawLines()
			for i, line := range lines {
				for _, m := range globRE.FindAllStringSubmatchIndex(line, -1) {
					if strings.Contains(line[m[4]:m[5]], "_") {
						continue // PFC_*: environment variables, not Go
					}
					target := p
					if m[2] >= 0 {
						q := byName[line[m[2]:m[3]]]
						if q == nil {
							continue // not a package: "a.B*" in prose
						}
						target = q
					}
					prefix := line[m[4]:m[5]]
					kind := globKind(lines, i, m[0], m[1])
					var candidates []string
					for k, names := range target.exportedByKind() {
						if kind == "" || k == kind {
							candidates = append(candidates, names...)
						}
					}
					found := false
					for _, n := range candidates {
						if len(n) > len(prefix) && strings.HasPrefix(n, prefix) {
							found = true
							break
						}
					}
					if !found {
						what := "name"
						if kind != "" {
							what = kind
						}
						t.Errorf("%s:%d: the doc of %s names %s*, but package %s has no exported %s starting with %s",
							p.file(d.group.Pos()), numbers[i], d.of, prefix, target.name, what, prefix)
					}
				}
			}
		}
	}
}

// globKind returns the kind of declaration a glob at line[start:end] names:
// that of the word right after it, else that of the nearest kind word
// before it in the same sentence; "" when none says.
func globKind(lines []string, i, start, end int) string {
	if w := wordRE.FindString(lines[i][end:]); w != "" && strings.Index(lines[i][end:], w) <= 1 {
		if k, ok := kindWords[w]; ok {
			return k
		}
	}
	before := lines[i][:start]
	for j := i - 1; j >= 0 && !strings.Contains(before, ". "); j-- {
		before = lines[j] + " " + before
	}
	if k := strings.LastIndex(before, ". "); k >= 0 {
		before = before[k+2:]
	}
	words := wordRE.FindAllString(before, -1)
	for k := len(words) - 1; k >= 0; k-- {
		if kind, ok := kindWords[words[k]]; ok {
			return kind
		}
	}
	return ""
}
