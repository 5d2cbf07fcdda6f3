package bgcontainer

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// rawServer is a real listener that answers each connection's first
// request with the bytes answer returns, written raw, then either closes
// the connection or holds it open until the test ends.
type rawServer struct {
	ln    net.Listener
	mu    sync.Mutex
	paths []string
	reset bool // close each connection with a reset (SO_LINGER 0)
	wg    sync.WaitGroup
	done  chan struct{}
}

func startRaw(t *testing.T, hold bool, answer func(n int, path string) string) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &rawServer{ln: ln, done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for n := 0; ; n++ {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				s.mu.Lock()
				s.paths = append(s.paths, req.URL.Path)
				reset := s.reset
				s.mu.Unlock()
				_, _ = conn.Write([]byte(answer(n, req.URL.Path)))
				if tc, ok := conn.(*net.TCPConn); ok && reset {
					_ = tc.SetLinger(0)
				}
				if hold {
					<-s.done
				}
			}()
		}
	}()
	t.Cleanup(func() {
		close(s.done)
		_ = ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) client(t *testing.T) *Client {
	t.Helper()
	c, err := NewClient(secretKey, pfc.WithBaseURL("http://"+s.ln.Addr().String()),
		pfc.WithRetries(2, time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// stillBody is what a FastAPI container might send with its 102.
const stillBody = `{"detail":"Image is still processing"}`

// TestDownloadImageFinal102OnTheWire: the container's final
// "HTTP/1.1 102 Processing" (bare, with headers and a JSON body, the
// connection closed or held open) makes DownloadImage return promptly with
// pfc.ErrStillProcessing, after one request, writing nothing.
func TestDownloadImageFinal102OnTheWire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer string
		hold   bool
	}{
		{"bare, closed", "HTTP/1.1 102 Processing\r\n\r\n", false},
		{"bare, held open", "HTTP/1.1 102 Processing\r\n\r\n", true},
		{"with a JSON body, held open", fmt.Sprintf("HTTP/1.1 102 Processing\r\nContent-Type: application/json\r\n"+
			"Content-Length: %d\r\nX-Request-Id: req-102\r\n\r\n%s", len(stillBody), stillBody), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := startRaw(t, tt.hold, func(int, string) string { return tt.answer })
			c := s.client(t)
			var out bytes.Buffer
			_, err := c.DownloadImage(context.Background(), jobID, &out)
			require.ErrorIs(t, err, pfc.ErrStillProcessing)
			var ae *Error
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, http.StatusProcessing, ae.StatusCode)
			assert.Equal(t, string(epDownloadImage), ae.Endpoint)
			assert.NotErrorIs(t, err, pfc.ErrServer)
			assert.Zero(t, out.Len())
			s.mu.Lock()
			assert.Equal(t, []string{"/DownloadImage/" + jobID}, s.paths, "not retried")
			s.mu.Unlock()
		})
	}
}

// TestDownloadImageAfter102: once the job is done the next download works
// on a fresh connection.
func TestDownloadImageAfter102(t *testing.T) {
	t.Parallel()
	img := pngBytes(t, 3, 3)
	s := startRaw(t, false, func(n int, _ string) string {
		if n == 0 {
			return "HTTP/1.1 102 Processing\r\n\r\n"
		}
		return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(img), img)
	})
	c := s.client(t)
	var out bytes.Buffer
	_, err := c.DownloadImage(context.Background(), jobID, &out)
	require.ErrorIs(t, err, pfc.ErrStillProcessing)
	n, err := c.DownloadImage(context.Background(), jobID, &out)
	require.NoError(t, err)
	assert.Equal(t, int64(len(img)), n)
	assert.Equal(t, img, out.Bytes())
}

// cut returns a 200 answer that announces body's length, sends half of it
// and closes the connection (the mock's truncate fault).
func cut(contentType, body string) string {
	return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		contentType, len(body), body[:len(body)/2])
}

// whole returns a complete 200 answer with body.
func whole(contentType, body string) string {
	return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		contentType, len(body), body)
}

// TestWaitImageSurvivesTruncatedCheck: a CheckImage answer cut off
// mid-body is resent by the transport; the wait completes.
func TestWaitImageSurvivesTruncatedCheck(t *testing.T) {
	t.Parallel()
	done := `{"status":"completed","original_name":"cat.png","mode":"general","processing_time":1.5}`
	s := startRaw(t, false, func(n int, _ string) string {
		if n == 0 {
			return cut("application/json", done)
		}
		return whole("application/json", done)
	})
	c := s.client(t)
	r, err := c.WaitImage(context.Background(), jobID, &pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, StatusCompleted, r.Status)
	s.mu.Lock()
	assert.Len(t, s.paths, 2, "the cut answer resent once")
	s.mu.Unlock()
}

// TestDownloadImageCutOff: a download is never retried; a PNG cut off
// before its Content-Length fails with pfc.ErrTruncatedResponse, and
// DownloadImageFile leaves no file.
func TestDownloadImageCutOff(t *testing.T) {
	t.Parallel()
	img := string(pngBytes(t, 30, 30))
	s := startRaw(t, false, func(int, string) string { return cut("image/png", img) })
	c := s.client(t)
	var out bytes.Buffer
	n, err := c.DownloadImage(context.Background(), jobID, &out)
	require.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Equal(t, int64(len(img)/2), n)
	assert.Contains(t, err.Error(), fmt.Sprintf("cut off after %d of %d bytes", len(img)/2, len(img)))

	path := filepath.Join(t.TempDir(), "out.png")
	_, err = c.DownloadImageFile(context.Background(), jobID, path)
	require.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	_, statErr := os.Stat(path)
	assert.ErrorIs(t, statErr, fs.ErrNotExist)
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Empty(t, entries, "no temporary file left")
	s.mu.Lock()
	assert.Len(t, s.paths, 2, "one request per download: not retried")
	s.mu.Unlock()
}

// TestDownloadImageReset: a PNG whose connection is reset before its
// Content-Length also fails with pfc.ErrTruncatedResponse (it matched only
// syscall.ECONNRESET), and DownloadImageFile leaves no file.
func TestDownloadImageReset(t *testing.T) {
	t.Parallel()
	img := string(pngBytes(t, 30, 30))
	s := startRaw(t, false, func(int, string) string { return cut("image/png", img) })
	s.mu.Lock()
	s.reset = true
	s.mu.Unlock()
	c := s.client(t)
	var out bytes.Buffer
	_, err := c.DownloadImage(context.Background(), jobID, &out)
	require.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	assert.ErrorIs(t, err, syscall.ECONNRESET)
	path := filepath.Join(t.TempDir(), "out.png")
	_, err = c.DownloadImageFile(context.Background(), jobID, path)
	require.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Empty(t, entries, "no file left")
}
