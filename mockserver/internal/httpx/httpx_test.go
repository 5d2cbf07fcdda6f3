package httpx

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/mockserver/internal/blobstore"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestQuery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, query      string
		code, parameter  string
		wantQueryOfValue string
	}{
		{name: "allowed", query: "a=1&b=2", wantQueryOfValue: "1"},
		{name: "empty", query: ""},
		{name: "unknown", query: "a=1&zz=2", code: CodeUnknownParameter, parameter: "zz"},
		{name: "repeated", query: "a=1&a=2", code: CodeInvalidParameter, parameter: "a"},
		{name: "first in sorted order", query: "y=1&x=2", code: CodeUnknownParameter, parameter: "x"},
		{name: "malformed", query: "a=%zz", code: CodeInvalidParameter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodGet, "/x?"+tc.query, nil)
			q, e := Query(r, "a", "b")
			if tc.code == "" {
				require.Nil(t, e)
				assert.Equal(t, tc.wantQueryOfValue, q.Get("a"))
				return
			}
			require.NotNil(t, e)
			assert.Equal(t, http.StatusBadRequest, e.Status)
			assert.Equal(t, tc.code, e.Code)
			assert.Equal(t, tc.parameter, e.Parameter)
			if tc.parameter != "" {
				assert.True(t, strings.HasPrefix(e.Message, tc.parameter+": "), e.Message)
			}
		})
	}
}

func TestSingleAndBool(t *testing.T) {
	t.Parallel()
	q := map[string][]string{"t": {"true"}, "f": {"false"}, "x": {"yes"}, "r": {"true", "true"}}
	v, ok, e := Single(q, "t")
	assert.Equal(t, "true", v)
	assert.True(t, ok)
	assert.Nil(t, e)
	_, ok, e = Single(q, "none")
	assert.False(t, ok)
	assert.Nil(t, e)
	_, _, e = Single(q, "r")
	require.NotNil(t, e)
	assert.Equal(t, "r", e.Parameter)

	b, e := Bool(q, "t", false)
	assert.True(t, b)
	assert.Nil(t, e)
	b, e = Bool(q, "f", true)
	assert.False(t, b)
	assert.Nil(t, e)
	b, e = Bool(q, "none", true)
	assert.True(t, b)
	assert.Nil(t, e)
	_, e = Bool(q, "x", false)
	require.NotNil(t, e)
	assert.Equal(t, "x", e.Parameter)
	assert.Equal(t, CodeInvalidParameter, e.Code)
}

func TestIDs(t *testing.T) {
	t.Parallel()
	assert.Len(t, NewID(12), 24)
	assert.Equal(t, "", NewID(0))
	assert.Equal(t, "", NewID(-1))
	assert.NotEqual(t, NewID(8), NewID(8))
	seen := map[string]bool{}
	for range 100 {
		u := NewUUID()
		require.True(t, IsUUID(u), u)
		assert.Equal(t, byte('4'), u[14], "version 4: %s", u)
		assert.Contains(t, "89ab", string(u[19]), "variant: %s", u)
		assert.Equal(t, strings.ToLower(u), u)
		assert.False(t, seen[u])
		seen[u] = true
	}
	for s, want := range map[string]bool{
		"0B6F8C2E-5D4A-4F1E-9A3B-7C2D1E0F4A5B":  true,
		"0b6f8c2e5d4a4f1e9a3b7c2d1e0f4a5b":      false,
		"0b6f8c2e-5d4a-4f1e-9a3b-7c2d1e0f4a5":   false,
		"0b6f8c2e-5d4a-4f1e-9a3b-7c2d1e0f4a5g":  false,
		"0b6f8c2e-5d4a-4f1e-9a3b_7c2d1e0f4a5b":  false,
		"../../../etc/passwd-aaaaaaaaaaaaaaaaa": false,
		"":                                      false,
	} {
		assert.Equal(t, want, IsUUID(s), s)
	}
}

