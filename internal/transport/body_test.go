package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// received is what the server saw of one request.
type received struct {
	contentLength    int64
	transferEncoding []string
	contentType      string
	rawCL            string
	body             []byte
}

// recordingServer records every request and answers the statuses in order
// (200 once they run out).
func recordingServer(t *testing.T, statuses ...int) (*[]received, string) {
	var mu sync.Mutex
	var got []received
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		assert.NoError(t, err)
		mu.Lock()
		got = append(got, received{r.ContentLength, r.TransferEncoding, r.Header.Get("Content-Type"), r.Header.Get("Content-Length"), b})
		n := len(got)
		mu.Unlock()
		if n <= len(statuses) {
			w.WriteHeader(statuses[n-1])
		}
	})
	return &got, srv.URL
}

func TestBodiesContentLengthAndType(t *testing.T) {
	t.Parallel()
	payload := []byte("hello, body")
	jsonBody, err := JSONBody(map[string]string{"name": "My preset"})
	require.NoError(t, err)
	cases := []struct {
		name     string
		method   string
		body     Body
		wantCL   int64
		chunked  bool
		wantType string
		wantBody string
	}{
		{"no body", "GET", Body{}, 0, false, "", ""},
		{"bytes", "PUT", BytesBody(payload, "text/plain"), int64(len(payload)), false, "text/plain", string(payload)},
		{"empty bytes", "PUT", BytesBody(nil, "application/octet-stream"), 0, false, "application/octet-stream", ""},
		{"json", "POST", jsonBody, 20, false, "application/json", `{"name":"My preset"}`},
		{"reader at", "PUT", ReaderAtBody(bytes.NewReader(payload), int64(len(payload)), "image/jpeg"), int64(len(payload)), false, "image/jpeg", string(payload)},
		{"reader at prefix", "PUT", ReaderAtBody(bytes.NewReader(payload), 5, "image/jpeg"), 5, false, "image/jpeg", "hello"},
		{"stream sized", "POST", StreamBody(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(payload)), nil }, int64(len(payload)), "x/y"), int64(len(payload)), false, "x/y", string(payload)},
		{"stream unknown size", "POST", StreamBody(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(payload)), nil }, -1, "x/y"), -1, true, "x/y", string(payload)},
		{"reader sized", "PUT", ReaderBody(bytes.NewReader(payload), int64(len(payload)), ""), int64(len(payload)), false, "", string(payload)},
		{"reader unknown size", "PUT", ReaderBody(strings.NewReader("abc"), -7, ""), -1, true, "", "abc"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, base := recordingServer(t)
			c := newClient(t, Options{BaseURL: base})
			resp, err := c.Do(context.Background(), &Request{Method: tc.method, Path: "upload", Body: tc.body})
			require.NoError(t, err)
			resp.Body.Close()
			require.Len(t, *got, 1)
			r := (*got)[0]
			assert.Equal(t, tc.wantCL, r.contentLength)
			assert.Equal(t, tc.chunked, len(r.transferEncoding) == 1 && r.transferEncoding[0] == "chunked")
			assert.Equal(t, tc.wantType, r.contentType)
			assert.Equal(t, tc.wantBody, string(r.body))
			if tc.method != "GET" && !tc.chunked {
				assert.NotEmpty(t, r.rawCL, "Content-Length header sent, even when 0")
			}
		})
	}
}

// multipartStream returns an open function producing a multipart form
// through an io.Pipe, as bgcontainer's SubmitImage will, counting opens.
func multipartStream(file []byte, opens *atomic.Int64) (func() (io.ReadCloser, error), string) {
	boundary := "pfc-test-boundary"
	open := func() (io.ReadCloser, error) {
		opens.Add(1)
		pr, pw := io.Pipe()
		go func() {
			mw := multipart.NewWriter(pw)
			_ = mw.SetBoundary(boundary)
			err := mw.WriteField("mode", "portrait")
			if err == nil {
				var fw io.Writer
				fw, err = mw.CreateFormFile("file", "photo.jpg")
				if err == nil {
					_, err = fw.Write(file)
				}
			}
			if err == nil {
				err = mw.Close()
			}
			pw.CloseWithError(err) // nil closes with EOF
		}()
		return pr, nil
	}
	return open, "multipart/form-data; boundary=" + boundary
}

