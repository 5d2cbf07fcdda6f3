package webhooksend_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
	"github.com/pfcsdk/pfc-go/mockserver/internal/webhooksend"
)

// scaledSender is a Sender on a clock.Scaled of factor (-time-scale)
// with the attempt timeout timeout (0: the default), delivering to
// handler; attempts receives every attempt as it is reported.
func scaledSender(t *testing.T, factor float64, timeout time.Duration, handler http.Handler) (*webhooksend.Sender, *httptest.Server, <-chan webhooksend.Attempt) {
	t.Helper()
	sc, err := clock.NewScaled(factor)
	require.NoError(t, err)
	tracker := activity.New(sc)
	srv := httptest.NewTLSServer(handler)
	attempts := make(chan webhooksend.Attempt, 16)
	s, err := webhooksend.New(webhooksend.Config{
		Tracker: tracker, Sign: testSign, Client: srv.Client(), AttemptTimeout: timeout,
		OnAttempt: func(a webhooksend.Attempt) { attempts <- a },
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		s.Close()
		tracker.Close()
		srv.Close()
	})
	return s, srv, attempts
}

// nextAttempt waits for the next attempt to be reported.
func nextAttempt(t *testing.T, attempts <-chan webhooksend.Attempt) webhooksend.Attempt {
	t.Helper()
	select {
	case a := <-attempts:
		return a
	case <-time.After(time.Minute):
		require.FailNow(t, "no attempt was reported")
		return webhooksend.Attempt{}
	}
}

// TestAttemptTimeoutIsNotScaled: at -time-scale 0.001 the 30 s attempt
// timeout used to be 30 ms, so a receiver answering a little later was
// cut off, sent the event again at every retry, and the delivery was
// abandoned. The timeout bounds a network exchange: it is not scaled.
func TestAttemptTimeoutIsNotScaled(t *testing.T) {
	t.Parallel()
	const factor = 0.001
	sc, err := clock.NewScaled(factor)
	require.NoError(t, err)
	work := sc.Scale(webhooksend.DefaultAttemptTimeout) + 50*time.Millisecond // past the scaled timeout
	var n atomic.Int32
	s, srv, attempts := scaledSender(t, factor, 0, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		time.Sleep(work)
		w.WriteHeader(http.StatusNoContent)
	}))
	s.Send(webhooksend.Delivery{URL: srv.URL, Secret: []byte("k"), EventID: "evt_slow", Body: []byte(`{}`)})
	a := nextAttempt(t, attempts)
	assert.True(t, a.Delivered, "the first attempt waits for the answer: %+v", a)
	for !a.Final {
		a = nextAttempt(t, attempts)
	}
	assert.Equal(t, 1, a.Number, "the delivery ended with the first attempt")
	assert.Equal(t, int32(1), n.Load(), "delivered once")
}

// TestAttemptTimeoutStillAppliesOnAScaledClock: on a scaled clock a
// receiver that never answers is still cut off after AttemptTimeout.
func TestAttemptTimeoutStillAppliesOnAScaledClock(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	s, srv, attempts := scaledSender(t, 0.001, 100*time.Millisecond, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release) }) // before the server closes
	s.Send(webhooksend.Delivery{URL: srv.URL, Secret: []byte("k"), EventID: "evt_hang", Body: []byte(`{}`)})
	a := nextAttempt(t, attempts)
	require.Error(t, a.Err)
	assert.Contains(t, a.Err.Error(), "timed out")
	assert.False(t, a.Final, "retried")
}
