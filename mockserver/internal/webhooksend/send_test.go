package webhooksend_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
	"github.com/pfcsdk/pfc-go/mockserver/internal/webhooksend"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// testSign is a local stand-in with the webhook scheme, so this package's
// tests do not depend on package webhook.
func testSign(secret []byte, id string, ts time.Time, body []byte) http.Header {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
	m.Write(body)
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	return h
}

type receiver struct {
	mu       sync.Mutex
	requests []*http.Request
	bodies   [][]byte
	status   func(n int) int // status for the n-th request (1-based)
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.requests = append(rc.requests, r)
	rc.bodies = append(rc.bodies, b)
	n := len(rc.requests)
	rc.mu.Unlock()
	w.WriteHeader(rc.status(n))
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.requests)
}

type fixture struct {
	clk      *clock.Fake
	tracker  *activity.Tracker
	sender   *webhooksend.Sender
	srv      *httptest.Server
	rc       *receiver
	mu       sync.Mutex
	attempts []webhooksend.Attempt
}

func newFixture(t *testing.T, handler http.Handler, rc *receiver) *fixture {
	t.Helper()
	fake := clock.NewFake(t0)
	return newFixtureOn(t, fake, fake, handler, rc)
}

// newFixtureOn runs the sender on clk, whose timers are fake's.
func newFixtureOn(t *testing.T, clk clock.Clock, fake *clock.Fake, handler http.Handler, rc *receiver) *fixture {
	t.Helper()
	f := &fixture{clk: fake, rc: rc}
	f.tracker = activity.New(clk)
	f.srv = httptest.NewTLSServer(handler)
	s, err := webhooksend.New(webhooksend.Config{
		Tracker: f.tracker,
		Sign:    testSign,
		Client:  f.srv.Client(),
		OnAttempt: func(a webhooksend.Attempt) {
			f.mu.Lock()
			f.attempts = append(f.attempts, a)
			f.mu.Unlock()
		},
	})
	require.NoError(t, err)
	f.sender = s
	t.Cleanup(func() {
		s.Close()
		f.tracker.Close()
		f.srv.Close()
	})
	return f
}

func (f *fixture) idle(t *testing.T) {
	t.Helper()
	require.NoError(t, f.tracker.WaitIdle(context.Background()))
}

// advance moves the fake clock forward by d one due timer at a time,
// letting the work each timer starts finish before the next.
func (f *fixture) advance(t *testing.T, d time.Duration) {
	t.Helper()
	end := f.clk.Now().Add(d)
	for {
		next, ok := f.clk.NextDeadline()
		if !ok || next.After(end) {
			break
		}
		f.clk.AdvanceTo(next)
		f.idle(t)
	}
	f.clk.AdvanceTo(end)
	f.idle(t)
}

func (f *fixture) got() []webhooksend.Attempt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]webhooksend.Attempt(nil), f.attempts...)
}

func TestDeliveredFirstTime(t *testing.T) {
	rc := &receiver{status: func(int) int { return http.StatusNoContent }}
	f := newFixture(t, rc, rc)
	body := []byte(`{"_id":"abc","status":"COMPLETED"}`)
	f.sender.Send(webhooksend.Delivery{URL: f.srv.URL + "/hook", Secret: []byte("key"), EventID: "evt_abc", Body: body})
	f.idle(t)

	require.Equal(t, 1, rc.count())
	r := rc.requests[0]
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/hook", r.URL.Path)
	assert.Equal(t, body, rc.bodies[0])
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.Equal(t, "service-Webhook/1.0", r.Header.Get("User-Agent"))
	assert.Equal(t, "evt_abc", r.Header.Get("webhook-id"))
	assert.Equal(t, strconv.FormatInt(t0.Unix(), 10), r.Header.Get("webhook-timestamp"))
	assert.Equal(t, testSign([]byte("key"), "evt_abc", t0, body).Get("webhook-signature"), r.Header.Get("webhook-signature"))
	a := f.got()
	require.Len(t, a, 1)
	assert.True(t, a[0].Delivered)
	assert.True(t, a[0].Final)
	assert.Equal(t, 0, f.clk.Pending(), "no retry scheduled")
}

