package bgcontainer

import (
	"context"
	"io"
	"path/filepath"

	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/transport"
)

// fileField is the multipart part that carries the image.
const fileField = "file"

// SubmitImage uploads size bytes of image (POST /SubmitImage) and returns
// the job the container started. The multipart body is streamed with an
// exact Content-Length; the part's content type is sniffed, its file name
// is opts.FileName or "image" with the sniffed extension. Options are
// checked first. The request is never replayed once it may have reached
// the container (each one starts a job). An unreadable file matches
// ErrInvalidFile; a container not activated, ErrNotActivated.
func (c *Client) SubmitImage(ctx context.Context, image io.ReaderAt, size int64, opts *SubmitOptions) (_ *Job, err error) {
	var fe fieldErrors
	if fileio.NilReader(image) {
		fe.add("image", "is required")
	}
	if size <= 0 {
		fe.add("size", "must be positive, got %d", size)
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	q, fields, err := opts.encode()
	if err != nil {
		return nil, err
	}
	contentType := fileio.DetectContentType(image, size)
	name := ""
	if opts != nil {
		name = opts.FileName
	}
	if name == "" {
		name = defaultFileName(contentType)
	}
	form := make([]transport.FormField, len(fields))
	for i, f := range fields {
		form[i] = transport.FormField{Name: f.Name, Value: f.Value}
	}
	resp, sent, err := c.send(ctx, epSubmitImage, "", &transport.Request{
		Query:  q,
		Header: jsonHeader(),
		Body: transport.MultipartBody(form, transport.FormFile{
			Field: fileField, FileName: name, ContentType: contentType, Content: image, Size: size,
		}),
	})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	job, err := decodeJob(resp.Body, c.redact)
	if err == nil && sent.Replica != nil && c.fleet() {
		c.reps.Bind(job.ProcessID, sent.Replica) // its later calls go there
	}
	if err == nil {
		c.jobSubmitted(ctx, job)
	}
	return job, err
}

// SubmitImageFile is SubmitImage of the regular file at path, sent under
// its base name unless opts.FileName is set. A path that is not a regular
// file fails with an error naming "path" that matches pfc.ErrInvalidParameter;
// a missing one matches fs.ErrNotExist.
func (c *Client) SubmitImageFile(ctx context.Context, path string, opts *SubmitOptions) (_ *Job, err error) {
	f, size, err := fileio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	o := SubmitOptions{}
	if opts != nil {
		o = *opts
	}
	if o.FileName == "" {
		o.FileName = filepath.Base(path)
	}
	return c.SubmitImage(ctx, f, size, &o)
}

// defaultFileName names a part whose caller gave no name.
func defaultFileName(contentType string) string {
	switch contentType {
	case "image/jpeg":
		return "image.jpg"
	case "image/png":
		return "image.png"
	case "image/webp":
		return "image.webp"
	}
	return "image"
}
