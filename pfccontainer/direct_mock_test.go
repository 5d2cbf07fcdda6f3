package pfccontainer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// TestMockDirectFileMode: direct file mode end to end with real mount
// directories: the file is copied into /input atomically under a name of
// the call's own that ends in its name, corrected by that name with no
// upload, and read back from /output under the same name
// (PFC_PRESERVE_INPUT_FILENAME=true); both copies are removed once the
// result is at its destination. With preserveInputFileName=false the
// output gets a generated name, still found through the answer.
func TestMockDirectFileMode(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mounts")
	ts, c, logs := start(t, &pfcmock.Options{Root: root, PreserveInputFileName: true})
	ctx := t.Context()
	d := c.Direct(filepath.Join(root, "input"), filepath.Join(root, "output"))
	assert.Equal(t, ts.Mock.InputDir(), d.InputDir)

	src := filepath.Join(t.TempDir(), "Holiday 01.jpg")
	require.NoError(t, os.WriteFile(src, jpegOf(t, 100, 60, 9), 0o644))
	dst := filepath.Join(t.TempDir(), "result.png")
	corr, err := d.CorrectFile(ctx, src, dst, pfccontainer.NewCorrection().WithOutput(pfc.OutputPNG, 0).WithWidth(50), nil)
	require.NoError(t, err)
	path := corr.Path
	assert.Equal(t, dst, path)
	assert.Regexp(t, `^pfc-[0-9a-f]{16}-1-Holiday 01\.jpg$`, corr.FileName(), "the output keeps the input's name")
	assert.NoFileExists(t, filepath.Join(d.OutputDir, corr.FileName()), "removed once copied to dst")
	assert.NoFileExists(t, filepath.Join(d.InputDir, corr.FileName()), "removed once corrected")
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	format, w, h := decodeConfig(t, got)
	assert.Equal(t, "png", format)
	assert.Equal(t, []int{50, 30}, []int{w, h})
	assert.Empty(t, logs.lines(t, "uploadedMessage"), "no upload step")

	// Put, then Correct with a generated output name.
	f, err := os.Open(src)
	require.NoError(t, err)
	defer f.Close()
	name, err := d.Put(ctx, "second.jpg", f)
	require.NoError(t, err)
	corr, err = d.GetCorrection(ctx, name, pfccontainer.NewCorrection().WithPreserveInputFileName(false))
	require.NoError(t, err)
	out := corr.Path
	assert.NotEqual(t, "second.jpg", corr.FileName())
	assert.True(t, strings.HasPrefix(out, d.OutputDir+string(filepath.Separator)), out)
	assert.FileExists(t, out)

	// Nothing hidden is left in /input: the copies were renamed into place;
	// Put's file, named by the caller, is the caller's to keep.
	assert.Equal(t, []string{"second.jpg"}, entries(t, d.InputDir))

	// A name the container does not have.
	_, err = d.GetCorrection(ctx, "missing.jpg", nil)
	assert.ErrorIs(t, err, pfccontainer.ErrUnknownImageKey)
}
