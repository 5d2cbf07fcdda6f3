package mockserver_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bad-input sweeps: malformed requests sent byte for byte on fresh
// connections to a mock (the container sweeps are in
// pfccontainer_sweep_test.go and bgcontainer_sweep_test.go). Every one
// must be answered (a handler panic closes the connection without an
// answer, and is also caught in the server's error log) with its
// documented status, and never with a 5xx the seed does not document.

// sweepCase is one malformed request.
type sweepCase struct {
	name   string
	method string
	target string   // the request-target, sent as is
	header []string // "Name: value" lines
	body   string
	// declare is the Content-Length sent: 0 means len(body) (omitted for
	// an empty body), a larger value truncates the body (the connection is
	// half-closed after it), -1 sends the body chunked.
	declare int
	status  int
	code    string // the error body's code, when the answer is JSON; "" skips the check
}

// sweepServer serves h on an httptest server whose error log is captured.
type sweepServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	logs bytes.Buffer
}

// newSweepServer creates the server; its URL is known before h is set, so
// that a backend can be told its own address. Call start(h).
func newSweepServer(t *testing.T) *sweepServer {
	s := &sweepServer{srv: httptest.NewUnstartedServer(nil)}
	s.srv.Config.ErrorLog = log.New(s, "", 0)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *sweepServer) URL() string { return "http://" + s.srv.Listener.Addr().String() }

func (s *sweepServer) start(h http.Handler) {
	s.srv.Config.Handler = h
	s.srv.Start()
}

func (s *sweepServer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.Write(p)
}

func (s *sweepServer) errorLog() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// send writes c's request on a new connection and reads the answer.
func (s *sweepServer) send(t *testing.T, c sweepCase) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", s.srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(time.Minute)))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: sweep.test\r\nConnection: close\r\n", c.method, c.target)
	for _, h := range c.header {
		b.WriteString(h + "\r\n")
	}
	switch {
	case c.declare < 0:
		b.WriteString("Transfer-Encoding: chunked\r\n\r\n")
		if c.body != "" {
			fmt.Fprintf(&b, "%x\r\n%s\r\n", len(c.body), c.body)
		}
		b.WriteString("0\r\n\r\n")
	case c.declare > 0:
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", c.declare, c.body)
	case c.body != "":
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(c.body), c.body)
	default:
		b.WriteString("\r\n")
	}
	_, _ = io.WriteString(conn, b.String()) // the server may answer before it reads everything
	if c.declare > len(c.body) {
		_ = conn.(*net.TCPConn).CloseWrite()
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: c.method})
	require.NoError(t, err, "%s: no answer (a panic?)", c.name)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// run sends every case (in order: some depend on the state the earlier
// ones left) and checks the answers, then the error log.
func (s *sweepServer) run(t *testing.T, cases []sweepCase, serverErrorOK func(sweepCase) bool) {
	t.Helper()
	for _, c := range cases {
		resp, body := s.send(t, c)
		assert.Equal(t, c.status, resp.StatusCode, "%s: %s", c.name, body)
		if resp.StatusCode >= 500 && !serverErrorOK(c) {
			t.Errorf("%s: an undocumented %d: %s", c.name, resp.StatusCode, body)
		}
		if c.code != "" {
			var e struct{ Code string }
			_ = json.Unmarshal(body, &e)
			assert.Equal(t, c.code, e.Code, "%s: %s", c.name, body)
		}
	}
	assert.NotContains(t, s.errorLog(), "panic", "no handler panicked")
}

// bombPNG is a valid PNG header declaring a w×h RGBA image, with a tiny
// IDAT: a decompression bomb for a server that trusts the header.
func bombPNG(w, h uint32) string {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		crc := crc32.NewIEEE()
		b.WriteString(typ)
		crc.Write([]byte(typ))
		b.Write(data)
		crc.Write(data)
		_ = binary.Write(&b, binary.BigEndian, crc.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	chunk("IEND", nil)
	return b.String()
}

// bombJPEG is a JPEG whose SOF0 declares w×h (at most 65535 each),
// followed by nothing a decoder could use.
func bombJPEG(w, h uint16) string {
	var b bytes.Buffer
	b.WriteString("\xff\xd8")                                                     // SOI
	b.WriteString("\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00") // APP0
	b.WriteString("\xff\xc0\x00\x11\x08")                                         // SOF0, 8 bits
	_ = binary.Write(&b, binary.BigEndian, h)
	_ = binary.Write(&b, binary.BigEndian, w)
	b.WriteString("\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01") // 3 components
	b.WriteString("\xff\xd9")                                 // EOI
	return b.String()
}

// hugeHeader is one header line of n bytes. Keep n just over net/http's
// 1 MiB header limit: the server stops reading there, and a client still
// writing megabytes more could have its connection reset before it reads
// the 431.
func hugeHeader(n int) string { return "X-Huge: " + strings.Repeat("h", n) }
