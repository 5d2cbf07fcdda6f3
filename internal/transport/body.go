package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// ErrBodyNotReplayable is in the chain of the error returned when a request
// could have been retried but was not, because its body came from
// ReaderBody and bytes of it had already been read, or when such a body is
// used for a second request.
var ErrBodyNotReplayable = errors.New("pfc: request body is a single-use io.Reader that was already read, so it cannot be sent again")

// Body is a request body that the transport can send again on a retry
// without holding it in memory. The zero value is "no body". Build one with
// BytesBody, JSONBody, ReaderAtBody, StreamBody or ReaderBody.
type Body struct {
	contentType string
	// size is the exact length in bytes, or -1 when unknown (chunked).
	size int64
	// open returns a fresh reader positioned at the start, once per attempt.
	open func() (io.Reader, error)
	// once is set for ReaderBody, which cannot be reopened.
	once *singleUse
	// bytes is set for BytesBody: its reader cannot fail or end early.
	bytes []byte
	// inMemory is set for a ReaderAtBody whose source holds its bytes in
	// memory: it returns a rewound copy of that reader, once per attempt.
	inMemory func() io.Reader
	// err is a construction error, reported by Do before any request.
	err error
}

// IsZero reports whether b is the zero Body (no request body).
func (b Body) IsZero() bool {
	return b.open == nil && b.once == nil && b.inMemory == nil && b.err == nil
}

// ContentType returns the media type the body was built with.
func (b Body) ContentType() string { return b.contentType }

// Size returns the body's length in bytes, or -1 when it is unknown.
func (b Body) Size() int64 {
	if b.IsZero() {
		return 0
	}
	return b.size
}

// BytesBody returns a body holding b (not copied: b must not change until
// the request is done).
func BytesBody(b []byte, contentType string) Body {
	return Body{
		contentType: contentType,
		size:        int64(len(b)),
		open:        func() (io.Reader, error) { return bytes.NewReader(b), nil },
		bytes:       b,
	}
}

// JSONBody returns v encoded as JSON, with Content-Type application/json.
func JSONBody(v any) (Body, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Body{}, fmt.Errorf("pfc: encoding JSON request body: %w", err)
	}
	return BytesBody(b, "application/json"), nil
}

// ReaderAtBody returns a body of exactly size bytes read from r (an
// *os.File, a *bytes.Reader ...) through a fresh io.SectionReader on every
// attempt, so a retry resends it from the start and nothing is buffered. The
// request carries Content-Length: size; a source shorter than size fails the
// request without a retry.
//
// A *bytes.Reader or *strings.Reader of exactly size bytes is sent as
// http.NewRequest sends one: a copy of the reader (not of its bytes),
// rewound, which net/http knows to be in memory, so it writes the headers
// and the body together instead of flushing the headers first (one packet
// and one wake-up of the server less per upload). Like http.NewRequest,
// making the copy reads the reader's position: the caller must not Read,
// Seek or Reset it during the request.
func ReaderAtBody(r io.ReaderAt, size int64, contentType string) Body {
	if r == nil || size < 0 {
		return Body{err: invalidBody("ReaderAtBody needs a non-nil io.ReaderAt and a size >= 0")}
	}
	if size > 0 {
		switch src := r.(type) {
		case *bytes.Reader:
			if src != nil && src.Size() == size {
				return Body{contentType: contentType, size: size, inMemory: rewound(src)}
			}
		case *strings.Reader:
			if src != nil && src.Size() == size {
				return Body{contentType: contentType, size: size, inMemory: rewound(src)}
			}
		}
	}
	return Body{
		contentType: contentType,
		size:        size,
		open:        func() (io.Reader, error) { return io.NewSectionReader(r, 0, size), nil },
	}
}

// rewound returns a func that copies the reader src (a *bytes.Reader or
// *strings.Reader, whose copies share its bytes) and rewinds the copy.
func rewound[R any, P interface {
	*R
	io.ReadSeeker
}](src P) func() io.Reader {
	return func() io.Reader {
		cp := *src
		_, _ = P(&cp).Seek(0, io.SeekStart)
		return P(&cp)
	}
}

// StreamBody returns a body produced by open, which is called once per
// attempt (lazily, when the transport starts sending) and must return the
// whole body from the start each time: for example a new io.Pipe fed by a
// goroutine that writes a multipart form. The transport closes what open
// returns, which must stop such a goroutine. size is the exact length, or
// negative when unknown (the request is then sent chunked).
func StreamBody(open func() (io.ReadCloser, error), size int64, contentType string) Body {
	if open == nil {
		return Body{err: invalidBody("StreamBody needs a non-nil open function")}
	}
	if size < 0 {
		size = -1
	}
	return Body{
		contentType: contentType,
		size:        size,
		open:        func() (io.Reader, error) { return &lazyStream{open: open}, nil },
	}
}

// ReaderBody returns a body read once from r; size is its exact length, or
// negative when unknown (chunked). Such a body cannot be replayed: once any
// byte of it was sent, a failed attempt is not retried and the error wraps
// ErrBodyNotReplayable. r is never closed. Prefer ReaderAtBody or StreamBody.
func ReaderBody(r io.Reader, size int64, contentType string) Body {
	if r == nil {
		return Body{err: invalidBody("ReaderBody needs a non-nil io.Reader")}
	}
	if size < 0 {
		size = -1
	}
	return Body{contentType: contentType, size: size, once: &singleUse{r: r}}
}

func invalidBody(msg string) error {
	var errs apierr.FieldErrors
	errs.Add("Body", "%s", msg)
	return errs.Err()
}

