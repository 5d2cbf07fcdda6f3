package pfccontainer

import (
	"context"
	"io"
	"mime"

	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/serverid"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Content types the container accepts on PUT /pfc.
const (
	contentTypeJPEG = "image/jpeg"
	contentTypePNG  = "image/png"
)

// Upload sends size bytes of src to the container (PUT /pfc) and returns
// the imageKey to give GetCorrection. contentType is "image/jpeg" or
// "image/png", or empty to sniff it; anything else is refused before any
// request, as are a nil src and a size below 1. The body is streamed with
// an exact Content-Length (a *bytes.Reader of exactly size bytes as
// http.NewRequest sends one: do not Read or Seek it meanwhile). It is retried on connection errors and upload 503s; a retry
// after the container stored the first attempt leaves an unused key that
// its TTL sweep deletes.
func (c *Client) Upload(ctx context.Context, src io.ReaderAt, size int64, contentType string) (_ string, err error) {
	var fe fieldErrors
	if fileio.NilReader(src) {
		fe.add("src", "is required")
	}
	if size < 1 {
		fe.add("size", "must be at least 1 byte, got %d", size)
	}
	if err := fe.err(); err != nil {
		return "", err
	}
	ct, err := uploadContentType(src, size, contentType)
	if err != nil {
		return "", err
	}
	var res UploadResponse
	where, err := c.getJSON(ctx, epUpload, "", &transport.Request{Body: transport.ReaderAtBody(src, size, ct)}, &res)
	if err != nil {
		return "", err
	}
	// The key is the service's: held to the shape of package serverid
	// (stricter than ValidateImageKey, which also admits the names of
	// direct file mode), and never a secret of the client.
	if why := serverid.Check(res.ImageKey, c.http.Redact); why != "" {
		return "", &pfc.ResponseError{Endpoint: string(epUpload), Field: "imageKey", Reason: why}
	}
	if where != nil && c.reps.Many() {
		c.reps.Bind(res.ImageKey, where) // its correction goes there
	}
	return res.ImageKey, nil
}

// UploadFile uploads the regular file at path (see Upload); its content
// type is sniffed from the content, whatever its name says. A path that is
// not a regular file, or not a JPEG or PNG image, fails before any request
// with an error matching pfc.ErrInvalidParameter; a missing one matches
// fs.ErrNotExist.
func (c *Client) UploadFile(ctx context.Context, path string) (_ string, err error) {
	f, size, err := fileio.OpenParam("path", path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return c.Upload(ctx, f, size, "")
}

// uploadContentType returns the media type to send: contentType when it is
// one the container accepts (parameters dropped), the sniffed type when
// contentType is empty, else a *pfc.ValidationError naming "contentType".
func uploadContentType(src io.ReaderAt, size int64, contentType string) (string, error) {
	if contentType == "" {
		ct, err := fileio.SniffImage(src, size)
		if err != nil {
			var fe fieldErrors
			fe.add("contentType", "the content is not a JPEG or PNG image (%s); the container accepts only those", fileio.DetectContentType(src, size))
			return "", fe.err()
		}
		return ct, nil
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || (mt != contentTypeJPEG && mt != contentTypePNG) {
		var fe fieldErrors
		fe.add("contentType", "must be %s or %s, got %q", contentTypeJPEG, contentTypePNG, contentType)
		return "", fe.err()
	}
	return mt, nil
}
