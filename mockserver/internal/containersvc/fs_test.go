package containersvc

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failingFile is a real temporary file whose Write fails with writeErr
// after okBytes bytes, or whose Close fails with closeErr (after closing
// the file, so nothing leaks).
type failingFile struct {
	*os.File
	okBytes  int
	writeErr error
	closeErr error
}

func (f *failingFile) Write(p []byte) (int, error) {
	if f.writeErr == nil {
		return f.File.Write(p)
	}
	if len(p) > f.okBytes {
		n, _ := f.File.Write(p[:f.okBytes])
		f.okBytes -= n
		return n, &os.PathError{Op: "write", Path: f.Name(), Err: f.writeErr}
	}
	f.okBytes -= len(p)
	return f.File.Write(p)
}

func (f *failingFile) Close() error {
	err := f.File.Close()
	if f.closeErr != nil && err == nil {
		f.closeErr, err = nil, &os.PathError{Op: "close", Path: f.Name(), Err: f.closeErr}
	}
	return err
}

// failTemps makes the service's temporary files fail as template does.
func (f *fixture) failTemps(template failingFile) {
	f.svc.createTemp = func(dir, pattern string) (tempFile, error) {
		file, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		ff := template
		ff.File = file
		return &ff, nil
	}
}

// requireRow checks the log line of an error table row: error level, the
// row's status and the cause.
func (f *fixture) requireRow(t *testing.T, id string, cause error) {
	t.Helper()
	line := f.logs.find(t, id)
	require.NotNil(t, line, "no %s line", id)
	assert.Equal(t, "error", line["level"])
	assert.Equal(t, float64(http.StatusServiceUnavailable), line["status"])
	assert.Contains(t, line["error"], cause.Error())
}

// TestUploadTemporaryFileFailures: the temporary input file cannot be
// closed (temporaryFileWritingMessage, 503) or the disk fills while it is
// written ("couldn't write image", temporaryFileWritingMessage, 503);
// nothing is left in input/.
func TestUploadTemporaryFileFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fail  failingFile
		cause error
		msg   string
	}{
		{"close fails", failingFile{closeErr: syscall.EIO}, syscall.EIO, "closed"},
		{"disk full", failingFile{writeErr: syscall.ENOSPC, okBytes: 100}, syscall.ENOSPC, "couldn't write image"},
	} {
		f := newFixture(t, nil)
		f.failTemps(tc.fail)
		_, herr := f.svc.Upload(t.Context(), "image/png", bytes.NewReader(pngBytes(t, 40, 40)))
		require.NotNil(t, herr, tc.name)
		assert.Equal(t, http.StatusServiceUnavailable, herr.Status, tc.name)
		assert.Equal(t, MsgTemporaryFileWrite, herr.Code, tc.name)
		assert.Contains(t, herr.Message, tc.msg, tc.name)
		f.requireRow(t, MsgTemporaryFileWrite, tc.cause)
		assertNoFiles(t, f.svc.Mounts().Input)
	}
}

// TestCorrectOutputFileFailures: the output file cannot be closed
// (temporaryCloseOutputFileMessage, 503), or the disk fills while the
// image is written ("couldn't write image", temporaryOutputFileMessage,
// 503); neither is an engine failure, and nothing is left in output/.
func TestCorrectOutputFileFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fail  failingFile
		cause error
		id    string
		msg   string
	}{
		{"close fails", failingFile{closeErr: syscall.EIO}, syscall.EIO, MsgTemporaryCloseOutput, "closed"},
		{"disk full at once", failingFile{writeErr: syscall.ENOSPC}, syscall.ENOSPC, MsgTemporaryOutputFile, "couldn't write image"},
		{"disk full midway", failingFile{writeErr: syscall.ENOSPC, okBytes: 100}, syscall.ENOSPC, MsgTemporaryOutputFile, "couldn't write image"},
	} {
		f := newFixture(t, nil)
		f.placeInput(t, "a.png", pngBytes(t, 48, 40))
		f.failTemps(tc.fail)
		_, herr := f.svc.Correct(t.Context(), "a.png", nil)
		require.NotNil(t, herr, tc.name)
		assert.Equal(t, http.StatusServiceUnavailable, herr.Status, tc.name)
		assert.Equal(t, tc.id, herr.Code, tc.name)
		assert.Contains(t, herr.Message, tc.msg, tc.name)
		f.requireRow(t, tc.id, tc.cause)
		assert.Nil(t, f.logs.find(t, MsgProcessingPFCError), tc.name)
		assertNoFiles(t, f.svc.Mounts().Output)

		// Without a licence the input is copied through the same file.
		f.placeInput(t, "b.png", pngBytes(t, 48, 40))
		require.NoError(t, os.RemoveAll(f.svc.Mounts().License))
		require.NoError(t, os.Mkdir(f.svc.Mounts().License, 0o755))
		_, herr = f.svc.Correct(t.Context(), "b.png", nil)
		require.NotNil(t, herr, tc.name)
		assert.Equal(t, tc.id, herr.Code, tc.name+", unlicensed")
		assertNoFiles(t, f.svc.Mounts().Output)
	}
}

// TestHTTPFileFailureStatuses: the rows' statuses and ids reach the HTTP
// answer.
func TestHTTPFileFailureStatuses(t *testing.T) {
	t.Parallel()
	f, srv := startHTTP(t, nil)
	f.placeInput(t, "a.png", pngBytes(t, 48, 40))
	f.failTemps(failingFile{writeErr: syscall.ENOSPC})
	resp, body := do(t, http.MethodGet, srv.URL+"/pfc/a.png", "", nil)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Contains(t, string(body), `"code":"`+MsgTemporaryOutputFile+`"`)
	assert.Contains(t, string(body), "couldn't write image")

	f.failTemps(failingFile{closeErr: errors.New("input/output error")})
	resp, body = do(t, http.MethodPut, srv.URL+"/pfc", "image/png", pngBytes(t, 40, 40))
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Contains(t, string(body), `"code":"`+MsgTemporaryFileWrite+`"`)
}
