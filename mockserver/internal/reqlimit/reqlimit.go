// Package reqlimit is the mocks' per-key request limit (the RateLimit
// option of hostedmock, pfcmock and bgmock, -rate-limit of
// pfc-mockserver): a token bucket per key, API key or client address,
// refilled at the limit and holding one second of it, on the mock's
// clock. A request over the limit is answered 429 with the mocks' JSON
// error body (code rate_limited) and a Retry-After in whole seconds, at
// least 1: when the bucket holds a request again.
package reqlimit

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// maxKeys bounds the buckets kept: past it, the full ones (keys idle for
// a second or more, as if new) are dropped, and all of them if none is
// full, so that many client addresses cannot grow the map without end.
const maxKeys = 4096

// Key returns the key a request is counted under, and false for a
// request the limit does not apply to.
type Key func(*http.Request) (string, bool)

// bucket is one key's tokens as of last.
type bucket struct {
	tokens float64
	last   time.Time
}

// limiter is Wrap's handler.
type limiter struct {
	rate  float64
	burst float64
	now   func() time.Time
	key   Key
	what  string
	next  http.Handler

	mu      sync.Mutex
	buckets map[string]*bucket
}

// Check returns an error naming field unless perSecond is 0 (no limit)
// or a positive finite number.
func Check(field string, perSecond float64) error {
	if perSecond < 0 || math.IsNaN(perSecond) || math.IsInf(perSecond, 0) {
		return fmt.Errorf("%s must be a positive, finite number of requests per second (0: no limit), got %v", field, perSecond)
	}
	return nil
}

// Now returns c's Now, or the wall clock's for nil.
func Now(c interface{ Now() time.Time }) func() time.Time {
	if c == nil {
		return time.Now
	}
	return c.Now
}

// Wrap returns next limited to perSecond requests per second per key,
// next itself when perSecond is 0. now is the mock's clock (its Now);
// what names the key in the 429's message ("API key", "client address").
func Wrap(perSecond float64, now func() time.Time, key Key, what string, next http.Handler) http.Handler {
	if perSecond <= 0 {
		return next
	}
	return &limiter{rate: perSecond, burst: max(perSecond, 1), now: now, key: key, what: what, next: next,
		buckets: map[string]*bucket{}}
}

func (l *limiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k, ok := l.key(r)
	if !ok {
		l.next.ServeHTTP(w, r)
		return
	}
	wait, ok := l.take(k)
	if ok {
		l.next.ServeHTTP(w, r)
		return
	}
	secs := int64(min(maxRetryAfter, max(1, math.Ceil(wait))))
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	w.Header().Set(httpx.RequestIDHeader, "req_"+httpx.NewID(8))
	httpx.WriteError(w, httpx.Errorf(http.StatusTooManyRequests, httpx.CodeRateLimited,
		"more than %v requests per second from this %s; retry after %d s", l.rate, l.what, secs))
}

// maxRetryAfter bounds Retry-After, in seconds (a day): a tiny limit
// would otherwise ask for years.
const maxRetryAfter = 24 * 60 * 60

// take spends a token of key k, or reports how many seconds until one is
// there.
func (l *limiter) take(k string) (float64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.buckets[k]
	if b == nil {
		if len(l.buckets) >= maxKeys {
			l.pruneLocked(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[k] = b
	}
	if el := now.Sub(b.last); el > 0 {
		b.tokens = min(l.burst, b.tokens+el.Seconds()*l.rate)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	return (1 - b.tokens) / l.rate, false
}

// pruneLocked drops the buckets that are full by now, or all of them.
func (l *limiter) pruneLocked(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) >= maxKeys {
		clear(l.buckets)
	}
}

// ClientAddress is the containers' key: the request's remote address
// without its port.
func ClientAddress(r *http.Request) (string, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr, true
	}
	return host, true
}

// APIKey is the hosted API's key: the X-API-KEY of a request to the API
// (path /v2 or under it) when it is one of keys. Other requests (pre-signed
// uploads and result files, wrong keys, answered 401) are not counted.
func APIKey(keys []string) Key {
	valid := make(map[string]bool, len(keys))
	for _, k := range keys {
		valid[k] = true
	}
	return func(r *http.Request) (string, bool) {
		if p := r.URL.Path; p != "/v2" && !strings.HasPrefix(p, "/v2/") {
			return "", false
		}
		k := r.Header.Get("X-API-KEY")
		return k, valid[k]
	}
}
