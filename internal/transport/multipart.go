package transport

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/textproto"
	"strings"
)

// FormField is one text field of a multipart/form-data body.
type FormField struct {
	// Name is the form field name.
	Name string
	// Value is its text.
	Value string
}

// FormFile is the file part of a multipart/form-data body, read from
// Content (size bytes from offset 0) on every attempt.
type FormFile struct {
	// Field is the form field name, e.g. "file".
	Field string
	// FileName is sent as the part's filename (quotes and newlines are
	// escaped).
	FileName string
	// ContentType is the part's Content-Type; empty means
	// application/octet-stream.
	ContentType string
	// Content is the file's bytes (an *os.File, a *bytes.Reader ...).
	Content io.ReaderAt
	// Size is the exact number of bytes to send.
	Size int64
}

// MultipartBody returns a multipart/form-data body holding fields (in
// order) followed by file. The part headers and the closing boundary are
// built once (a few hundred bytes); the file is streamed from file.Content
// through a fresh io.SectionReader on every attempt, never buffered. The
// body has an exact Content-Length, so it is replayable like ReaderAtBody:
// a retry resends it from the start. The boundary is random per body and
// the same on every attempt.
func MultipartBody(fields []FormField, file FormFile) Body {
	var errs []string
	if file.Content == nil {
		errs = append(errs, "FormFile.Content is required")
	}
	if file.Size < 0 {
		errs = append(errs, "FormFile.Size must not be negative")
	}
	if file.Field == "" {
		errs = append(errs, "FormFile.Field is required")
	}
	if len(errs) > 0 {
		return Body{err: invalidBody("MultipartBody: " + strings.Join(errs, "; "))}
	}
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	for _, f := range fields {
		if err := mw.WriteField(f.Name, f.Value); err != nil {
			return Body{err: invalidBody("MultipartBody: " + err.Error())}
		}
	}
	ct := file.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="`+escapeQuotes(file.Field)+`"; filename="`+escapeQuotes(file.FileName)+`"`)
	h.Set("Content-Type", ct)
	if _, err := mw.CreatePart(h); err != nil {
		return Body{err: invalidBody("MultipartBody: " + err.Error())}
	}
	prefix := bytes.Clone(head.Bytes())
	head.Reset()
	if err := mw.Close(); err != nil {
		return Body{err: invalidBody("MultipartBody: " + err.Error())}
	}
	// Close writes "\r\n--boundary--\r\n" after the (empty) part: the
	// file's bytes go between prefix and suffix.
	suffix := bytes.Clone(head.Bytes())
	content, size := file.Content, file.Size
	return Body{
		contentType: mw.FormDataContentType(),
		size:        int64(len(prefix)) + size + int64(len(suffix)),
		open: func() (io.Reader, error) {
			return io.MultiReader(bytes.NewReader(prefix), io.NewSectionReader(content, 0, size), bytes.NewReader(suffix)), nil
		},
	}
}

// escapeQuotes escapes a form name or file name as mime/multipart does,
// and drops CR and LF so a header line cannot be split.
var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "", "\n", "")

func escapeQuotes(s string) string { return quoteEscaper.Replace(s) }
