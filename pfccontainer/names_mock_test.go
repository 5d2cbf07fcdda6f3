package pfccontainer_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
)

// TestMockResumeNonUTF8Names: a file whose name is not valid UTF-8 (Linux
// allows bytes 0x80-0xff in names) is corrected, over HTTP and in direct
// file mode, and a rerun of the same folder skips it: the second run
// corrects nothing.
func TestMockResumeNonUTF8Names(t *testing.T) {
	t.Parallel()
	for _, direct := range []bool{false, true} {
		root := filepath.Join(t.TempDir(), "mounts")
		_, c, logs := start(t, &pfcmock.Options{Root: root})
		in, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
		names := []string{"caf\xe9.jpg", "\xff\xfe.jpg", "ok.jpg"}
		for i, n := range names {
			if err := os.WriteFile(filepath.Join(in, n), jpegOf(t, 48, 40, i), 0o644); err != nil {
				t.Skipf("the file system refuses the name %q: %v", n, err)
			}
		}
		d := c.Direct(filepath.Join(root, "input"), filepath.Join(root, "output"))
		for run := 1; run <= 2; run++ {
			correctDir := c.CorrectDir
			if direct {
				correctDir = d.CorrectDir
			}
			rep, err := correctDir(t.Context(), in, out, nil, nil)
			require.NoError(t, err)
			if run == 1 {
				require.Equal(t, len(names), rep.Done, "direct=%v: %+v", direct, rep.Failures)
				continue
			}
			assert.Zero(t, rep.Done, "direct=%v: nothing is corrected again", direct)
			assert.Equal(t, len(names), rep.Skipped, "direct=%v", direct)
		}
		assert.Len(t, logs.lines(t, "correctedMessage"), len(names), "direct=%v: one correction per file in all", direct)
		for _, n := range names {
			assert.FileExists(t, filepath.Join(out, n))
		}
	}
}
