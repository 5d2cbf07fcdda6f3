package reqlimit

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
)

var ok = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })

// serve sends one request from addr with key to h and returns the answer.
func serve(h http.Handler, path, addr, key string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.RemoteAddr = addr
	if key != "" {
		r.Header.Set("X-API-KEY", key)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestLimitPerClientAddress: at 2 per second a client address may send 2
// at once, then one every half second; the third is answered 429 with
// the mocks' error body and Retry-After 1 (half a second, rounded up),
// and another address has its own bucket.
func TestLimitPerClientAddress(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	h := Wrap(2, clk.Now, ClientAddress, "client address", ok)
	for i := range 2 {
		if w := serve(h, "/version", "192.0.2.1:1000", ""); w.Code != http.StatusNoContent {
			t.Fatalf("request %d: %d", i, w.Code)
		}
	}
	w := serve(h, "/version", "192.0.2.1:2000", "") // another port, the same address
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("third request: %d, Retry-After %q; want 429 and 1", w.Code, w.Header().Get("Retry-After"))
	}
	var body struct {
		Status  int    `json:"status"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Status != 429 || body.Code != "rate_limited" || body.Message == "" {
		t.Fatalf("body %s (%v)", w.Body, err)
	}
	if w.Header().Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id on the 429")
	}
	if w := serve(h, "/version", "192.0.2.2:1000", ""); w.Code != http.StatusNoContent {
		t.Fatalf("another address: %d", w.Code)
	}
	clk.Advance(500 * time.Millisecond)
	if w := serve(h, "/version", "192.0.2.1:1000", ""); w.Code != http.StatusNoContent {
		t.Fatalf("after half a second: %d", w.Code)
	}
	if w := serve(h, "/version", "192.0.2.1:1000", ""); w.Code != http.StatusTooManyRequests {
		t.Fatalf("again at once: %d", w.Code)
	}
}

// TestRetryAfterWholeSeconds: below one request a second, Retry-After is
// the time until the bucket holds one again, rounded up.
func TestRetryAfterWholeSeconds(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	h := Wrap(0.25, clk.Now, ClientAddress, "client address", ok)
	serve(h, "/", "192.0.2.1:1", "")
	clk.Advance(1500 * time.Millisecond)
	if w := serve(h, "/", "192.0.2.1:1", ""); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "3" {
		t.Fatalf("%d, Retry-After %q; want 429 and 3 (2.5 s rounded up)", w.Code, w.Header().Get("Retry-After"))
	}
}

// TestRetryAfterBounded: a limit far below one request a day asks for a
// day at most, a well-formed header.
func TestRetryAfterBounded(t *testing.T) {
	t.Parallel()
	h := Wrap(1e-300, time.Now, ClientAddress, "client address", ok)
	serve(h, "/", "192.0.2.1:1", "")
	if w := serve(h, "/", "192.0.2.1:1", ""); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "86400" {
		t.Fatalf("%d, Retry-After %q; want 429 and 86400", w.Code, w.Header().Get("Retry-After"))
	}
}

// TestAPIKeyCountsAPIRequestsOfValidKeys: the hosted limit counts the
// requests under /v2 of each valid key; pre-signed storage and result
// files, and keys the API refuses, are not counted.
func TestAPIKeyCountsAPIRequestsOfValidKeys(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	h := Wrap(1, clk.Now, APIKey([]string{"k1", "k2"}), "API key", ok)
	if w := serve(h, "/v2/presets", "192.0.2.1:1", "k1"); w.Code != http.StatusNoContent {
		t.Fatal(w.Code)
	}
	for _, c := range []struct{ path, key string }{
		{"/storage/u1", "k1"}, {"/files/f1", ""}, {"/v2/presets", "wrong"}, {"/v2/presets", ""}, {"/v2x", "k1"}, {"/v2/presets", "k2"},
	} {
		if w := serve(h, c.path, "192.0.2.1:1", c.key); w.Code != http.StatusNoContent {
			t.Errorf("%s with key %q: %d, want it not counted", c.path, c.key, w.Code)
		}
	}
	if w := serve(h, "/v2", "192.0.2.9:1", "k1"); w.Code != http.StatusTooManyRequests {
		t.Fatalf("k1 again, from another address: %d, want 429", w.Code)
	}
}

// TestBucketsBounded: many client addresses do not grow the buckets
// without end.
func TestBucketsBounded(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	h := Wrap(1, clk.Now, ClientAddress, "client address", ok).(*limiter)
	for i := range 3 * maxKeys {
		serve(h, "/", fmt.Sprintf("10.%d.%d.%d:1", i>>16&255, i>>8&255, i&255), "")
	}
	if n := len(h.buckets); n > maxKeys {
		t.Fatalf("%d buckets, want at most %d", n, maxKeys)
	}
}

func TestCheckAndNoLimit(t *testing.T) {
	t.Parallel()
	for _, v := range []float64{-1, math.NaN(), math.Inf(1)} {
		if Check("RateLimit", v) == nil {
			t.Errorf("Check(%v) = nil", v)
		}
	}
	if Check("RateLimit", 0) != nil || Check("RateLimit", 3) != nil {
		t.Error("Check refused a valid limit")
	}
	if h := Wrap(0, time.Now, ClientAddress, "", ok); fmt.Sprintf("%p", h) != fmt.Sprintf("%p", ok) {
		t.Error("a zero limit wrapped the handler")
	}
}
