package hosted

import (
	"context"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/replicatest"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestWaitMaxWaitBoundsAStalledPoll is the regression test for a /status
// answer whose body stalls: the server sends the headers and the start of
// a record, then blocks until the test ends. Wait(MaxWait: 1s) must give up
// with a *pfc.WaitTimeoutError, not stay blocked until the caller's context
// ends. The safety-net context only turns a hang into a failure; the
// assertion is on the error's kind. It runs in a synctest bubble on an
// in-memory network (replicatest.Net): MaxWait and the safety net pass on
// the bubble's clock, at once, once the client waits on the stalled body.
func TestWaitMaxWaitBoundsAStalledPoll(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		nw := replicatest.NewNet(t)
		srv := nw.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"_id":"j1","status":"PROCE`)
			http.NewResponseController(w).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		t.Cleanup(func() { close(release) }) // runs before the server's Kill
		c, err := NewClient(testKey, pfc.WithBaseURL(srv.URL+"/v2"), pfc.WithHTTPClient(nw.Client()),
			pfc.WithRetries(-1, 0, 0))
		require.NoError(t, err)

		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_, err = c.Wait(ctx, "j1", &pfc.WaitOptions{MaxWait: time.Second})
		var te *pfc.WaitTimeoutError
		require.ErrorAs(t, err, &te)
		assert.ErrorIs(t, err, pfc.ErrWaitTimeout)
		assert.NotErrorIs(t, err, context.DeadlineExceeded)
		assert.Nil(t, te.Last, "no poll completed")
	})
}
