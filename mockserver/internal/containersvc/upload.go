package containersvc

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// UploadResponse is the answer of PUT /pfc.
type UploadResponse struct {
	ImageKey string `json:"imageKey"`
}

// MsgEmptyBody is the mock's id for an upload without a byte (debug, 400).
const MsgEmptyBody = "emptyBodyMessage"

// errRow returns the error body of one of the documented rows: code is the
// message id; the line is logged at level with the status.
func (s *Service) errRow(level slog.Level, id string, status int, message string, attrs ...any) *httpx.Error {
	s.logID(level, id, append([]any{"status", status, "detail", message}, attrs...)...)
	return &httpx.Error{Status: status, Code: id, Message: message}
}

// Upload stores an uploaded image (PUT /pfc) in input/ and returns its key.
// contentType is the request's Content-Type: image/jpeg or image/png
// (parameters allowed), else 400 noContentTypeRequestMessage. The body is
// streamed to a hidden temporary file in input/ and renamed to the key
// only when complete, so a key never names half a file. The key is 32 hex
// digits plus ".jpg" or ".png" from the Content-Type; the content itself is
// checked when it is corrected, as the container does.
//
// Errors: 413 bodyTooLargeMessage above MaxUploadBytes; 400
// emptyBodyMessage for an empty body; 503 bodyRequestMessage when the body
// cannot be read (or ctx ends); 503 temporaryFileCreationMessage when the
// temporary file cannot be created; 503 temporaryFileWritingMessage when it
// cannot be written, closed or renamed.
func (s *Service) Upload(ctx context.Context, contentType string, body io.Reader) (*UploadResponse, *httpx.Error) {
	return s.UploadSized(ctx, contentType, -1, body)
}

// UploadSized is Upload for a body that declared its length
// (contentLength, -1 when unknown): a declared length above MaxUploadBytes
// is refused with 413 bodyTooLargeMessage before a byte is read, after
// the Content-Type check.
func (s *Service) UploadSized(ctx context.Context, contentType string, contentLength int64, body io.Reader) (*UploadResponse, *httpx.Error) {
	ext, ok := uploadExt(contentType)
	if !ok {
		return nil, s.errRow(slog.LevelDebug, MsgNoContentType, http.StatusBadRequest,
			"Content-Type must be image/jpeg or image/png, got "+quoteOrEmpty(contentType))
	}
	if contentLength > s.cfg.MaxUploadBytes {
		return nil, s.errRow(slog.LevelDebug, MsgBodyTooLarge, http.StatusRequestEntityTooLarge,
			"Content-Length "+itoa(contentLength)+" exceeds the limit of "+itoa(s.cfg.MaxUploadBytes)+" bytes")
	}
	if s.ctx.Err() != nil {
		return nil, httpx.Errorf(http.StatusServiceUnavailable, httpx.CodeUnavailable, "the server is shutting down")
	}
	tmp, err := s.createTemp(s.mounts.Input, ".upload-*")
	if err != nil {
		return nil, s.errRow(slog.LevelError, MsgTemporaryFileCreate, http.StatusServiceUnavailable,
			"the temporary input file could not be created (is input/ writable, is the disk full?)", "error", err.Error())
	}
	committed := false
	defer func() {
		if !committed {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	limit := s.cfg.MaxUploadBytes
	rctx, release := mergeCtx(ctx, s.ctx)
	n, err := io.Copy(fileWriter{tmp}, &ctxReader{ctx: rctx, r: io.LimitReader(body, limit+1)})
	release()
	var we *writeError
	switch {
	case errors.As(err, &we):
		return nil, s.errRow(slog.LevelError, MsgTemporaryFileWrite, http.StatusServiceUnavailable,
			"couldn't write image: the temporary input file could not be written (is the disk full?)", "error", we.err.Error())
	case err != nil:
		return nil, s.errRow(slog.LevelError, MsgBodyRequest, http.StatusServiceUnavailable,
			"the request body could not be read", "error", err.Error())
	case n > limit:
		return nil, s.errRow(slog.LevelDebug, MsgBodyTooLarge, http.StatusRequestEntityTooLarge,
			"the body exceeds the limit of "+itoa(limit)+" bytes")
	case n == 0:
		return nil, s.errRow(slog.LevelDebug, MsgEmptyBody, http.StatusBadRequest, "the request body is empty")
	}
	if err := tmp.Close(); err != nil {
		return nil, s.errRow(slog.LevelError, MsgTemporaryFileWrite, http.StatusServiceUnavailable,
			"the temporary input file could not be closed", "error", err.Error())
	}
	key := newName() + ext
	if err := s.rename(tmp.Name(), filepath.Join(s.mounts.Input, key)); err != nil {
		return nil, s.errRow(slog.LevelError, MsgTemporaryFileWrite, http.StatusServiceUnavailable,
			"the temporary input file could not be stored", "error", err.Error())
	}
	committed = true
	s.started.Add(1)
	s.touch(DirInput, key, true)
	s.logID(slog.LevelDebug, MsgUploaded, "imageKey", key, "bytes", n)
	return &UploadResponse{ImageKey: key}, nil
}

// uploadExt maps an accepted Content-Type to the key's extension.
func uploadExt(contentType string) (string, bool) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", false
	}
	switch mt {
	case "image/jpeg":
		return ".jpg", true
	case "image/png":
		return ".png", true
	}
	return "", false
}

func quoteOrEmpty(s string) string {
	if s == "" {
		return "none"
	}
	if len(s) > 100 {
		s = s[:100]
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}

// ctxReader ends a read when ctx is done, so a stalled body does not
// outlive its request.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// writeError marks a failure of the destination in io.Copy (see
// fileWriter), to tell it from a failure of the body.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

// fileWriter marks write errors of w as *writeError.
type fileWriter struct{ w io.Writer }

func (f fileWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil {
		err = &writeError{err: err}
	}
	return n, err
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
