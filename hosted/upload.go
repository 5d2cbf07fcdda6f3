package hosted

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// UploadTicket is the answer of GET /upload: where to upload one file, and
// the key that names it on /pfc (as fileKey, or as bgFileKey for a
// background image).
type UploadTicket struct {
	// FileKey names the file on /pfc (fileKey, or bgFileKey for a
	// background image).
	FileKey string `json:"fileKey"`
	// UploadURL is the pre-signed URL the file is uploaded to (PUT,
	// without the API key).
	UploadURL string `json:"uploadUrl"`
}

// RequestUpload asks for a pre-signed upload URL (GET /upload). An empty
// fileType means image.
func (c *Client) RequestUpload(ctx context.Context, fileType FileType) (_ *UploadTicket, err error) {
	var rawQuery string // what url.Values{"fileType": {fileType}} encodes to
	if fileType != "" {
		if fileType != FileTypeImage && fileType != FileTypeVideo {
			return nil, &apierr.ValidationError{Errors: []apierr.FieldError{{Field: "fileType", Message: fmt.Sprintf("must be image or video, got %q", fileType)}}}
		}
		rawQuery = "fileType=image"
		if fileType == FileTypeVideo {
			rawQuery = "fileType=video"
		}
	}
	var t UploadTicket
	if err := c.http.DoJSON(ctx, &transport.Request{Endpoint: epRequestUpload, RawQuery: rawQuery}, &t); err != nil {
		return nil, err
	}
	if t.FileKey == "" || t.UploadURL == "" {
		return nil, fmt.Errorf("pfc: GET /upload answered without fileKey or uploadUrl")
	}
	return &t, nil
}

// UploadTo streams size bytes of src to the ticket's pre-signed URL with
// HTTP PUT and an exact Content-Length. The API key is not sent: the
// authorization is in the URL. src is read through io.SectionReader, so a
// retried attempt re-reads from the start and nothing is buffered; a
// *bytes.Reader of exactly size bytes is sent as http.NewRequest sends
// one, through a rewound copy (do not Read or Seek it meanwhile).
// contentType may be empty (application/octet-stream).
func (c *Client) UploadTo(ctx context.Context, t *UploadTicket, src io.ReaderAt, size int64, contentType string) (err error) {
	var fe apierr.FieldErrors
	if t == nil || t.UploadURL == "" {
		fe.Add("uploadUrl", "is required")
	}
	if fileio.NilReader(src) {
		fe.Add("src", "is required")
	}
	if size < 0 {
		fe.Add("size", "must not be negative, got %d", size)
	}
	if err := fe.Err(); err != nil {
		return err
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	resp, err := c.http.DoExternal(ctx, http.MethodPut, t.UploadURL, nil, transport.ReaderAtBody(src, size, contentType))
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.Body.Close()
}

// Upload requests a ticket and uploads src to it, returning the fileKey to
// pass to /pfc. See UploadTo.
func (c *Client) Upload(ctx context.Context, fileType FileType, src io.ReaderAt, size int64, contentType string) (_ string, err error) {
	if fileio.NilReader(src) {
		// Refused before a ticket is asked for (UploadTo checks the rest).
		return "", &apierr.ValidationError{Errors: []apierr.FieldError{{Field: "src", Message: "is required"}}}
	}
	t, err := c.RequestUpload(ctx, fileType)
	if err != nil {
		return "", err
	}
	if err := c.UploadTo(ctx, t, src, size, contentType); err != nil {
		return "", err
	}
	return t.FileKey, nil
}

// UploadFile uploads the file at path and returns its fileKey. The file
// type (image or video) and Content-Type follow the file's extension. A
// path that is not a regular file fails with an error naming "path"
// that matches pfc.ErrInvalidParameter; a missing one matches fs.ErrNotExist.
func (c *Client) UploadFile(ctx context.Context, path string) (_ string, err error) {
	f, size, err := fileio.OpenParam("path", path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return c.Upload(ctx, fileTypeOf(path), f, size, contentTypeOf(path))
}

// fileTypeOf classifies a path by extension: the API accepts MP4 and MOV
// video, and JPEG or PNG images.
func fileTypeOf(path string) FileType {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".mp4", ".mov", ".m4v":
		return FileTypeVideo
	}
	return FileTypeImage
}

func contentTypeOf(path string) string {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".png":
		return "image/png"
	case ".mov":
		return "video/quicktime"
	case ".mp4", ".m4v":
		return "video/mp4"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
		return "application/octet-stream"
	}
}
