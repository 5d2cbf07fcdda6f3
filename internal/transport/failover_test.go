package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// rtFunc is an http.RoundTripper made of a function.
type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A call sent with FailOver that never reached the server (dial refused) ends
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
			_, out, err := cl.Send(context.Background(), &Request{Method: http.MethodPut, Path: "pfc"}, SendOptions{FailOver: c.failOver})
			require.Error(t, err)
			assert.Equal(t, c.attempts, n.Load())
			assert.Equal(t, int(c.attempts), out.Attempts)
			assert.Equal(t, c.never, NeverSent(err))
		})
	}
	assert.False(t, NeverSent(nil))
	assert.False(t, NeverSent(errors.New("x")))
}

// closedAddr returns the address of a port that refuses connections.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// A real refused connection (a closed port) is never sent.
func TestNeverSentRealRefusal(t *testing.T) {
	t.Parallel()
	cl := newClient(t, Options{BaseURL: "http://" + closedAddr(t)})
	_, _, err := cl.Send(context.Background(), &Request{Method: http.MethodPost, Path: "SubmitImage", Endpoint: &Endpoint{}}, SendOptions{FailOver: true})
	require.Error(t, err)
	assert.True(t, NeverSent(err), "%v", err)
}

// A server that cannot be reached gives an error matching
// apierr.ErrUnreachable, with the *url.Error and net's cause still in the
// chain; a server reached, or a call whose context ended, does not.
func TestUnreachableMatchesTheSentinel(t *testing.T) {
	t.Parallel()
	addr := closedAddr(t)
	cl := newClient(t, Options{BaseURL: "http://" + addr, MaxRetries: 1})
	_, err := cl.Do(context.Background(), &Request{Path: "Status"})
	require.ErrorIs(t, err, apierr.ErrUnreachable)
	var ue *url.Error
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "http://"+addr+"/Status", ue.URL)
	var op *net.OpError
	require.ErrorAs(t, err, &op)
	assert.Equal(t, "dial", op.Op)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	assert.Contains(t, err.Error(), "(2 attempts)")

	for _, c := range []struct {
		name   string
		fail   error
		cancel bool
		want   bool
	}{
		{"host not resolved", &net.DNSError{Err: "no such host", Name: "replica.invalid", IsNotFound: true}, false, true},
		{"dial timed out", &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}, false, true},
		{"reset after sending", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, false, false},
		{"cut off", io.ErrUnexpectedEOF, false, false},
		{"dial cancelled", &net.OpError{Op: "dial", Net: "tcp", Err: context.Canceled}, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			hc := &http.Client{Transport: rtFunc(func(*http.Request) (*http.Response, error) {
				if c.cancel {
					cancel()
				}
				return nil, c.fail
			})}
			cl := newClient(t, Options{BaseURL: "http://replica.invalid:8000", HTTPClient: hc, MaxRetries: -1})
			_, err := cl.Do(ctx, &Request{Path: "Status"})
			require.Error(t, err)
			assert.Equal(t, c.want, errors.Is(err, apierr.ErrUnreachable), "%v", err)
			var ue *url.Error // the subtests run in parallel: one each
			assert.ErrorAs(t, err, &ue)
		})
	}

	// An answer, even a 503, is not unreachable.
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	_, err = newClient(t, Options{BaseURL: srv.URL, MaxRetries: -1}).Do(context.Background(), &Request{Path: "Status"})
	require.ErrorIs(t, err, apierr.ErrServer)
	assert.NotErrorIs(t, err, apierr.ErrUnreachable)
}
