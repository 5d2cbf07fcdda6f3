package mockserver_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// waitRecorder keeps the wait of every "pfc: retrying request" record.
type waitRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *waitRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *waitRecorder) Handle(_ context.Context, rec slog.Record) error {
	if rec.Message != "pfc: retrying request" {
		return nil
	}
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "wait" {
			r.mu.Lock()
			r.waits = append(r.waits, a.Value.Duration())
			r.mu.Unlock()
		}
		return true
	})
	return nil
}
func (r *waitRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *waitRecorder) WithGroup(string) slog.Handler      { return r }

// TestStartedClientsRetryFast: the clients the three Start helpers hand
// out retry an in-process mock's faults after waits of at most 20 ms, a
// 429's Retry-After of 1 s included, and as often as a client does by
// default (4 retries); their wait is read from the client's retry
// records, not timed.
func TestStartedClientsRetryFast(t *testing.T) {
	t.Parallel()
	const maxWait = 20 * time.Millisecond
	faults := func(t *testing.T, spec string) *mockserver.FaultSpec {
		f, err := mockserver.ParseFaults(spec)
		require.NoError(t, err)
		return f
	}
	ctx := context.Background()
	calls := map[string]func(t *testing.T, rec *waitRecorder) error{
		"hosted": func(t *testing.T, rec *waitRecorder) error {
			srv := hostedmock.Start(t, &hostedmock.Options{Faults: faults(t, "rate=1,kinds=429|503,routes=upload,retry-after=1")},
				pfc.WithLogger(slog.New(rec)))
			_, err := srv.Client.RequestUpload(ctx, hosted.FileTypeImage)
			return err
		},
		"pfccontainer": func(t *testing.T, rec *waitRecorder) error {
			srv := pfcmock.Start(t, &pfcmock.Options{Faults: faults(t, "rate=1,kinds=429|503,routes=version,retry-after=1")},
				pfc.WithLogger(slog.New(rec)))
			_, err := srv.Client.Version(ctx)
			return err
		},
		"bgcontainer": func(t *testing.T, rec *waitRecorder) error {
			srv := bgmock.Start(t, &bgmock.Options{Faults: faults(t, "rate=1,kinds=429|503,routes=status,retry-after=1")},
				pfc.WithLogger(slog.New(rec)))
			_, err := srv.Client.Status(ctx)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := &waitRecorder{}
			err := call(t, rec)
			require.Error(t, err, "every attempt is faulted")
			var ae *pfc.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, 5, ae.Attempts, "the clients' default of 4 retries")
			rec.mu.Lock()
			defer rec.mu.Unlock()
			require.Len(t, rec.waits, 4)
			for _, w := range rec.waits {
				assert.LessOrEqual(t, w, maxWait)
			}
		})
	}
}
