package hostedsvc

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pfcsdk/pfc-go/internal/streamtest"
)

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer = streamtest.SyncBuffer

// TestDiskFailuresKeepServerPathsOutOfRecords: a job that fails on the
// mock's own disk says so in a fixed statusText; the error, which names
// paths of the data directory, goes to the log only. The record is also
// the webhook body. It used to read e.g. "creating the result file:
// blobstore: open /tmp/.../.tmp/out-...: no such file or directory".
func TestDiskFailuresKeepServerPathsOutOfRecords(t *testing.T) {
	t.Parallel()
	copyOut := func(_ context.Context, src io.Reader, _ JobRequest, dst io.Writer) (*JobResult, error) {
		_, err := io.Copy(dst, src)
		return &JobResult{}, err
	}
	for name, tc := range map[string]struct {
		before  func(dir string) // before the job starts
		process func(dir string) ProcessorFunc
		want    string
	}{
		"no temporary file": {
			before:  func(dir string) { _ = os.RemoveAll(filepath.Join(dir, ".tmp")) },
			process: func(string) ProcessorFunc { return copyOut },
			want:    "storing the result failed",
		},
		"result not committed": {
			process: func(dir string) ProcessorFunc {
				return func(ctx context.Context, src io.Reader, req JobRequest, dst io.Writer) (*JobResult, error) {
					// The open temporary file stays writable; renaming it
					// into place fails.
					_ = os.RemoveAll(filepath.Join(dir, ".tmp"))
					return copyOut(ctx, src, req, dst)
				}
			},
			want: "storing the result failed",
		},
		"processor's file error": {
			process: func(dir string) ProcessorFunc {
				return func(context.Context, io.Reader, JobRequest, io.Writer) (*JobResult, error) {
					_, err := os.Open(filepath.Join(dir, "missing"))
					return nil, fmt.Errorf("reading the model: %w", err)
				}
			},
			want: "processing failed: a file of the server could not be read",
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var logs syncBuffer
			dir := t.TempDir()
			s, _ := newServiceWith(t, func(c *settings) {
				c.WorkDir = dir
				c.Deps.Processor = tc.process(dir)
				c.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
			})
			key := uploadFile(t, s, pngBytes(t, 0))
			if tc.before != nil {
				tc.before(dir)
			}
			rec, raw := jobRecord(t, s, startJob(t, s, "fileKey="+key))
			assert.Equal(t, StatusFailed, rec.Status)
			assert.Equal(t, JobCodeProcessingFailed, rec.Code)
			assert.Equal(t, tc.want, rec.StatusText)
			assert.NotContains(t, string(raw), dir, "a server path in the record")
			assert.Contains(t, logs.String(), filepath.Base(dir), "the detail is logged")
		})
	}
}