func TestRequestIDAndStatusRecorder(t *testing.T) {
	t.Parallel()
	var seen *StatusRecorder
	h := RequestID(nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = w.(*StatusRecorder)
		WriteError(w, Errorf(http.StatusTeapot, CodeConflict, "no"))
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Regexp(t, `^req_[0-9a-f]{16}$`, rec.Header().Get(RequestIDHeader))
	assert.Equal(t, http.StatusTeapot, seen.Status)
	assert.Equal(t, http.StatusTeapot, rec.Code)
	assert.JSONEq(t, `{"status":418,"code":"conflict","message":"no"}`, rec.Body.String())

	sr := &StatusRecorder{ResponseWriter: httptest.NewRecorder()}
	_, _ = sr.Write([]byte("x"))
	assert.Equal(t, http.StatusOK, sr.Status)
}

func TestAllow(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	assert.False(t, Allow(rec, httptest.NewRequest(http.MethodPost, "/", nil), http.MethodGet, http.MethodHead))
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, "GET, HEAD", rec.Header().Get("Allow"))
	var e Error
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
	assert.Equal(t, CodeMethodNotAllowed, e.Code)
	assert.True(t, Allow(httptest.NewRecorder(), httptest.NewRequest(http.MethodHead, "/", nil), http.MethodGet, http.MethodHead))
}

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("connection reset")
	}
	n := min(len(p), f.n)
	f.n -= n
	return n, nil
}

func TestReceiveLimited(t *testing.T) {
	t.Parallel()
	store, err := blobstore.Open(t.TempDir())
	require.NoError(t, err)
	ctx := context.Background()

	tmp, err := ReceiveLimited(ctx, store, strings.NewReader("hello"), 5, 5)
	require.NoError(t, err)
	assert.EqualValues(t, 5, tmp.Size)
	tmp.Discard()

	for name, tc := range map[string]struct {
		body    io.Reader
		length  int64
		ctx     context.Context
		status  int
		code    string
		generic bool
	}{
		"declared too large": {body: strings.NewReader(""), length: 6, status: 413, code: CodePayloadTooLarge},
		"streamed too large": {body: strings.NewReader("123456"), length: -1, status: 413, code: CodePayloadTooLarge},
		"broken body":        {body: &failingReader{n: 2}, length: -1, status: 400, code: CodeInvalidBody},
		"closing":            {body: &failingReader{n: 2}, length: -1, ctx: cancelled(), status: 503, code: CodeUnavailable},
	} {
		c := tc.ctx
		if c == nil {
			c = ctx
		}
		_, err := ReceiveLimited(c, store, tc.body, tc.length, 5)
		var e *Error
		require.ErrorAs(t, err, &e, name)
		assert.Equal(t, tc.status, e.Status, name)
		assert.Equal(t, tc.code, e.Code, name)
	}
	entries, err := store.Receive(strings.NewReader(""), 0) // the store still works
	require.NoError(t, err)
	entries.Discard()

	// The store's own failure is not an *Error: AsError makes it a 500
	// that does not repeat it.
	broken, err := blobstore.Open(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, removeAll(broken.Dir()))
	_, err = ReceiveLimited(ctx, broken, strings.NewReader("x"), 1, 5)
	require.Error(t, err)
	var e *Error
	require.False(t, errors.As(err, &e))
	ae := AsError(slog.New(slog.DiscardHandler), err)
	assert.Equal(t, http.StatusInternalServerError, ae.Status)
	assert.NotContains(t, ae.Message, broken.Dir())
	assert.Nil(t, AsError(nil, nil))
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// rawRequest sends a GET on a new TCP connection and returns everything
// the server sends until it closes the connection.
func rawRequest(t *testing.T, addr string) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	// A safety net for a broken server only: no assertion depends on it.
	require.NoError(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
	_, err = io.WriteString(conn, "GET /DownloadImage/x HTTP/1.1\r\nHost: test\r\n\r\n")
	require.NoError(t, err)
	b, err := io.ReadAll(conn)
	require.NoError(t, err, "the server closes the connection")
	return string(b)
}

func TestWriteFinalStatusOnTheWire(t *testing.T) {
	t.Parallel()
	recorded := make(chan int, 1)
	errs := make(chan error, 1)
	srv := httptest.NewServer(RequestID(nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Extra", "a\r\nInjected: yes")
		errs <- WriteFinalStatus(w, http.StatusProcessing, "")
		recorded <- w.(*StatusRecorder).Status
	})))
	defer srv.Close()

	got := rawRequest(t, srv.Listener.Addr().String())
	require.NoError(t, <-errs)
	assert.Equal(t, http.StatusProcessing, <-recorded)
	head, rest, ok := strings.Cut(got, "\r\n\r\n")
	require.True(t, ok, "a complete header block: %q", got)
	assert.Empty(t, rest, "no body, nothing after the status")
	lines := strings.Split(head, "\r\n")
	assert.Equal(t, "HTTP/1.1 102 Processing", lines[0], "the first and only status line")
	assert.NotContains(t, got, "HTTP/1.1 200", "no final 200 after the 102")
	assert.Contains(t, lines, "Connection: close")
	assert.Contains(t, lines, "X-Extra: a  Injected: yes", "header values stay on one line")
	var sawID, sawDate bool
	for _, l := range lines[1:] {
		sawID = sawID || strings.HasPrefix(l, "X-Request-Id: req_")
		sawDate = sawDate || strings.HasPrefix(l, "Date: ")
		assert.False(t, strings.HasPrefix(l, "Content-Length"), l)
	}
	assert.True(t, sawID)
	assert.True(t, sawDate)

	// Go's own client sees an informational 102 and then the connection
	// closing: no final response.
	resp, err := http.Get(srv.URL + "/x")
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err)
	require.NoError(t, <-errs)
	<-recorded
}

