package transport

import (
	"bytes"
	"context"
	"hash/crc32"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/streamtest"
)

type part struct {
	name, fileName, contentType string
	size                        int64
	sum                         uint32
	text                        string
}

// readForm parses a multipart request part by part, streaming file parts
// into a checksum.
func readForm(t *testing.T, r *http.Request) []part {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if !assert.NoError(t, err) || !assert.Equal(t, "multipart/form-data", mt) {
		return nil
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	var parts []part
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return parts
		}
		if !assert.NoError(t, err) {
			return parts
		}
		got := part{name: p.FormName(), fileName: p.FileName(), contentType: p.Header.Get("Content-Type")}
		if got.fileName != "" {
			h := crc32.NewIEEE()
			got.size, _ = io.Copy(h, p)
			got.sum = h.Sum32()
		} else {
			b, _ := io.ReadAll(p)
			got.text = string(b)
		}
		parts = append(parts, got)
	}
}

func TestMultipartBodyShapeAndReplay(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	lengths := make(chan int64, 3)
	forms := make(chan []part, 3)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		lengths <- r.ContentLength
		forms <- readForm(t, r)
		if cnt.inc() == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // the retry resends the whole form
		}
	})
	c := newClient(t, Options{BaseURL: srv.URL})
	file := []byte("\x89PNG fake image bytes")
	body := MultipartBody(
		[]FormField{{"mode", "portrait"}, {"preprocessing_config", `{"a":"b"}`}},
		FormFile{Field: "file", FileName: `a"b\r\n.png`, ContentType: "image/png", Content: bytes.NewReader(file), Size: int64(len(file))})
	require.True(t, strings.HasPrefix(body.ContentType(), "multipart/form-data; boundary="))
	resp, err := c.Do(context.Background(), &Request{Method: http.MethodPost, Path: "SubmitImage", Body: body})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, int64(2), cnt.get())
	want := []part{
		{name: "mode", text: "portrait"},
		{name: "preprocessing_config", text: `{"a":"b"}`},
		{name: "file", fileName: `a"b\r\n.png`, contentType: "image/png", size: int64(len(file)), sum: crc32.ChecksumIEEE(file)},
	}
	for range 2 {
		assert.Equal(t, body.Size(), <-lengths, "exact Content-Length")
		got := <-forms
		// mime/multipart gives back the escaped name; CR and LF are dropped.
		if assert.Len(t, got, 3) {
			got[2].fileName = want[2].fileName
		}
		assert.Equal(t, want, got)
	}
}

func TestMultipartBodyInvalid(t *testing.T) {
	t.Parallel()
	c := newClient(t, Options{BaseURL: "http://x.test"})
	_, err := c.Do(context.Background(), &Request{Method: http.MethodPost, Path: "SubmitImage",
		Body: MultipartBody(nil, FormFile{Size: -1})})
	var ve *apierr.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, err.Error(), "FormFile.Content")
	assert.Contains(t, err.Error(), "FormFile.Field")
}

// TestMultipartBodyShortSourceFails: a file shorter than its declared size
// ends the call without a retry instead of sending a malformed form.
func TestMultipartBodyShortSourceFails(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		cnt.inc()
		_, _ = io.Copy(io.Discard, r.Body)
	})
	c := newClient(t, Options{BaseURL: srv.URL})
	_, err := c.Do(context.Background(), &Request{Method: http.MethodPost, Path: "SubmitImage",
		Body: MultipartBody(nil, FormFile{Field: "file", FileName: "a.png", Content: bytes.NewReader([]byte("abc")), Size: 10})})
	require.Error(t, err)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.LessOrEqual(t, cnt.get(), int64(1))
}

// TestLargeMultipartStreams sends a file part of largeUpload bytes and
// checks, like TestLargeUploadStreams, that every byte arrives in order
// with an exact Content-Length while the heap does not grow: the file is
// never buffered.
func TestLargeMultipartStreams(t *testing.T) {
	// Not parallel: it measures the heap.
	src := streamtest.Pattern{Size: largeUpload()}
	want := crc32.NewIEEE()
	_, err := io.Copy(want, io.NewSectionReader(src, 0, src.Size))
	require.NoError(t, err)

	type upload struct {
		contentLength int64
		parts         []part
	}
	uploads := make(chan upload, 2)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		uploads <- upload{r.ContentLength, readForm(t, r)}
	})
	c := newClient(t, Options{BaseURL: srv.URL})
	send := func(f streamtest.Pattern) error {
		body := MultipartBody([]FormField{{"mode", "general"}},
			FormFile{Field: "file", FileName: "big.png", ContentType: "image/png", Content: f, Size: f.Size})
		resp, err := c.Do(context.Background(), &Request{Method: http.MethodPost, Path: "SubmitImage", Body: body})
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	require.NoError(t, send(streamtest.Pattern{Size: 1 << 20})) // warm up
	<-uploads

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	sampler := streamtest.Start()
	err = send(src)
	growth := sampler.Stop()
	require.NoError(t, err)

	got := <-uploads
	require.Len(t, got.parts, 2)
	assert.Equal(t, "general", got.parts[0].text)
	assert.Equal(t, src.Size, got.parts[1].size, "every byte arrived")
	assert.Equal(t, want.Sum32(), got.parts[1].sum, "in order")
	wantLen := MultipartBody([]FormField{{"mode", "general"}},
		FormFile{Field: "file", FileName: "big.png", ContentType: "image/png", Content: src, Size: src.Size}).Size()
	assert.Equal(t, wantLen, got.contentLength, "exact Content-Length, not chunked")
	assert.Less(t, growth, int64(8<<20), "heap grew by %.2f MiB", float64(growth)/(1<<20))
}
