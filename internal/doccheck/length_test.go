package doccheck

import (
	"testing"
)

// maxPackageDocLines is the house limit on a package doc: what a reader
// of go doc sees first; the rest belongs on the declarations.
const maxPackageDocLines = 150

// TestPackageDocsWithinLimit holds every public package doc to
// maxPackageDocLines comment lines.
func TestPackageDocsWithinLimit(t *testing.T) {
	t.Parallel()
	for _, p := range publicPackages(t) {
		for _, f := range p.files {
			if f.Doc == nil {
				continue
			}
			start := p.fset.Position(f.Doc.Pos()).Line
			end := p.fset.Position(f.Doc.End()).Line
			if n := end - start + 1; n > maxPackageDocLines {
				t.Errorf("%s: package doc of %d lines, want at most %d", p.line(f.Doc.Pos()), n, maxPackageDocLines)
			}
		}
	}
}
