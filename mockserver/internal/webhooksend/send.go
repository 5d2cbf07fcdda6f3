package webhooksend

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/pfcsdk/pfc-go/internal/redact"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
)

// UserAgent is the User-Agent of every delivery, as the service sends it.
const UserAgent = "service-Webhook/1.0"

// DefaultSchedule is when the 8 retries happen, measured from the first
// attempt: the gaps are 1, 2, 3, 5, 7, 9, 10 and 11 minutes, so the last
// retry is 48 minutes after the first attempt.
var DefaultSchedule = []time.Duration{
	1 * time.Minute,
	3 * time.Minute,
	6 * time.Minute,
	11 * time.Minute,
	18 * time.Minute,
	27 * time.Minute,
	37 * time.Minute,
	48 * time.Minute,
}

// DefaultAttemptTimeout bounds one attempt (see Config.AttemptTimeout);
// an attempt that runs out counts as a failure and is retried.
const DefaultAttemptTimeout = 30 * time.Second

// Signer returns the webhook-id, webhook-timestamp and webhook-signature
// headers for body; webhook.Sign has this signature.
type Signer func(secret []byte, id string, timestamp time.Time, body []byte) http.Header

// Config configures a Sender.
type Config struct {
	// Tracker runs attempts as tracked work and schedules retries on its
	// clock. Required.
	Tracker *activity.Tracker
	// Sign computes the signature headers. Required.
	Sign Signer
	// Client sends the requests; nil means the Sender's own client,
	// trusting RootCAs. Redirects are never followed (a 3xx is a failure).
	Client *http.Client
	// RootCAs are the CAs the Sender's own client trusts (Client nil);
	// nil means the system roots.
	RootCAs *x509.CertPool
	// Schedule lists the retry times measured from the first attempt, in
	// increasing order; nil means DefaultSchedule. Its length is the
	// number of retries. An attempt that outlasts the gap to the next
	// (AttemptTimeout longer than a gap) delays the later ones as much.
	Schedule []time.Duration
	// AttemptTimeout bounds each attempt; 0 means DefaultAttemptTimeout.
	// It runs on the tracker's clock (on a clock.Fake it falls due when
	// the fake time passes it), but unscaled: it bounds a real network
	// exchange, which no time scale speeds up, so on a *clock.Scaled
	// (-time-scale) it is AttemptTimeout of wall time. (At 0.001 a scaled
	// timeout was 30 ms: any receiver doing some work was cut off and sent
	// the event again at every retry.)
	AttemptTimeout time.Duration
	// Logger receives one record per attempt; nil discards.
	Logger *slog.Logger
	// OnAttempt, if set, is called after every attempt (tests, metrics).
	OnAttempt func(Attempt)
}

// Delivery is one webhook event to deliver.
type Delivery struct {
	URL     string // absolute https URL
	Secret  []byte // HMAC key: the API key used on /pfc
	EventID string // webhook-id, "evt_<job id>"
	Body    []byte // sent verbatim
}

// Attempt is the outcome of one delivery attempt.
type Attempt struct {
	EventID    string    // the delivery's webhook-id
	Number     int       // 1 for the first attempt, up to 1+len(Schedule)
	At         time.Time // clock time the attempt was sent
	StatusCode int       // 0 when no response arrived
	Err        error     // transport error or timeout; nil on any response
	Delivered  bool      // a 2xx answer
	Final      bool      // no further attempt follows
}

// ErrNotHTTPS is reported (in Attempt.Err) for a delivery URL that is not
// an absolute https URL; such a delivery is dropped without retries.
var ErrNotHTTPS = errors.New("webhooksend: webhook URL must be absolute https")

// Sender delivers webhooks. Create it with New; stop it with Close, then
// close the tracker.
type Sender struct {
	cfg    Config
	client *http.Client
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger
}

// New returns a Sender.
func New(cfg Config) (*Sender, error) {
	if cfg.Tracker == nil || cfg.Sign == nil {
		return nil, errors.New("webhooksend: Tracker and Sign are required")
	}
	if cfg.Schedule == nil {
		cfg.Schedule = DefaultSchedule
	}
	for i, d := range cfg.Schedule {
		if d <= 0 || (i > 0 && d < cfg.Schedule[i-1]) {
			return nil, fmt.Errorf("webhooksend: schedule must be positive and increasing, got %v", cfg.Schedule)
		}
	}
	if cfg.AttemptTimeout <= 0 {
		cfg.AttemptTimeout = DefaultAttemptTimeout
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var client http.Client
	if cfg.Client != nil {
		client = *cfg.Client
	} else {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		if cfg.RootCAs != nil {
			tr.TLSClientConfig = &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12}
		}
		client.Transport = tr
	}
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	ctx, cancel := context.WithCancel(context.Background())
	return &Sender{cfg: cfg, client: &client, ctx: ctx, cancel: cancel, log: log}, nil
}

// Send starts delivering d: the first attempt now (on a tracked
// goroutine), then retries by the schedule until one is answered 2xx.
func (s *Sender) Send(d Delivery) {
	st := &d
	now := s.cfg.Tracker.Clock().Now()
	s.cfg.Tracker.Go(func() { s.attempt(st, 0, now) })
}

