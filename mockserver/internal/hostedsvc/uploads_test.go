package hostedsvc

import (
	"errors"
	"io"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// gatedReader is a PUT body that blocks until released: with nil it
// yields data then EOF, with an error it fails (the client went away).
type gatedReader struct {
	started chan struct{}
	release chan error
	once    sync.Once
	data    []byte
	done    bool
}

func newGatedReader(data string) *gatedReader {
	return &gatedReader{started: make(chan struct{}), release: make(chan error, 1), data: []byte(data)}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	g.once.Do(func() { close(g.started) })
	if g.done {
		return 0, io.EOF
	}
	if err := <-g.release; err != nil {
		return 0, err
	}
	g.done = true
	return copy(p, g.data), nil
}

// TestFailedPUTKeepsAConcurrentlyStoredUpload: the ticket expires while
// two PUTs are being received (the expiry waits for them); the first
// stores the file, the second breaks off. The stored file stays: it has
// its own retention. The failed PUT used to carry out the deferred expiry
// and remove it.
func TestFailedPUTKeepsAConcurrentlyStoredUpload(t *testing.T) {
	t.Parallel()
	s, fk := newServiceWith(t, nil)
	tk, aerr := s.RequestUpload("k", url.Values{}, "http://mock.test")
	require.Nil(t, aerr)
	key, q := signedQuery(t, tk.UploadURL)
	a, b := newGatedReader(string(pngBytes(t, 0))), newGatedReader("BBBB")
	resA, resB := make(chan *httpx.Error, 1), make(chan *httpx.Error, 1)
	go func() { resA <- s.ReceiveUpload(key, q, a, -1) }()
	go func() { resB <- s.ReceiveUpload(key, q, b, -1) }()
	<-a.started
	<-b.started
	fk.Advance(DefaultUploadURLTTL + 2*time.Second) // the ticket's expiry: deferred
	a.release <- nil
	require.Nil(t, <-resA, "the first PUT stores the file")
	b.release <- errors.New("connection reset")
	require.NotNil(t, <-resB)

	// Usable: the job reads the first PUT's PNG (and fails only for want
	// of a processor).
	rec, _ := jobRecord(t, s, startJob(t, s, "fileKey="+key))
	assert.Equal(t, JobCodeNoEngine, rec.Code, "%+v", rec)

	// The file's own retention still ends it.
	fk.Advance(UploadRetention)
	q2, _ := url.ParseQuery("fileKey=" + key)
	_, aerr = s.StartJob("k", q2, "http://mock.test")
	require.NotNil(t, aerr)
	assert.Equal(t, 404, aerr.Status)
}

// TestExpiryWaitsForTheLastFailedPUT: when every PUT in flight at the
// ticket's expiry fails, the ticket expires once the last one ends.
func TestExpiryWaitsForTheLastFailedPUT(t *testing.T) {
	t.Parallel()
	s, fk := newServiceWith(t, nil)
	tk, aerr := s.RequestUpload("k", url.Values{}, "http://mock.test")
	require.Nil(t, aerr)
	key, q := signedQuery(t, tk.UploadURL)
	a, b := newGatedReader("AAAA"), newGatedReader("BBBB")
	resA, resB := make(chan *httpx.Error, 1), make(chan *httpx.Error, 1)
	go func() { resA <- s.ReceiveUpload(key, q, a, -1) }()
	go func() { resB <- s.ReceiveUpload(key, q, b, -1) }()
	<-a.started
	<-b.started
	fk.Advance(DefaultUploadURLTTL + 2*time.Second)
	a.release <- errors.New("connection reset")
	require.NotNil(t, <-resA)
	s.mu.Lock()
	_, present := s.uploads[key]
	s.mu.Unlock()
	assert.True(t, present, "a PUT is still in flight")
	b.release <- errors.New("connection reset")
	require.NotNil(t, <-resB)
	s.mu.Lock()
	_, present = s.uploads[key]
	s.mu.Unlock()
	assert.False(t, present, "expired once the last PUT ended")
}
