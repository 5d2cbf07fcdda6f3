package bulk

import (
	"context"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/bulk/bulktest"
	"github.com/pfcsdk/pfc-go/pfc"
)

// hostileFS is a source file system that lies: its entries, files,
// sizes and reads are what the test sets.
type hostileFS struct {
	fstest.MapFS
	entries []string // ReadDir("in") answers these names, as files
	nilFile bool     // Open answers a nil file and no error
	size    int64    // the files' Stat size
	over    int      // Read and ReadAt claim this many bytes more than room
	readAt  bool     // the files are io.ReaderAt
}

type hostileEntry struct{ name string }

func (e hostileEntry) Name() string               { return e.name }
func (e hostileEntry) IsDir() bool                { return false }
func (e hostileEntry) Type() fs.FileMode          { return 0 }
func (e hostileEntry) Info() (fs.FileInfo, error) { return hostileInfo{e.name, 1}, nil }

type hostileInfo struct {
	name string
	size int64
}

func (i hostileInfo) Name() string       { return i.name }
func (i hostileInfo) Size() int64        { return i.size }
func (i hostileInfo) Mode() fs.FileMode  { return 0 }
func (i hostileInfo) ModTime() time.Time { return time.Time{} }
func (i hostileInfo) IsDir() bool        { return false }
func (i hostileInfo) Sys() any           { return nil }

func (h *hostileFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "in" {
		return h.MapFS.ReadDir(name)
	}
	var out []fs.DirEntry
	for _, e := range h.entries {
		out = append(out, hostileEntry{e})
	}
	return out, nil
}

type hostileFile struct {
	h *hostileFS
}

type hostileFileAt struct{ hostileFile }

func (f hostileFile) Stat() (fs.FileInfo, error) { return hostileInfo{"x.jpg", f.h.size}, nil }
func (f hostileFile) Close() error               { return nil }
func (f hostileFile) Read(p []byte) (int, error) { return len(p) + f.h.over, nil }
func (f hostileFileAt) ReadAt(p []byte, _ int64) (int, error) {
	return len(p) + f.h.over, nil
}

func (h *hostileFS) Open(name string) (fs.File, error) {
	if name == "in" || name == "." {
		return h.MapFS.Open(name)
	}
	switch {
	case h.nilFile:
		return nil, nil
	case h.readAt:
		return hostileFileAt{hostileFile{h}}, nil
	}
	return hostileFile{h}, nil
}

// TestFSDirRefusesEscapingEntries: a source whose listing names an
// entry "../x" or "a/b" fails the listing; no item would put its output
// outside outDir.
func TestFSDirRefusesEscapingEntries(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	for _, name := range []string{"../../escape.jpg", "a/../../b.jpg", "..", "sub/x.jpg"} {
		h := &hostileFS{MapFS: fstest.MapFS{"in/ok.jpg": {}}, entries: []string{"ok.jpg", name}}
		for _, sinkOut := range []bool{false, true} {
			dst := out
			if sinkOut {
				dst = "out"
			}
			items, err := FSDir(h, "in", dst, sinkOut, DirOptions{Exts: []string{".jpg", ""}})
			require.ErrorIs(t, err, fs.ErrInvalid, "entry %q", name)
			assert.Empty(t, items)
		}
	}
	h := &hostileFS{MapFS: fstest.MapFS{"in/ok.jpg": {}}, entries: []string{"ok.jpg"}}
	items, err := FSDir(h, "in", out, false, DirOptions{})
	require.NoError(t, err)
	assert.Equal(t, []Item{{ID: "ok.jpg", Src: "in/ok.jpg", Dst: filepath.Join(out, "ok.jpg")}}, items)
}

// TestOpenInputHostileFiles: a nil file, a negative size, or a read
// claiming more bytes than it had room for is an error, not a panic.
func TestOpenInputHostileFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, _, err := OpenInput(ctx, nil, &hostileFS{nilFile: true}, "x.jpg")
	assert.ErrorIs(t, err, fs.ErrInvalid)
	_, _, err = OpenInput(ctx, nil, &hostileFS{size: -1}, "x.jpg")
	assert.ErrorIs(t, err, fs.ErrInvalid)
	_, _, err = OpenInput(ctx, nil, &hostileFS{size: 4096, over: 7}, "x.jpg")
	assert.ErrorIs(t, err, errBadCount, "the head's read")
	for _, readAt := range []bool{false, true} {
		h := &hostileFS{size: 1 << 20, readAt: readAt}
		in, size, err := OpenInput(ctx, nil, h, "x.jpg")
		require.NoError(t, err)
		h.over = 1 << 10
		_, err = io.Copy(io.Discard, io.NewSectionReader(in, 0, size))
		assert.ErrorIs(t, err, errBadCount, "readAt=%v", readAt)
		require.NoError(t, in.Close())
	}
}