func TestFullRetryScheduleThenGiveUp(t *testing.T) {
	rc := &receiver{status: func(int) int { return http.StatusInternalServerError }}
	f := newFixture(t, rc, rc)
	f.sender.Send(webhooksend.Delivery{URL: f.srv.URL, Secret: []byte("key"), EventID: "evt_x", Body: []byte(`{}`)})
	f.idle(t)
	f.advance(t, time.Hour)
	require.Equal(t, 9, rc.count(), "1 attempt + 8 retries")
	var offsets []time.Duration
	for _, r := range rc.requests {
		ts, err := strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64)
		require.NoError(t, err)
		offsets = append(offsets, time.Unix(ts, 0).Sub(t0))
		assert.Equal(t, "evt_x", r.Header.Get("webhook-id"), "retries keep the event id")
	}
	assert.Equal(t, append([]time.Duration{0}, webhooksend.DefaultSchedule...), offsets)
	a := f.got()
	require.Len(t, a, 9)
	for i, at := range a {
		assert.Equal(t, i+1, at.Number)
		assert.Equal(t, 500, at.StatusCode)
		assert.False(t, at.Delivered)
		assert.Equal(t, i == 8, at.Final)
	}
	assert.Equal(t, 0, f.clk.Pending())
}

// scaledNow models clock.Scaled at a small factor: its timers run (on
// the fake clock here) while its Now, the wall clock, hardly moves.
type scaledNow struct{ *clock.Fake }

func (scaledNow) Now() time.Time { return t0 }

// TestRetryGapsOnAScaledClock: the retries keep the schedule's gaps on a
// clock whose Now does not move with its timers (-time-scale). Due times
// computed from Now made every wait the whole offset from the first
// attempt: 1, 3, 6, 11... minutes apart instead of 1, 2, 3, 5...
func TestRetryGapsOnAScaledClock(t *testing.T) {
	t.Parallel()
	rc := &receiver{status: func(int) int { return http.StatusInternalServerError }}
	fake := clock.NewFake(t0)
	f := newFixtureOn(t, scaledNow{fake}, fake, rc, rc)
	f.sender.Send(webhooksend.Delivery{URL: f.srv.URL, Secret: []byte("key"), EventID: "evt_x", Body: []byte(`{}`)})
	f.idle(t)

	offsets := []time.Duration{0}
	for rc.count() < 9 {
		next, ok := fake.NextDeadline()
		require.True(t, ok, "a retry is pending after %d attempts", rc.count())
		before := rc.count()
		fake.AdvanceTo(next)
		f.idle(t)
		if rc.count() > before {
			offsets = append(offsets, fake.Now().Sub(t0))
		}
	}
	assert.Equal(t, append([]time.Duration{0}, webhooksend.DefaultSchedule...), offsets)
	assert.Equal(t, 0, fake.Pending(), "no retry after the last")
}

func TestRetryStopsOnSuccess(t *testing.T) {
	rc := &receiver{status: func(n int) int {
		if n < 3 {
			return http.StatusBadGateway
		}
		return http.StatusOK
	}}
	f := newFixture(t, rc, rc)
	f.sender.Send(webhooksend.Delivery{URL: f.srv.URL, Secret: []byte("k"), EventID: "evt_y", Body: []byte(`{}`)})
	f.idle(t)
	f.advance(t, time.Hour)
	assert.Equal(t, 3, rc.count())
	a := f.got()
	require.Len(t, a, 3)
	assert.True(t, a[2].Delivered)
	assert.Equal(t, []time.Time{t0, t0.Add(time.Minute), t0.Add(3 * time.Minute)}, []time.Time{a[0].At, a[1].At, a[2].At})
}

func TestRedirectIsAFailure(t *testing.T) {
	rc := &receiver{status: func(int) int { return http.StatusFound }}
	f := newFixture(t, rc, rc)
	f.sender.Send(webhooksend.Delivery{URL: f.srv.URL, Secret: []byte("k"), EventID: "evt_r", Body: []byte(`{}`)})
	f.idle(t)
	a := f.got()
	require.Len(t, a, 1)
	assert.Equal(t, http.StatusFound, a[0].StatusCode)
	assert.False(t, a[0].Delivered)
	assert.False(t, a[0].Final)
}

