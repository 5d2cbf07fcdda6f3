package bulk

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
)

// countFS counts the opens of its regular files and hides their
// io.ReaderAt, as an object store's reader would.
type countFS struct {
	fs.FS
	opens atomic.Int32
}

func (c *countFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	if d, ok := f.(fs.ReadDirFile); ok {
		return d, nil
	}
	c.opens.Add(1)
	return struct{ fs.File }{f}, nil
}

// TestOpenInputRereads: an input read in sequence reads again, from a
// reopened file, when an upload is retried from its start; a read
// forward skips; an input whose size changed fails with
// ErrSourceChanged; a closed one reads nothing.
func TestOpenInputRereads(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("0123456789"), 1000)
	m := fstest.MapFS{"a/b.jpg": {Data: data}}
	src := &countFS{FS: m}
	in, size, err := OpenInput(context.Background(), nil, src, "a/b.jpg")
	require.NoError(t, err)
	require.EqualValues(t, len(data), size)
	for attempt := range 2 {
		head := make([]byte, 512) // a content type sniffed first
		_, err := in.ReadAt(head, 0)
		require.NoError(t, err)
		got, err := io.ReadAll(io.NewSectionReader(in, 0, size))
		require.NoError(t, err)
		assert.Equal(t, data, got, "attempt %d", attempt)
	}
	assert.EqualValues(t, 2, src.opens.Load(), "one open per attempt, nothing buffered")
	p := make([]byte, 5)
	n, err := in.ReadAt(p, 9995)
	assert.Equal(t, 5, n)
	assert.ErrorIs(t, err, io.EOF)
	assert.Equal(t, "56789", string(p))

	m["a/b.jpg"] = &fstest.MapFile{Data: data[:10]}
	_, err = in.ReadAt(make([]byte, 1000), 0)
	assert.ErrorIs(t, err, ErrSourceChanged, "a read past the head reopens the changed file")
	require.NoError(t, in.Close())
	_, err = in.ReadAt(p, 0)
	assert.Error(t, err)

	_, _, err = OpenInput(context.Background(), nil, src, "a")
	assert.Error(t, err, "a directory is no input")
	_, _, err = OpenInput(context.Background(), nil, src, "missing.jpg")
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// TestFSDir lists an fs.FS as Dir lists a folder.
func TestFSDir(t *testing.T) {
	t.Parallel()
	m := fstest.MapFS{
		"in/a.jpg": {}, "in/sub/b.PNG": {}, "in/.hid.jpg": {}, "in/.hd/c.jpg": {}, "in/d.txt": {}, "top.jpg": {},
		// An object store's objects are irregular files; a link is no input.
		"in/obj.jpg": {Mode: fs.ModeIrregular}, "in/link.jpg": {Mode: fs.ModeSymlink},
	}
	items, err := FSDir(m, "in", "out", true, DirOptions{Rename: func(rel string) string { return rel + ".x" }})
	require.NoError(t, err)
	assert.Equal(t, []Item{{ID: "a.jpg", Src: "in/a.jpg", Dst: "out/a.jpg.x"}, {ID: "obj.jpg", Src: "in/obj.jpg", Dst: "out/obj.jpg.x"},
		{ID: "sub/b.PNG", Src: "in/sub/b.PNG", Dst: "out/sub/b.PNG.x"}}, items)
	items, err = FSDir(m, ".", ".", true, DirOptions{})
	require.NoError(t, err)
	var ids []string
	for _, it := range items {
		assert.Equal(t, it.ID, it.Dst, "the root into the sink's root")
		ids = append(ids, it.ID)
	}
	assert.Equal(t, []string{"in/a.jpg", "in/obj.jpg", "in/sub/b.PNG", "top.jpg"}, ids)
	_, _, err = OpenInput(context.Background(), nil, m, "in/link.jpg")
	assert.ErrorIs(t, err, fileio.ErrNotRegular, "a link is refused")
	for _, bad := range [][2]string{{"../in", "out"}, {"/in", "out"}, {"in", ""}, {"in", "../out"}} {
		_, err := FSDir(m, bad[0], bad[1], true, DirOptions{})
		var ve *apierr.ValidationError
		require.ErrorAs(t, err, &ve, "%q", bad)
	}
}

