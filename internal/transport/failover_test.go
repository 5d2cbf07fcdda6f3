package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rtFunc is an http.RoundTripper made of a function.
type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A FailOver request that never reached the server (dial refused) ends
// after one attempt, and NeverSent says so; without FailOver the same
// failure is retried. Failures after the request left keep the policy.
func TestFailOverEndsANeverSentCallAtOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		failOver bool
		fail     error
		attempts int64
		never    bool
	}{
		{"refused, fail over", true, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, 1, true},
		{"refused, default", false, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, 5, true},
		{"reset after sending, fail over", true, io.ErrUnexpectedEOF, 5, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int64
			hc := &http.Client{Transport: rtFunc(func(*http.Request) (*http.Response, error) {
				n.Add(1)
				return nil, c.fail
			})}
			cl := newClient(t, Options{BaseURL: "http://replica.invalid:8000", HTTPClient: hc})
			_, err := cl.Do(context.Background(), &Request{Method: http.MethodPut, Path: "pfc", FailOver: c.failOver})
			require.Error(t, err)
			assert.Equal(t, c.attempts, n.Load())
			assert.Equal(t, c.never, NeverSent(err))
		})
	}
	assert.False(t, NeverSent(nil))
	assert.False(t, NeverSent(errors.New("x")))
}

// A real refused connection (a closed port) is never sent.
func TestNeverSentRealRefusal(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	cl := newClient(t, Options{BaseURL: "http://" + addr})
	_, err = cl.Do(context.Background(), &Request{Method: http.MethodPost, Path: "SubmitImage", NoReplay: true, FailOver: true})
	require.Error(t, err)
	assert.True(t, NeverSent(err), "%v", err)
}