func TestBodiesReplayedOnRetry(t *testing.T) {
	t.Parallel()
	file := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	var opens atomic.Int64
	open, ct := multipartStream(file, &opens)
	bodies := map[string]Body{
		"reader at":        ReaderAtBody(bytes.NewReader(file), int64(len(file)), "image/jpeg"),
		"bytes":            BytesBody(file, "image/jpeg"),
		"multipart stream": StreamBody(open, -1, ct),
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			got, base := recordingServer(t, http.StatusBadGateway, http.StatusServiceUnavailable)
			c := newClient(t, Options{BaseURL: base})
			resp, err := c.Do(context.Background(), &Request{Method: "POST", Path: "SubmitImage", Body: body})
			require.NoError(t, err)
			resp.Body.Close()
			require.Len(t, *got, 3)
			for i, r := range *got {
				assert.Equal(t, (*got)[0].body, r.body, "attempt %d resent the whole body", i+1)
			}
			if name == "multipart stream" {
				assert.Equal(t, int64(3), opens.Load(), "opened once per attempt, not by the request probe")
				mr := multipart.NewReader(bytes.NewReader((*got)[2].body), "pfc-test-boundary")
				form, err := mr.ReadForm(4 << 20)
				require.NoError(t, err)
				defer func() { _ = form.RemoveAll() }()
				assert.Equal(t, []string{"portrait"}, form.Value["mode"])
				require.Len(t, form.File["file"], 1)
				assert.Equal(t, int64(len(file)), form.File["file"][0].Size)
			} else {
				assert.Equal(t, file, (*got)[0].body)
			}
		})
	}
}

func TestStreamProducerStopsWhenBodyNotRead(t *testing.T) {
	t.Parallel()
	// The server answers 503 without reading an 8 MiB body: the pipe writer
	// goroutine must still end (goleak checks at exit).
	file := bytes.Repeat([]byte{7}, 8<<20)
	var opens atomic.Int64
	open, ct := multipartStream(file, &opens)
	cnt := &counter{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if cnt.inc() == 1 {
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
	})
	c := newClient(t, Options{BaseURL: srv.URL})
	resp, err := c.Do(context.Background(), &Request{Method: "POST", Path: "x", Body: StreamBody(open, -1, ct)})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, int64(2), opens.Load())
}

func TestReaderBodyNotRetriedOnceSent(t *testing.T) {
	t.Parallel()
	got, base := recordingServer(t, http.StatusServiceUnavailable)
	logs := &logRecorder{}
	c := newClient(t, Options{BaseURL: base, Logger: slogLogger(logs)})
	_, err := c.Do(context.Background(), &Request{Method: "PUT", Path: "x", Body: ReaderBody(strings.NewReader("once"), 4, "text/plain")})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrBodyNotReplayable)
	if failed := logs.find("pfc: request failed"); assert.Len(t, failed, 1) {
		assert.Equal(t, "the request body cannot be sent again", failed[0]["reason"].String())
		assert.Equal(t, err.Error(), failed[0]["error"].String())
	}
	assert.ErrorIs(t, err, apierr.ErrServer)
	var ae *apierr.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 503, ae.StatusCode)
	assert.Equal(t, 1, ae.Attempts)
	assert.Contains(t, err.Error(), "not retried: the request body is a single-use io.Reader")
	assert.Len(t, *got, 1)

	// The same ReaderBody cannot be sent by a second call.
	body := ReaderBody(strings.NewReader("once"), 4, "text/plain")
	resp, err := c.Do(context.Background(), &Request{Method: "PUT", Path: "y", Body: body})
	require.NoError(t, err)
	resp.Body.Close()
	_, err = c.Do(context.Background(), &Request{Method: "PUT", Path: "y", Body: body})
	assert.ErrorIs(t, err, ErrBodyNotReplayable)
	assert.Contains(t, err.Error(), "cannot be sent again")
	assert.Len(t, *got, 2)
}

func TestReaderBodyRetriedWhenNothingWasSent(t *testing.T) {
	t.Parallel()
	var calls int
	var sent []string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls++
		if calls == 1 {
			// Fail like a refused connection: the body is closed, not read.
			_ = r.Body.Close()
			return nil, errors.New("dial tcp: connection refused")
		}
		b, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			return nil, err
		}
		sent = append(sent, string(b))
		return &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
	})
	c := newClient(t, Options{BaseURL: "https://api.example.test", HTTPClient: &http.Client{Transport: rt}})
	resp, err := c.Do(context.Background(), &Request{Method: "PUT", Path: "x", Body: ReaderBody(strings.NewReader("all of it"), -1, "")})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 2, calls)
	assert.Equal(t, []string{"all of it"}, sent)

	// Once bytes were consumed, the same transport failure is final.
	calls = 0
	rt2 := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls++
		_, _ = io.ReadFull(r.Body, make([]byte, 3))
		_ = r.Body.Close()
		return nil, errors.New("connection reset by peer")
	})
	c2 := newClient(t, Options{BaseURL: "https://api.example.test", HTTPClient: &http.Client{Transport: rt2}})
	_, err = c2.Do(context.Background(), &Request{Method: "PUT", Path: "x", Body: ReaderBody(strings.NewReader("all of it"), 9, "")})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrBodyNotReplayable)
	assert.Contains(t, err.Error(), "connection reset by peer")
	assert.Contains(t, err.Error(), "not retried")
	assert.Equal(t, 1, calls)
}

