package pfcblob_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/pfcsdk/pfc-go/contrib/pfcblob"
	"github.com/pfcsdk/pfc-go/pfc"
)

// big is larger than the s3 uploader's 5 MiB part: its upload is a
// multipart one, parts sent before the writer is closed.
const big = 12 << 20

// keys lists the bucket's objects.
func keys(t *testing.T, b *blob.Bucket) []string {
	var out []string
	it := b.List(nil)
	for {
		obj, err := it.Next(t.Context())
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, obj.Key)
	}
}

// TestSinkAllOrNothing: an output whose write fails, or whose context
// ends while it is written (parts already sent), is not published; a
// complete one is, whole; a name outside the bucket's key space is
// refused.
func TestSinkAllOrNothing(t *testing.T) {
	t.Parallel()
	s3 := startS3(t, "out")
	b := openBucket(t, s3.URL, "out")
	sink := pfcblob.NewSink(b)
	boom := errors.New("boom")
	err := sink.Put(t.Context(), "a/failed.png", func(w io.Writer) error {
		_, _ = w.Write(bytes.Repeat([]byte{1}, big))
		return boom
	})
	require.ErrorIs(t, err, boom)
	ctx, cancel := context.WithCancel(t.Context())
	err = sink.Put(ctx, "a/cancelled.png", func(w io.Writer) error {
		_, err := w.Write(bytes.Repeat([]byte{2}, big))
		cancel()
		return err
	})
	require.Error(t, err)
	assert.Empty(t, keys(t, b), "nothing published")
	ok, err := sink.Exists(t.Context(), "a/cancelled.png")
	require.NoError(t, err)
	assert.False(t, ok)

	want := bytes.Repeat([]byte("0123456789abcdef"), big/16)
	require.NoError(t, sink.Put(t.Context(), "a/whole.png", func(w io.Writer) error { _, err := w.Write(want); return err }))
	got, err := b.ReadAll(t.Context(), "a/whole.png")
	require.NoError(t, err)
	assert.Equal(t, want, got)
	for _, bad := range []string{"/abs", "../x", "a/../b", "", "."} {
		var ve *pfc.ValidationError
		assert.ErrorAs(t, sink.Put(t.Context(), bad, func(io.Writer) error { return nil }), &ve, "%q", bad)
	}
}

// childEnv carries the fake S3 server's URL to TestHelperSinkProcess.
const childEnv = "PFCBLOB_CHILD_S3"

// TestHelperSinkProcess is not a test: run by TestSinkKilledMidUpload as
// a child process, it writes more than a part of "killed.png" to the
// bucket "out", says so on stdout, and waits to be killed.
func TestHelperSinkProcess(t *testing.T) {
	url := os.Getenv(childEnv)
	if url == "" {
		t.Skip("a child process of TestSinkKilledMidUpload")
	}
	sink := pfcblob.NewSink(openBucket(t, url, "out"))
	_ = sink.Put(context.Background(), "killed.png", func(w io.Writer) error {
		if _, err := w.Write(bytes.Repeat([]byte{3}, big)); err != nil {
			return err
		}
		fmt.Println("written")
		select {} // killed here
	})
	os.Exit(2)
}

// TestSinkKilledMidUpload: a process killed (SIGKILL) while it uploads
// an output, parts already sent, leaves no object.
func TestSinkKilledMidUpload(t *testing.T) {
	t.Parallel()
	s3 := startS3(t, "out")
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperSinkProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+s3.URL)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "child: %s", &stderr)
	require.Equal(t, "written\n", line)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	require.Error(t, cmd.Wait())
	b := openBucket(t, s3.URL, "out")
	assert.Empty(t, keys(t, b), "no partial object")
}

// TestNilBucket: a Sink or Source without a bucket is an error, not a
// panic.
func TestNilBucket(t *testing.T) {
	t.Parallel()
	var ve *pfc.ValidationError
	assert.ErrorAs(t, pfcblob.NewSink(nil).Put(t.Context(), "a.png", func(io.Writer) error { return nil }), &ve)
	_, err := pfcblob.NewSink(nil).Exists(t.Context(), "a.png")
	assert.ErrorAs(t, err, &ve)
	var nilSink *pfcblob.Sink
	assert.ErrorAs(t, nilSink.Put(t.Context(), "a.png", func(io.Writer) error { return nil }), &ve)
	src := pfcblob.Source(t.Context(), nil)
	_, err = src.Open("a.png")
	assert.Error(t, err)
	_, err = fs.ReadDir(src, ".")
	assert.Error(t, err)
	_, err = fs.Stat(src, ".")
	assert.Error(t, err)
}
