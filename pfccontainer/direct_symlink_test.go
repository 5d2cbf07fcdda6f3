package pfccontainer

import (
	"iter"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// The one HTTP test double of this file: httpmock (mockClient), standing
// in for a container whose /output is a target directory here that it
// filled with something other than a regular file.

// symlinkOrSkip makes link point to target, or skips the test where the
// platform (or its permissions) allows no symbolic links.
func symlinkOrSkip(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

// answering returns a client whose container answers every correction with
// the file name in /output, and the mounted directories.
func answering(t *testing.T, name string) (d *Direct, in, out string) {
	t.Helper()
	c, mt := mockClient(t)
	in, out = t.TempDir(), t.TempDir()
	mt.RegisterResponder(http.MethodGet, `=~^`+testBase+`/pfc/`,
		jsonAnswer(200, `{"corrected_url":"http://localhost/output/`+name+`","scene":1}`))
	return c.Direct(in, out), in, out
}

// assertRefusedOutput checks the error for a result that is no regular file.
func assertRefusedOutput(t *testing.T, err error, name, what string) {
	t.Helper()
	require.ErrorIs(t, err, pfc.ErrInvalidResponse)
	var re *pfc.ResponseError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, string(epCorrect), re.Endpoint)
	assert.Equal(t, "corrected_url", re.Field)
	assert.Contains(t, re.Reason, name)
	assert.Contains(t, re.Reason, what)
	assert.NotErrorIs(t, err, pfc.ErrInvalidParameter, "the container's doing, not the caller's")
}

// TestDirectRefusesSymlinkedOutput: when the file the container names in
// OutputDir is a symbolic link (to a secret elsewhere on this host, or to
// a directory), Correct, CorrectFile and a bulk run refuse it with a
// *pfc.ResponseError; the destination is neither created nor changed, and
// nothing of the link's target is read.
func TestDirectRefusesSymlinkedOutput(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "id_rsa")
	require.NoError(t, os.WriteFile(secret, []byte("SECRET KEY"), 0o600))
	src := filepath.Join(t.TempDir(), "in.jpg")
	require.NoError(t, os.WriteFile(src, []byte("\xff\xd8\xffjpeg"), 0o644))

	for name, target := range map[string]string{"to a file": secret, "to a directory": filepath.Dir(secret)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, _, out := answering(t, "evil.jpg")
			symlinkOrSkip(t, target, filepath.Join(out, "evil.jpg"))

			corr, err := d.GetCorrection(t.Context(), "in.jpg", nil)
			path := pathOf(corr)
			assertRefusedOutput(t, err, "evil.jpg", "symbolic link")
			assert.Nil(t, corr)
			assert.Empty(t, path)

			dst := filepath.Join(t.TempDir(), "result.jpg")
			_, err = d.CorrectFile(t.Context(), src, dst, nil, nil)
			assertRefusedOutput(t, err, "evil.jpg", "symbolic link")
			assert.NoFileExists(t, dst)

			require.NoError(t, os.WriteFile(dst, []byte("earlier result"), 0o644))
			_, err = d.CorrectFile(t.Context(), src, dst, nil, nil)
			assertRefusedOutput(t, err, "evil.jpg", "symbolic link")
			got, _ := os.ReadFile(dst)
			assert.Equal(t, "earlier result", string(got))

			bulkDst := filepath.Join(t.TempDir(), "bulk.jpg")
			rep, err := d.CorrectAll(t.Context(), iter.Seq[pfc.BulkItem](func(yield func(pfc.BulkItem) bool) {
				yield(pfc.BulkItem{SrcPath: src, DstPath: bulkDst})
			}), nil, nil)
			require.NoError(t, err)
			require.Len(t, rep.Failures, 1)
			assertRefusedOutput(t, rep.Failures[0].Err, "evil.jpg", "symbolic link")
			assert.NoFileExists(t, bulkDst)
		})
	}
}

// TestDirectRefusesLateSymlink: a result that was a regular file when the
// answer came but is a symbolic link by the time it is copied is refused
// by the copy itself (opened without following links), dst unchanged.
func TestDirectRefusesLateSymlink(t *testing.T) {
	t.Parallel()
	d, _, out := answering(t, "late.jpg")
	secret := filepath.Join(t.TempDir(), "id_rsa")
	require.NoError(t, os.WriteFile(secret, []byte("SECRET KEY"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(out, "late.jpg"), []byte("corrected"), 0o644))
	corr, err := d.GetCorrection(t.Context(), "in.jpg", nil)
	require.NoError(t, err)
	path := corr.Path
	assert.Equal(t, filepath.Join(out, "late.jpg"), path)

	symlinkOrSkip(t, secret, filepath.Join(out, "link"))
	require.NoError(t, os.Rename(filepath.Join(out, "link"), path))
	dst := filepath.Join(t.TempDir(), "result.jpg")
	require.NoError(t, os.WriteFile(dst, []byte("earlier result"), 0o644))
	assertRefusedOutput(t, d.copyOutput(t.Context(), nil, path, dst), "late.jpg", "symbolic link")
	got, _ := os.ReadFile(dst)
	assert.Equal(t, "earlier result", string(got))
}

// TestDirectRefusesDirectoryOutput: a directory of the answered name in
// OutputDir is the container's fault too (it used to be reported as the
// caller's invalid parameter).
func TestDirectRefusesDirectoryOutput(t *testing.T) {
	t.Parallel()
	d, _, out := answering(t, "dir.jpg")
	require.NoError(t, os.Mkdir(filepath.Join(out, "dir.jpg"), 0o755))
	_, err := d.GetCorrection(t.Context(), "in.jpg", nil)
	assertRefusedOutput(t, err, "dir.jpg", "not a regular file")
}

// TestDirectFollowsTheCallersLinks: the caller's own source may be a
// symbolic link (its target is what reaches /input), and a regular result
// in OutputDir is copied as before.
func TestDirectFollowsTheCallersLinks(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	in, out := t.TempDir(), t.TempDir()
	var copied []byte
	mt.RegisterResponder(http.MethodGet, `=~^`+testBase+`/pfc/`, func(r *http.Request) (*http.Response, error) {
		copied, _ = os.ReadFile(filepath.Join(in, path.Base(r.URL.Path)))
		if err := os.WriteFile(filepath.Join(out, "shot.jpg"), []byte("corrected"), 0o644); err != nil {
			return nil, err
		}
		return jsonResp(200, `{"corrected_url":"http://localhost/output/shot.jpg","scene":1}`), nil
	})
	target := filepath.Join(t.TempDir(), "target.jpg")
	require.NoError(t, os.WriteFile(target, []byte("\xff\xd8\xffjpeg"), 0o644))
	src := filepath.Join(t.TempDir(), "shot.jpg")
	symlinkOrSkip(t, target, src)

	dst := filepath.Join(t.TempDir(), "result.jpg")
	corr, err := c.Direct(in, out).CorrectFile(t.Context(), src, dst, nil, nil)
	require.NoError(t, err)
	res := corr.Path
	assert.Equal(t, dst, res)
	got, _ := os.ReadFile(dst)
	assert.Equal(t, "corrected", string(got))
	assert.Equal(t, "\xff\xd8\xffjpeg", string(copied), "the link's target was copied in")
}

// pathOf is the Path of corr, "" for nil.
func pathOf(corr *Correction) string {
	if corr == nil {
		return ""
	}
	return corr.Path
}