type failingReaderAt struct{ err error }

func (f failingReaderAt) ReadAt(p []byte, off int64) (int, error) { return 0, f.err }

func TestBodySourceErrorsAreFinal(t *testing.T) {
	t.Parallel()
	cnt := &counter{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		cnt.inc()
		_, _ = io.Copy(io.Discard, r.Body)
	})
	c := newClient(t, Options{BaseURL: srv.URL})

	diskErr := errors.New("disk on fire")
	_, err := c.Do(context.Background(), &Request{Method: "PUT", Path: "x", Body: ReaderAtBody(failingReaderAt{diskErr}, 100, "")})
	require.Error(t, err)
	assert.ErrorIs(t, err, diskErr)
	assert.Contains(t, err.Error(), "disk on fire")
	assert.NotContains(t, err.Error(), "attempts")
	assert.LessOrEqual(t, cnt.get(), int64(1))

	_, err = c.Do(context.Background(), &Request{Method: "PUT", Path: "x", Body: ReaderAtBody(strings.NewReader("short"), 100, "")})
	require.Error(t, err)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Contains(t, err.Error(), "source ended after 5 of 100 bytes")
	assert.NotContains(t, err.Error(), "attempts")

	openErr := errors.New("cannot open")
	_, err = c.Do(context.Background(), &Request{Method: "PUT", Path: "x", Body: StreamBody(func() (io.ReadCloser, error) { return nil, openErr }, 10, "")})
	assert.ErrorIs(t, err, openErr)
	assert.NotContains(t, err.Error(), "attempts")
}

func TestInvalidBodies(t *testing.T) {
	t.Parallel()
	c := newClient(t, Options{BaseURL: "https://api.example.test"})
	for name, b := range map[string]Body{
		"nil reader at":   ReaderAtBody(nil, 1, ""),
		"negative size":   ReaderAtBody(strings.NewReader("x"), -1, ""),
		"nil open":        StreamBody(nil, 1, ""),
		"nil reader body": ReaderBody(nil, 1, ""),
	} {
		_, err := c.Do(context.Background(), &Request{Method: "PUT", Body: b})
		var ve *apierr.ValidationError
		require.ErrorAs(t, err, &ve, name)
		assert.Equal(t, []string{"Body"}, ve.Fields(), name)
	}
	_, err := JSONBody(make(chan int))
	assert.ErrorContains(t, err, "pfc: encoding JSON request body")

	assert.True(t, Body{}.IsZero())
	assert.Equal(t, int64(0), Body{}.Size())
	assert.Equal(t, int64(-1), StreamBody(func() (io.ReadCloser, error) { return nil, nil }, -5, "a/b").Size())
	assert.Equal(t, "a/b", BytesBody(nil, "a/b").ContentType())
}

// TestReaderAtBodyInMemory: a *bytes.Reader or *strings.Reader of exactly
// size bytes is sent as a rewound copy of the reader, a type net/http
// sends with its headers in one write; every attempt sends it whole, and
// the caller's reader keeps its position. Any other size, or source, is
// read through a section of it.
func TestReaderAtBodyInMemory(t *testing.T) {
	t.Parallel()
	data := "0123456789abcdef-in-memory"
	br, sr := bytes.NewReader([]byte(data)), strings.NewReader(data)
	_, _ = br.Read(make([]byte, 3))
	_, _ = sr.Read(make([]byte, 5))
	size := int64(len(data))
	for name, src := range map[string]io.ReaderAt{"bytes": br, "strings": sr} {
		got, base := recordingServer(t, http.StatusBadGateway)
		c := newClient(t, Options{BaseURL: base, MinRetryWait: time.Millisecond})
		resp, err := c.Do(context.Background(), &Request{Method: "PUT", Path: "u", Body: ReaderAtBody(src, size, "image/jpeg")})
		require.NoError(t, err, name)
		require.NoError(t, resp.Body.Close())
		require.Len(t, *got, 2, name)
		for _, r := range *got {
			assert.Equal(t, data, string(r.body), name)
			assert.Equal(t, size, r.contentLength, name)
		}
		open, _ := ReaderAtBody(src, size, "").readerFunc()
		r, err := open()
		require.NoError(t, err)
		assert.True(t, isInMemory(r), "%s: sent as net/http's in-memory type, got %T", name, r)
		open, _ = ReaderAtBody(src, size-1, "").readerFunc()
		r, err = open()
		require.NoError(t, err)
		assert.False(t, isInMemory(r), "%s: a part of it is read through a section", name)
	}
	assert.Equal(t, len(data)-3, br.Len(), "the caller's reader kept its position")
	assert.Equal(t, len(data)-5, sr.Len(), "the caller's reader kept its position")
}

func isInMemory(r io.Reader) bool {
	switch r.(type) {
	case *bytes.Reader, *strings.Reader:
		return true
	}
	return false
}
