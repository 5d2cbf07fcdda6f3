package mockserver_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
)

// TestMocksRateLimit: each mock's RateLimit answers the second request of
// a second 429 rate_limited with Retry-After: 1, per API key (hosted) or
// client address (containers), until its clock has moved on; a negative
// limit is refused.
func TestMocksRateLimit(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type mock struct {
		h     http.Handler
		close func() error
	}
	for name, c := range map[string]struct {
		path  string
		start func(clk clock.Clock, limit float64) (mock, error)
	}{
		"hosted": {"/v2/presets", func(clk clock.Clock, limit float64) (mock, error) {
			s, err := hostedmock.New(hostedmock.Options{Clock: clk, RateLimit: limit, Processor: hostedmock.ProcessorFunc(nil)})
			if err != nil {
				return mock{}, err
			}
			return mock{s, s.Close}, nil
		}},
		"container": {"/version", func(clk clock.Clock, limit float64) (mock, error) {
			s, err := pfcmock.New(pfcmock.Options{Clock: clk, RateLimit: limit})
			if err != nil {
				return mock{}, err
			}
			return mock{s, s.Close}, nil
		}},
		"bg": {"/Status", func(clk clock.Clock, limit float64) (mock, error) {
			s, err := bgmock.New(bgmock.Options{Clock: clk, RateLimit: limit})
			if err != nil {
				return mock{}, err
			}
			return mock{s, s.Close}, nil
		}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := c.start(clock.Real(), -1); !errors.Is(err, mockserver.ErrInvalidOptions) {
				t.Fatalf("RateLimit -1: %v, want ErrInvalidOptions", err)
			}
			clk := clock.NewFake(t0)
			m, err := c.start(clk, 1)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = m.close() })
			get := func(addr string) *httptest.ResponseRecorder {
				r := httptest.NewRequest(http.MethodGet, c.path, nil)
				r.RemoteAddr = addr
				r.Header.Set("X-API-KEY", hostedmock.DefaultAPIKey)
				w := httptest.NewRecorder()
				m.h.ServeHTTP(w, r)
				return w
			}
			if w := get("192.0.2.1:1"); w.Code == http.StatusTooManyRequests {
				t.Fatal("first request refused")
			}
			w := get("192.0.2.1:1")
			if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
				t.Fatalf("second request: %d, Retry-After %q; want 429, 1", w.Code, w.Header().Get("Retry-After"))
			}
			clk.Advance(time.Second)
			if w := get("192.0.2.1:1"); w.Code == http.StatusTooManyRequests {
				t.Fatal("refused a second later")
			}
		})
	}
}