// nilStatFS answers Stat with no information and no error.
type nilStatFS struct{ fstest.MapFS }

func (nilStatFS) Stat(string) (fs.FileInfo, error) { return nil, nil }

// TestRunHostileStat: a source whose Stat answers nothing does not
// crash the run; the work's own open decides.
func TestRunHostileStat(t *testing.T) {
	t.Parallel()
	src := nilStatFS{fstest.MapFS{"a.jpg": {Data: []byte("x")}}}
	rep, err := Run(context.Background(), func(yield func(Item) bool) { yield(Item{Src: "a.jpg", Dst: "a.png"}) },
		func(ctx context.Context, it Item) (int, error) {
			in, _, err := OpenInput(ctx, nil, src, it.Src)
			if err != nil {
				return 0, err
			}
			return 0, in.Close()
		}, Options[int]{Source: src, Sink: DirSink{Dir: t.TempDir()}})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Done)
}

// lazySink reports success after calling write n times.
type lazySink struct{ n int }

func (s lazySink) Put(_ context.Context, _ string, write func(io.Writer) error) error {
	for range s.n {
		if err := write(io.Discard); err != nil {
			return err
		}
	}
	return nil
}

func (lazySink) Exists(context.Context, string) (bool, error) { return false, nil }

// TestWriteOutputSinkMisuse: a sink that never calls write, or calls it
// twice, fails the output instead of reporting one that was not written
// (once).
func TestWriteOutputSinkMisuse(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 2} {
		writes := 0
		err := WriteOutput(context.Background(), nil, lazySink{n}, "a.png", func(io.Writer) error { writes++; return nil })
		assert.Error(t, err, "%d calls", n)
		assert.ErrorIs(t, err, ErrSinkMisuse, "%d calls", n)
		assert.LessOrEqual(t, writes, 1)
	}
	assert.NoError(t, WriteOutput(context.Background(), nil, lazySink{1}, "a.png", func(io.Writer) error { return nil }))
}

// TestRunRefusesNamesOutsideSourceAndSink: with a Source or a Sink, an
// item's SrcPath or DstPath that is no io/fs name (absolute, "..", "."
// elements, empty elements) is refused before its job starts, naming the
// field, in a run and in a dry run: a Sink that takes any name (as
// bulktest.MemSink does) is never handed one, and no job is paid for an output
// that could not be published.
func TestRunRefusesNamesOutsideSourceAndSink(t *testing.T) {
	t.Parallel()
	src := fstest.MapFS{"a.jpg": {Data: []byte("a")}}
	bad := []Item{
		{ID: "1", Src: "a.jpg", Dst: "../escape.png"},
		{ID: "2", Src: "a.jpg", Dst: "/abs.png"},
		{ID: "3", Src: "a.jpg", Dst: "o/../../up.png"},
		{ID: "4", Src: "a.jpg", Dst: "o//x.png"},
		{ID: "5", Src: "../a.jpg", Dst: "o/5.png"},
		{ID: "6", Src: "/a.jpg", Dst: "o/6.png"},
	}
	for _, dry := range []bool{false, true} {
		sink := &bulktest.MemSink{}
		var starts atomic.Int32
		o := Options[int]{Source: src, Sink: sink, DryRun: dry,
			Start: func(context.Context, Item, Started) (int, error) { starts.Add(1); return 0, nil }}
		rep, err := Run(context.Background(), slices.Values(bad), nil, o)
		require.NoError(t, err)
		refused := rep.Failures
		if dry {
			refused = rep.Plan.Refused
		}
		require.Len(t, refused, len(bad), "dry %v", dry)
		for i, f := range refused {
			var ve *pfc.ValidationError
			require.ErrorAs(t, f.Err, &ve, "dry %v item %s", dry, f.Item.ID)
			want := "DstPath"
			if i >= 4 {
				want = "SrcPath"
			}
			assert.Equal(t, []string{want}, ve.Fields(), "dry %v item %s", dry, f.Item.ID)
		}
		assert.Zero(t, starts.Load(), "dry %v", dry)
		assert.Zero(t, sink.Puts(), "dry %v", dry)
	}
}