// TestDirSinkAllOrNothing: a failed write or a context ended before
// the publish leaves nothing (no output, no temporary file); a name
// outside the folder is refused.
func TestDirSinkAllOrNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := DirSink{Dir: dir}
	boom := errors.New("boom")
	err := s.Put(context.Background(), "a/x.png", func(w io.Writer) error {
		_, _ = w.Write([]byte("half"))
		return boom
	})
	assert.ErrorIs(t, err, boom)
	ctx, cancel := context.WithCancel(context.Background())
	err = s.Put(ctx, "a/y.png", func(w io.Writer) error {
		_, _ = w.Write([]byte("all"))
		cancel()
		return nil
	})
	assert.ErrorIs(t, err, context.Canceled)
	ents, _ := os.ReadDir(filepath.Join(dir, "a"))
	assert.Empty(t, ents, "nothing published, no temporary file left")
	require.NoError(t, s.Put(context.Background(), "a/z.png", func(w io.Writer) error { _, err := w.Write([]byte("z")); return err }))
	ok, err := s.Exists(context.Background(), "a/z.png")
	assert.True(t, ok)
	assert.NoError(t, err)
	for _, bad := range []string{"../x", "/x", "", ".", "a/../../x"} {
		err := s.Put(context.Background(), bad, func(io.Writer) error { return nil })
		var ve *apierr.ValidationError
		assert.ErrorAs(t, err, &ve, "%q", bad)
		_, err = s.Exists(context.Background(), bad)
		assert.Error(t, err)
	}
}

// TestRunSkipExisting: without a manifest, SkipExisting skips the items
// whose output exists, in a sink or as files.
func TestRunSkipExisting(t *testing.T) {
	t.Parallel()
	items := makeInputs(t, t.TempDir(), 6)
	require.NoError(t, os.MkdirAll(filepath.Dir(items[0].Dst), 0o755))
	require.NoError(t, os.WriteFile(items[1].Dst, []byte("earlier"), 0o644))
	w := &copyWork{}
	rep, err := Run(context.Background(), slices.Values(items), w.do, Options[string]{SkipExisting: true})
	require.NoError(t, err)
	assert.Equal(t, 5, rep.Done)
	assert.Equal(t, 1, rep.Skipped)
	assert.Zero(t, w.count(items[1].ID))

	sink := DirSink{Dir: t.TempDir()}
	require.NoError(t, sink.Put(context.Background(), "o/img0002.jpg", func(w io.Writer) error { return nil }))
	var sinkItems []Item
	for _, it := range items {
		sinkItems = append(sinkItems, Item{ID: it.ID, Src: it.ID, Dst: "o/" + it.ID})
	}
	src := os.DirFS(filepath.Dir(items[0].Src))
	work := func(ctx context.Context, it Item) (int, error) {
		in, size, err := OpenInput(ctx, nil, src, it.Src)
		if err != nil {
			return 0, err
		}
		defer in.Close()
		return 0, WriteOutput(ctx, nil, sink, it.Dst, func(w io.Writer) error {
			_, err := io.Copy(w, io.NewSectionReader(in, 0, size))
			return err
		})
	}
	rep2, err := Run(context.Background(), slices.Values(sinkItems), work, Options[int]{Source: src, Sink: sink, SkipExisting: true})
	require.NoError(t, err)
	assert.Equal(t, 5, rep2.Done, "%+v", rep2.Failures)
	assert.Equal(t, 1, rep2.Skipped)
	assert.EqualValues(t, 6*len("input img0000.jpg"), rep2.Bytes+int64(len("input img0000.jpg")), "sizes from the source")
	got, err := os.ReadFile(filepath.Join(sink.Dir, "o", items[3].ID))
	require.NoError(t, err)
	assert.Equal(t, "input "+items[3].ID, string(got))
}