// Close cancels attempts in flight; pending retries are stopped by the
// tracker's Close. Once the tracker is closed (no attempt can still be
// returning a connection), call CloseIdleConnections.
func (s *Sender) Close() { s.cancel() }

// CloseIdleConnections closes the kept-alive connections of the Sender's
// own client, so that none of its goroutines outlive it; a Config.Client
// belongs to the caller and is left alone.
func (s *Sender) CloseIdleConnections() {
	if s.cfg.Client == nil {
		s.client.CloseIdleConnections()
	}
}

// attempt sends attempt n+1. now is the clock reading when the attempt
// became due, taken by the caller: with a fake clock the attempt's
// goroutine may run after the clock has moved on.
//
// The next attempt's gap runs on the clock's own timer, from when this
// attempt became due: what of it has passed since is measured with
// clock.Since, never as a difference of Now readings (a scaled clock's
// Now is the wall clock, so a due time computed from it would be scaled
// twice). An attempt that outlasts its gap is followed at once, and the
// later gaps count from then.
func (s *Sender) attempt(d *Delivery, n int, now time.Time) {
	clk := s.cfg.Tracker.Clock()
	a := Attempt{EventID: d.EventID, Number: n + 1, At: now}
	if u, err := url.Parse(d.URL); err != nil || u.Scheme != "https" || u.Host == "" {
		a.Err, a.Final = ErrNotHTTPS, true
		s.report(a)
		return
	}

	var next *retryGate
	if n < len(s.cfg.Schedule) {
		gap := s.cfg.Schedule[n]
		if n > 0 {
			gap -= s.cfg.Schedule[n-1]
		}
		// Counted from when this attempt became due: its goroutine may
		// start later (a fake clock advanced past it in one step).
		gap = max(0, gap-clock.Since(clk, now))
		next = &retryGate{}
		next.timer = s.cfg.Tracker.AfterFunc(gap, func() {
			if next.arrive() {
				at := clk.Now()
				s.cfg.Tracker.Go(func() { s.attempt(d, n+1, at) })
			}
		})
	}

	ctx, cancel := context.WithCancel(s.ctx)
	timeout := s.attemptTimer(cancel)
	a.StatusCode, a.Err = s.post(ctx, d, now)
	timeout.Stop()
	timedOut := ctx.Err() != nil && s.ctx.Err() == nil
	cancel()
	if timedOut && a.Err != nil {
		a.Err = fmt.Errorf("webhooksend: attempt timed out after %v: %w", s.cfg.AttemptTimeout, a.Err)
	}
	a.Delivered = a.Err == nil && a.StatusCode >= 200 && a.StatusCode < 300
	a.Final = a.Delivered || next == nil || s.ctx.Err() != nil
	s.report(a)
	if a.Final {
		if next != nil {
			next.timer.Stop()
		}
		return
	}
	if next.arrive() { // overdue: this attempt outlasted the gap
		at := clk.Now()
		s.cfg.Tracker.Go(func() { s.attempt(d, n+1, at) })
	}
}

// attemptTimer calls cancel once the attempt has run AttemptTimeout: on
// the clock, except that a scaled clock's scale does not apply (see
// Config.AttemptTimeout).
func (s *Sender) attemptTimer(cancel func()) clock.Timer {
	clk := s.cfg.Tracker.Clock()
	if _, scaled := clk.(*clock.Scaled); scaled {
		return time.AfterFunc(s.cfg.AttemptTimeout, cancel)
	}
	return clk.AfterFunc(s.cfg.AttemptTimeout, cancel)
}

// retryGate starts the next attempt once both the gap has passed (its
// timer fired) and the current attempt has failed, whichever is later.
type retryGate struct {
	timer   *activity.Timer
	mu      sync.Mutex
	arrived int
}

// arrive records one of the two events and reports whether it was the
// second.
func (g *retryGate) arrive() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.arrived++
	return g.arrived == 2
}

func (s *Sender) post(ctx context.Context, d *Delivery, now time.Time) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return 0, fmt.Errorf("webhooksend: %w", err)
	}
	for k, v := range s.cfg.Sign(d.Secret, d.EventID, now, d.Body) {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	resp, err := s.client.Do(req)
	if err != nil {
		// *url.Error repeats the URL, whose path or query may hold the
		// receiver's secret token; the error goes to the logs.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = fmt.Errorf("webhooksend: POST %s: %w", redact.WebhookURL(d.URL), ue.Err)
		}
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

func (s *Sender) report(a Attempt) {
	attrs := []any{
		slog.String("event", a.EventID), slog.Int("attempt", a.Number),
		slog.Int("status", a.StatusCode), slog.Bool("delivered", a.Delivered), slog.Bool("final", a.Final),
	}
	switch {
	case a.Delivered:
		s.log.Info("webhook delivered", attrs...)
	case a.Final:
		s.log.Warn("webhook delivery abandoned", append(attrs, slog.Any("error", a.Err))...)
	default:
		s.log.Info("webhook attempt failed, will retry", append(attrs, slog.Any("error", a.Err))...)
	}
	if s.cfg.OnAttempt != nil {
		s.cfg.OnAttempt(a)
	}
}