func TestWriteFinalStatusCustomReasonAndBadArguments(t *testing.T) {
	t.Parallel()
	errs := make(chan error, 3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		errs <- WriteFinalStatus(w, 1000, "x")
		errs <- WriteFinalStatus(w, 102, "a\nb")
		errs <- WriteFinalStatus(w, 299, "Still Busy")
	}))
	defer srv.Close()
	got := rawRequest(t, srv.Listener.Addr().String())
	require.ErrorIs(t, <-errs, ErrFinalStatus)
	require.ErrorIs(t, <-errs, ErrFinalStatus)
	require.NoError(t, <-errs)
	assert.True(t, strings.HasPrefix(got, "HTTP/1.1 299 Still Busy\r\n"), got)

	// Without a connection to hijack it fails and writes nothing.
	rec := httptest.NewRecorder()
	err := WriteFinalStatus(rec, 102, "")
	require.ErrorIs(t, err, ErrFinalStatus)
	assert.False(t, rec.Flushed)
	assert.Empty(t, rec.Body.String())
}

func TestAbortBodyOnClose(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	readErr := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer AbortBodyOnClose(ctx, w)()
		close(started)
		_, err := io.Copy(io.Discard, r.Body)
		readErr <- err
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc")
	require.NoError(t, err)
	<-started
	cancel()
	require.Error(t, <-readErr, "the stalled body read is interrupted")
	_, _ = bufio.NewReader(conn).ReadString('\n')
}

func removeAll(dir string) error { return os.RemoveAll(dir) }

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}

func TestStatusRecorderSkipsInformational(t *testing.T) {
	t.Parallel()
	sr := &StatusRecorder{ResponseWriter: &discardWriter{h: http.Header{}}}
	sr.WriteHeader(http.StatusEarlyHints)
	assert.Zero(t, sr.Status)
	sr.WriteHeader(http.StatusCreated)
	sr.WriteHeader(http.StatusOK)
	assert.Equal(t, http.StatusCreated, sr.Status)
}
