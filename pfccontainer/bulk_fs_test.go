package pfccontainer_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/bulk/bulktest"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// TestMockCorrectDirFS: an fs.FS into a folder (with its manifest) and
// a folder into a Sink; direct file mode refuses both.
func TestMockCorrectDirFS(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mounts")
	_, c, _ := start(t, &pfcmock.Options{Root: root, Unlicensed: true})
	src := fstest.MapFS{"a.jpg": {Data: jpegOf(t, 48, 40, 1)}, "s/b.jpg": {Data: jpegOf(t, 48, 40, 2)}}
	out := filepath.Join(t.TempDir(), "out")
	rep, err := c.CorrectDir(t.Context(), ".", out, nil, &pfc.BulkOptions[*pfccontainer.Correction]{Source: src})
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Done, "%+v", rep.Failures)
	assert.FileExists(t, filepath.Join(out, "s", "b.jpg"))
	assert.FileExists(t, filepath.Join(out, ".pfc-bulk.jsonl"))

	in := t.TempDir()
	writeImages(t, in, 3)
	sink := &bulktest.MemSink{}
	rep, err = c.CorrectDir(t.Context(), in, "x", nil, &pfc.BulkOptions[*pfccontainer.Correction]{Sink: sink})
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Done, "%+v", rep.Failures)
	assert.Len(t, sink.Objects(), 3)
	assert.Contains(t, sink.Objects(), "x/sub/img001.jpg")
	ents, err := os.ReadDir(in)
	require.NoError(t, err)
	assert.Len(t, ents, 3, "nothing written into the input folder")

	var ve *pfc.ValidationError
	_, err = c.Direct(filepath.Join(root, "input"), filepath.Join(root, "output")).CorrectDir(t.Context(), in, "x", nil,
		&pfc.BulkOptions[*pfccontainer.Correction]{Sink: sink})
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, err.Error(), "Source")
}
