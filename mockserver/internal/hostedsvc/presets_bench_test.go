package hostedsvc

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
)

// newBenchService starts a Service for a benchmark: accounts "k" and
// "other", a fake clock, cfg's fields set by edit.
func newBenchService(b *testing.B, edit func(*settings)) *Service {
	b.Helper()
	cfg := settings{Config{APIKeys: []string{"k", "other"}, Clock: clock.NewFake(testT0)}, Deps{
		WorkDir:       b.TempDir(),
		WebhookSigner: func([]byte, string, time.Time, []byte) http.Header { return http.Header{} },
	}}
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(cfg.Config, cfg.Deps)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	return s
}

// fillPresets creates n presets named p0 … p<n-1> in account.
func fillPresets(b *testing.B, s *Service, account string, n int) {
	b.Helper()
	for i := range n {
		if _, aerr := s.CreatePreset(account, strings.NewReader(`{"name":"p`+strconv.Itoa(i)+`"}`), "http://mock.test"); aerr != nil {
			b.Fatalf("preset %d: %v", i, aerr)
		}
	}
}

// BenchmarkPresetCreate100k creates 100,000 presets in one account (the
// cap raised to allow it); one op is the whole 100k. Creation used to
// scan every preset of the service for the name: quadratic, minutes.
func BenchmarkPresetCreate100k(b *testing.B) {
	const n = 100_000
	for range b.N {
		b.StopTimer()
		s := newBenchService(b, func(c *settings) { c.MaxPresets = n })
		b.StartTimer()
		fillPresets(b, s, "k", n)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/preset")
}

// BenchmarkUploadWhilePresetsListed times GET /upload of another account
// while 0 or 32 goroutines list the 20,000 presets of account "k" (the cap
// raised to allow them; GET /presets?limit=100 at varying offsets)
// without pause. Listing used to scan and sort every preset under the
// service-wide lock, so the upload queued behind the listings.
func BenchmarkUploadWhilePresetsListed(b *testing.B) {
	const presets = 20_000
	s := newBenchService(b, func(c *settings) { c.MaxPresets = presets })
	fillPresets(b, s, "k", presets)
	h := s.Handler()
	get := func(path, key string) int {
		r := httptest.NewRequest(http.MethodGet, "http://mock.test/v2"+path, nil)
		r.Header.Set(APIKeyHeader, key)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	if code := get("/presets?limit=100&offset=19950", "k"); code != http.StatusOK {
		b.Fatalf("GET /presets: %d", code)
	}
	for _, listers := range []int{0, 32} {
		b.Run(fmt.Sprintf("listers=%d", listers), func(b *testing.B) {
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var listed atomic.Int64
			for g := range listers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						get(fmt.Sprintf("/presets?limit=100&offset=%d", (g*617+i*100)%presets), "k")
						listed.Add(1)
					}
				}()
			}
			b.ResetTimer()
			for range b.N {
				if code := get("/upload", "other"); code != http.StatusOK {
					b.Fatalf("GET /upload: %d", code)
				}
			}
			b.StopTimer()
			close(stop)
			wg.Wait()
			b.ReportMetric(float64(listed.Load())/b.Elapsed().Seconds(), "listings/s")
		})
	}
}
