package bgcontainer_test

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/internal/bulk/bulktest"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// seqFS hides io.ReaderAt from its files: they can only be read in
// sequence, as a bucket's objects.
type seqFS struct{ fs.FS }

func (s seqFS) Open(name string) (fs.File, error) {
	f, err := s.FS.Open(name)
	if err != nil {
		return nil, err
	}
	if d, ok := f.(fs.ReadDirFile); ok {
		return d, nil // a directory
	}
	return struct{ fs.File }{f}, nil
}

// TestBulkRemoveDirFSToSink: a tree of an fs.FS (files readable only in
// sequence) into a Sink: every image's PNG is published under the
// output prefix, hidden and other files are left out, a publish that
// fails is a failure with nothing published, and a rerun with
// SkipExisting, without a manifest, skips what is there.
func TestBulkRemoveDirFSToSink(t *testing.T) {
	t.Parallel()
	ts := bgmock.Start(t, &bgmock.Options{Activated: true})
	src := fstest.MapFS{}
	var want []string
	for i := range 6 {
		name := []string{"photos/a", "photos/b/c"}[i%2] + "/img" + string(rune('0'+i)) + ".jpg"
		src[name] = &fstest.MapFile{Data: bulkJPEG(t, i)}
		want = append(want, "cut/"+pngName(name[len("photos/"):]))
	}
	src["photos/.hidden.jpg"] = &fstest.MapFile{Data: bulkJPEG(t, 9)}
	src["photos/notes.txt"] = &fstest.MapFile{Data: []byte("text")}
	src["other/img.jpg"] = &fstest.MapFile{Data: bulkJPEG(t, 8)}
	sink := &bulktest.MemSink{}
	sink.SetFail(want[2])
	b := &pfc.BulkOptions[*bgcontainer.Result]{Source: seqFS{src}, Sink: sink, Concurrency: 3}
	rep, err := ts.Client.RemoveDir(t.Context(), "photos", "cut", nil, b)
	require.NoError(t, err)
	assert.Equal(t, 6, rep.Total)
	assert.Equal(t, 5, rep.Done, "%+v", rep.Failures)
	require.Len(t, rep.Failures, 1)
	assert.Equal(t, want[2], rep.Failures[0].Item.DstPath)
	for i, name := range want {
		ok, _ := sink.Exists(t.Context(), name)
		if i == 2 {
			assert.False(t, ok, "a failed publish leaves nothing")
			continue
		}
		require.True(t, ok, name)
		assert.Equal(t, []byte("\x89PNG"), sink.Objects()[name][:4])
	}
	assert.Len(t, sink.Objects(), 5)

	sink.SetFail("")
	b.SkipExisting = true
	rep, err = ts.Client.RemoveDir(t.Context(), "photos", "cut", nil, b)
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Done)
	assert.Equal(t, 5, rep.Skipped)
	assert.Len(t, sink.Objects(), 6)
}

// TestBulkRemoveAllFS: the All variant reads SrcPath from Source and
// publishes DstPath to Sink; a missing input is a "file" failure.
func TestBulkRemoveAllFS(t *testing.T) {
	t.Parallel()
	ts := bgmock.Start(t, &bgmock.Options{Activated: true})
	src := fstest.MapFS{"in/x.jpg": {Data: bulkJPEG(t, 1)}}
	sink := &bulktest.MemSink{}
	items := []pfc.BulkItem{{SrcPath: "in/x.jpg", DstPath: "x.png"}, {SrcPath: "in/gone.jpg", DstPath: "gone.png"}}
	rep, err := ts.Client.RemoveAll(t.Context(), func(yield func(pfc.BulkItem) bool) {
		for _, it := range items {
			if !yield(it) {
				return
			}
		}
	}, nil, &pfc.BulkOptions[*bgcontainer.Result]{Source: src, Sink: sink})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Done)
	require.Len(t, rep.Failures, 1)
	assert.Equal(t, "file", rep.Failures[0].Kind)
	assert.ErrorIs(t, rep.Failures[0].Err, fs.ErrNotExist)
	assert.Equal(t, []byte("\x89PNG"), sink.Objects()["x.png"][:4])
}