func TestTimeoutOnTheClockIsRetried(t *testing.T) {
	arrived := make(chan struct{}, 16)
	release := make(chan struct{})
	var calls sync.Mutex
	n := 0
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Lock()
		n++
		first := n == 1
		calls.Unlock()
		if first {
			// The server notices the client going away only once the
			// body has been read.
			_, _ = io.ReadAll(r.Body)
			arrived <- struct{}{}
			// Hang past the sender's timeout. (Not on r.Context(): the
			// server may cancel it before the client gives up.)
			<-release
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	f := newFixture(t, handler, nil)
	t.Cleanup(func() { close(release) }) // before the server closes
	f.sender.Send(webhooksend.Delivery{URL: f.srv.URL, Secret: []byte("k"), EventID: "evt_t", Body: []byte(`{}`)})
	<-arrived
	f.clk.BlockUntil(1) // the attempt's timeout timer
	f.clk.Advance(webhooksend.DefaultAttemptTimeout)
	f.idle(t)
	a := f.got()
	require.Len(t, a, 1)
	require.Error(t, a[0].Err, "%+v", a[0])
	assert.Contains(t, a[0].Err.Error(), "timed out")
	f.advance(t, time.Minute)
	a = f.got()
	require.Len(t, a, 2)
	assert.True(t, a[1].Delivered, "%+v", a[1])
	assert.Equal(t, t0.Add(time.Minute), a[1].At, "retry 1 minute after the first attempt")
}

func TestNonHTTPSDropped(t *testing.T) {
	rc := &receiver{status: func(int) int { return 200 }}
	f := newFixture(t, rc, rc)
	f.sender.Send(webhooksend.Delivery{URL: "http://example.test/x", EventID: "evt_h", Body: []byte(`{}`)})
	f.idle(t)
	a := f.got()
	require.Len(t, a, 1)
	assert.ErrorIs(t, a[0].Err, webhooksend.ErrNotHTTPS)
	assert.True(t, a[0].Final)
	assert.Equal(t, 0, rc.count())
}

// sendUntrusted delivers once, by a Sender without Client or RootCAs, to
// a TLS receiver rc whose certificate the system roots do not trust, at
// the URL target makes of the receiver's; it returns the Sender's JSON
// log, the receiver's URL and the attempt's error.
func sendUntrusted(t *testing.T, rc *receiver, target func(base string) string, eventID string) (logs, base string, err error) {
	t.Helper()
	srv := httptest.NewTLSServer(rc)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake
	t.Cleanup(srv.Close)
	tr := activity.New(clock.NewFake(t0))
	var buf bytes.Buffer
	var got []webhooksend.Attempt
	s, err := webhooksend.New(webhooksend.Config{Tracker: tr, Sign: testSign,
		Logger:    slog.New(slog.NewJSONHandler(&buf, nil)),
		OnAttempt: func(a webhooksend.Attempt) { got = append(got, a) }})
	require.NoError(t, err)
	s.Send(webhooksend.Delivery{URL: target(srv.URL), Secret: []byte("k"), EventID: eventID, Body: []byte(`{}`)})
	require.NoError(t, tr.WaitIdle(context.Background()))
	s.Close()
	tr.Close()
	s.CloseIdleConnections()

	require.Len(t, got, 1)
	require.Error(t, got[0].Err)
	return buf.String(), srv.URL, got[0].Err
}

func TestTransportErrorsDoNotLogTheURLsSecrets(t *testing.T) {
	rc := &receiver{status: func(int) int { return 200 }}
	logs, base, err := sendUntrusted(t, rc, func(base string) string {
		return strings.Replace(base, "https://", "https://user:pw@", 1) + "/hook?token=s3cr3t#frag"
	}, "evt_s")
	assert.Contains(t, err.Error(), strings.TrimPrefix(base, "https://")+"/hook", "names the target")
	for _, secret := range []string{"s3cr3t", "user", "pw@", "frag"} {
		assert.NotContains(t, err.Error(), secret)
		assert.NotContains(t, logs, secret)
	}
	assert.Contains(t, logs, "will retry")
	assert.Equal(t, 0, rc.count())
}

// TestTransportErrorsRedactAPathToken: a webhook URL carrying its token
// in the path (/services/T0/B0/<token>) is logged with the path redacted,
// as the clients redact it (redact.URLSecrets): the path was logged whole.
func TestTransportErrorsRedactAPathToken(t *testing.T) {
	const token = "XXXXXXXXXXXXXXXXXXXXXXXX"
	logs, base, err := sendUntrusted(t, &receiver{status: func(int) int { return 200 }}, func(base string) string {
		return base + "/services/T000/B000/" + token
	}, "evt_p")
	assert.Contains(t, err.Error(), strings.TrimPrefix(base, "https://")+"/REDACTED")
	for _, text := range []string{err.Error(), logs} {
		assert.NotContains(t, text, token)
		assert.NotContains(t, text, "/services/T000")
	}
}

func TestOwnClientTrustsRootCAsAndClosesItsConnections(t *testing.T) {
	rc := &receiver{status: func(int) int { return http.StatusOK }}
	srv := httptest.NewTLSServer(rc)
	t.Cleanup(srv.Close)
	// The receiver's connection goroutines run until srv closes; the
	// Sender's own must be gone when CloseIdleConnections returns.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), goleak.IgnoreAnyFunction("net/http.(*conn).serve"))
	clk := clock.NewFake(t0)
	tr := activity.New(clk)
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	s, err := webhooksend.New(webhooksend.Config{Tracker: tr, Sign: testSign, RootCAs: pool})
	require.NoError(t, err)
	s.Send(webhooksend.Delivery{URL: srv.URL, Secret: []byte("k"), EventID: "evt_o", Body: []byte(`{}`)})
	require.NoError(t, tr.WaitIdle(context.Background()))
	assert.Equal(t, 1, rc.count(), "delivered over the trusted pool")
	s.Close()
	tr.Close()
	s.CloseIdleConnections()
}

func TestCloseStopsPendingRetries(t *testing.T) {
	rc := &receiver{status: func(int) int { return 500 }}
	f := newFixture(t, rc, rc)
	f.sender.Send(webhooksend.Delivery{URL: f.srv.URL, Secret: []byte("k"), EventID: "evt_c", Body: []byte(`{}`)})
	f.idle(t)
	require.Equal(t, 1, f.clk.Pending())
	f.sender.Close()
	f.tracker.Close()
	assert.Equal(t, 0, f.clk.Pending())
	f.clk.Advance(time.Hour)
	assert.Equal(t, 1, rc.count())
}

func TestConfigValidation(t *testing.T) {
	tr := activity.New(clock.NewFake(t0))
	_, err := webhooksend.New(webhooksend.Config{Sign: testSign})
	assert.Error(t, err)
	_, err = webhooksend.New(webhooksend.Config{Tracker: tr})
	assert.Error(t, err)
	_, err = webhooksend.New(webhooksend.Config{Tracker: tr, Sign: testSign, Schedule: []time.Duration{2 * time.Minute, time.Minute}})
	assert.Error(t, err)
	s, err := webhooksend.New(webhooksend.Config{Tracker: tr, Sign: testSign})
	require.NoError(t, err)
	s.Close()
	tr.Close()
}

// TestRetryGapsOnACoarselyAdvancedClock: a fake clock advanced past a
// retry in one step runs that retry's goroutine at the end of the step;
// the next gap still counts from when the retry became due, so the
// schedule holds.
func TestRetryGapsOnACoarselyAdvancedClock(t *testing.T) {
	t.Parallel()
	rc := &receiver{status: func(int) int { return http.StatusInternalServerError }}
	f := newFixture(t, rc, rc)
	f.sender.Send(webhooksend.Delivery{URL: f.srv.URL, Secret: []byte("key"), EventID: "evt_x", Body: []byte(`{}`)})
	f.idle(t)
	f.clk.Advance(webhooksend.DefaultSchedule[0] + 50*time.Second) // past retry 1, before retry 2
	f.idle(t)
	f.clk.AdvanceTo(t0.Add(webhooksend.DefaultSchedule[1])) // retry 2 is due
	f.idle(t)
	var at []time.Duration
	for _, a := range f.got() {
		at = append(at, a.At.Sub(t0))
	}
	assert.Equal(t, []time.Duration{0, webhooksend.DefaultSchedule[0], webhooksend.DefaultSchedule[1]}, at)
}