// readerFunc returns the per-attempt body factory handed to retryablehttp
// (which io.ReadAll's plain readers, so it must always get a function) and
// the Content-Length to send (-1 = chunked). A nil factory means no body.
func (b Body) readerFunc() (func() (io.Reader, error), int64) {
	switch {
	case b.IsZero():
		return nil, 0
	case b.size == 0:
		// http.NoBody is the only way to say "known to be empty": a zero
		// ContentLength with any other body means "unknown".
		return func() (io.Reader, error) { return http.NoBody, nil }, 0
	case b.bytes != nil:
		// A *bytes.Reader of exactly size bytes cannot fail or end early,
		// so it needs no sourceReader; given as is, net/http knows it is in
		// memory and sends headers and body together instead of flushing
		// the headers first (one packet less per request).
		return func() (io.Reader, error) { return bytes.NewReader(b.bytes), nil }, b.size
	case b.inMemory != nil:
		// Like bytes: exactly size bytes, which cannot fail or end early.
		return func() (io.Reader, error) { return b.inMemory(), nil }, b.size
	case b.once != nil:
		return func() (io.Reader, error) {
			r, err := b.once.attempt()
			if err != nil {
				return nil, err
			}
			return &sourceReader{r: r, want: b.size}, nil
		}, b.size
	default:
		return func() (io.Reader, error) {
			r, err := b.open()
			if err != nil {
				return nil, &bodyError{err: err}
			}
			return &sourceReader{r: r, want: b.size}, nil
		}, b.size
	}
}

// bodyError marks a failure of the caller's body source. Retrying would read
// the same source again, so such errors end the request at once.
type bodyError struct{ err error }

func (e *bodyError) Error() string { return "pfc: reading request body: " + e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

// sourceReader wraps one attempt's body reader: it marks the source's errors
// as bodyError and turns a source that ends before its declared size into
// one (instead of a generic ContentLength mismatch that would be retried).
type sourceReader struct {
	r    io.Reader
	want int64 // -1 = unknown
	n    int64
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n += int64(n)
	switch {
	case err == io.EOF:
		if s.want >= 0 && s.n < s.want {
			return n, &bodyError{err: fmt.Errorf("source ended after %d of %d bytes: %w", s.n, s.want, io.ErrUnexpectedEOF)}
		}
	case err != nil:
		var be *bodyError
		if !errors.As(err, &be) {
			err = &bodyError{err: err}
		}
	}
	return n, err
}

// Close closes the attempt's reader when it is one of ours (a lazyStream);
// caller-owned readers (ReaderBody, ReaderAtBody sources) are left open.
func (s *sourceReader) Close() error {
	if c, ok := s.r.(*lazyStream); ok {
		return c.Close()
	}
	return nil
}

// lazyStream calls open on the first Read, so that retryablehttp's probe of
// the body factory (it calls it once when the request is built) does not
// start a producer. Close may come from another goroutine than Read (the
// transport closes bodies on cancellation), hence the mutex; it is not held
// during Read so that Close can interrupt a blocked Read (an io.Pipe).
type lazyStream struct {
	open   func() (io.ReadCloser, error)
	mu     sync.Mutex
	rc     io.ReadCloser
	closed bool
}

var errStreamClosed = errors.New("stream closed")

func (l *lazyStream) Read(p []byte) (int, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return 0, errStreamClosed
	}
	if l.rc == nil {
		rc, err := l.open()
		if err != nil {
			l.mu.Unlock()
			return 0, &bodyError{err: fmt.Errorf("opening stream: %w", err)}
		}
		if rc == nil {
			rc = http.NoBody
		}
		l.rc = rc
	}
	rc := l.rc
	l.mu.Unlock()
	return rc.Read(p)
}

func (l *lazyStream) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	rc := l.rc
	l.mu.Unlock()
	if rc != nil {
		return rc.Close()
	}
	return nil
}

// singleUse is the shared state of a ReaderBody across attempts. Each
// attempt gets a reader bound to a generation; starting a new attempt bumps
// the generation so that a previous attempt's writer (the transport may still
// be reading in another goroutine) can no longer consume bytes.
type singleUse struct {
	r       io.Reader
	mu      sync.Mutex
	gen     int
	sent    int64
	reading bool
}

var errStaleAttempt = errors.New("body reader of a previous attempt")

// attempt returns the reader for a new attempt, or ErrBodyNotReplayable when
// bytes were already consumed.
func (s *singleUse) attempt() (io.Reader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sent > 0 || s.reading {
		return nil, ErrBodyNotReplayable
	}
	s.gen++
	return &singleUseReader{s: s, gen: s.gen}, nil
}

// replayable reports whether a retry can still send the whole body, and if
// so retires the current attempt's reader.
func (s *singleUse) replayable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sent > 0 || s.reading {
		return false
	}
	s.gen++
	return true
}

type singleUseReader struct {
	s   *singleUse
	gen int
}

func (r *singleUseReader) Read(p []byte) (int, error) {
	s := r.s
	s.mu.Lock()
	if r.gen != s.gen {
		s.mu.Unlock()
		return 0, &bodyError{err: errStaleAttempt}
	}
	// reading (not the mutex) guards the Read itself, so that a blocked
	// source never blocks the retry decision; a retry is refused meanwhile.
	s.reading = true
	s.mu.Unlock()
	n, err := s.r.Read(p)
	s.mu.Lock()
	s.sent += int64(n)
	s.reading = false
	s.mu.Unlock()
	return n, err
}
