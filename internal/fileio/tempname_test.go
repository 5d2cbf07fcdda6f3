package fileio

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tempName is the shape of WriteFileAtomic's temporary files, which the
// bulk runner's cleanup (internal/bulk staleTemp) recognises: a dot, a
// non-empty name, a dot, digits, ".partial".
var tempName = regexp.MustCompile(`^\.(.+)\.([0-9]+)\.partial$`)

// TestTempPattern: whatever the length of the name, the temporary name
// keeps its shape and stays within 255 bytes with the longest random part
// (10 digits), its name part a valid UTF-8 prefix of a UTF-8 name.
func TestTempPattern(t *testing.T) {
	t.Parallel()
	assert.Equal(t, ".a.jpg.*.partial", tempPattern("a.jpg", ""), "short names are kept whole")
	for _, unit := range []string{"a", "é", "日", "🙂", "aé", "a日", "a🙂"} {
		for n := 1; n*len(unit) <= 300; n++ {
			base := strings.Repeat(unit, n)
			name := strings.Replace(tempPattern(base, ""), "*", "4294967295", 1)
			require.LessOrEqual(t, len(name), 255, "%d bytes of %q", len(base), unit)
			m := tempName.FindStringSubmatch(name)
			require.NotNil(t, m, name)
			assert.True(t, strings.HasPrefix(base, m[1]), "%q is a prefix of the name", m[1])
			assert.True(t, utf8.ValidString(m[1]), "cut on a rune boundary: %q", m[1])
			if len(base) <= 235 {
				assert.Equal(t, base, m[1], "kept whole while it fits")
			}
		}
	}
	assert.Equal(t, "."+strings.Repeat("\xff", 235)+".*.partial", tempPattern(strings.Repeat("\xff", 300), ""), "not UTF-8: cut at the byte")
}

// TestWriteFileAtomicLongName: a destination name of 255 bytes, the most a
// file system takes and what pfccontainer.ValidateImageKey accepts, is
// written; its temporary file (seen while write runs) fits too and has
// the shape the bulk cleanup looks for.
func TestWriteFileAtomicLongName(t *testing.T) {
	t.Parallel()
	for name, base := range map[string]string{
		"ascii":     strings.Repeat("a", 251) + ".jpg",
		"two bytes": strings.Repeat("é", 125) + "x.jpg",
		"longest":   strings.Repeat("b", 255),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.Len(t, base, 255)
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "probe"+base[5:]), nil, 0o644); err != nil {
				t.Skipf("this file system takes no 255-byte names: %v", err)
			}
			require.NoError(t, os.Remove(filepath.Join(dir, "probe"+base[5:])))
			dst := filepath.Join(dir, base)
			var seen []string
			require.NoError(t, WriteFileAtomic(dst, func(w io.Writer) error {
				ents, err := os.ReadDir(dir)
				require.NoError(t, err)
				for _, e := range ents {
					seen = append(seen, e.Name())
				}
				_, err = io.WriteString(w, "corrected")
				return err
			}))
			require.Len(t, seen, 1, "only the temporary file while writing")
			assert.LessOrEqual(t, len(seen[0]), 255)
			m := tempName.FindStringSubmatch(seen[0])
			require.NotNil(t, m, seen[0])
			assert.True(t, strings.HasPrefix(base, m[1]))
			got, err := os.ReadFile(dst)
			require.NoError(t, err)
			assert.Equal(t, "corrected", string(got))
			assertOnly(t, dir, base)
		})
	}
}
