package mockserver_test

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/webhook"
)

// webhookSchedule is the documented delivery schedule: the first attempt
// and 8 retries, as offsets from the first.
var webhookSchedule = []time.Duration{0, 1 * time.Minute, 3 * time.Minute, 6 * time.Minute, 11 * time.Minute,
	18 * time.Minute, 27 * time.Minute, 37 * time.Minute, 48 * time.Minute}

// guardedReceiver is a receiver behind webhook.Middleware with the replay
// guard (WithIdempotency): for the job named by the "job" query parameter
// of the webhook URL, its handler fails the first fail[job] deliveries
// that reach it (-1: every one), then processes the
// event; the acknowledgement of that first success is lost on the way back
// (the mock sees a 503), so the mock delivers again, and the guard must
// acknowledge that duplicate without processing it a second time.
type guardedReceiver struct {
	srv     *httptest.Server
	guarded http.Handler // set by attach, before any job starts

	mu        sync.Mutex
	fail      map[string]int         // job parameter → failures still to give (-1: always)
	handled   map[string]int         // event id → handler calls
	processed map[string]int         // event id → successful processing
	ackLost   map[string]bool        // event id → the first success's answer was dropped
	stamps    map[string][]time.Time // event id → webhook-timestamp of every delivery
	statuses  map[string][]int       // event id → status the mock got
}

func newGuardedReceiver(t *testing.T) *guardedReceiver {
	rc := &guardedReceiver{fail: map[string]int{}, handled: map[string]int{}, processed: map[string]int{},
		ackLost: map[string]bool{}, stamps: map[string][]time.Time{}, statuses: map[string][]int{}}
	rc.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("webhook-id")
		ts, err := strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64)
		if err != nil {
			http.Error(w, "bad timestamp", http.StatusBadRequest)
			return
		}
		rec := httptest.NewRecorder()
		rc.guarded.ServeHTTP(rec, r)
		status := rec.Code
		rc.mu.Lock()
		if status/100 == 2 && rc.processed[id] == 1 && !rc.ackLost[id] {
			rc.ackLost[id] = true
			status = http.StatusServiceUnavailable // the acknowledgement is lost
		}
		rc.stamps[id] = append(rc.stamps[id], time.Unix(ts, 0))
		rc.statuses[id] = append(rc.statuses[id], status)
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	rc.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	rc.srv.StartTLS()
	t.Cleanup(rc.srv.Close)
	return rc
}

// attach puts the verifier (on the server's keys and clock) and the
// replay guard in front of the handler.
func (rc *guardedReceiver) attach(srv *hostedmock.TestServer) {
	store := webhook.NewMemoryStore(webhook.MemoryStoreOptions{Now: srv.Clock().Now})
	rc.guarded = webhook.Middleware(srv.WebhookVerifier(), webhook.WithIdempotency(store))(http.HandlerFunc(rc.handle))
}

func (rc *guardedReceiver) handle(w http.ResponseWriter, r *http.Request) {
	ev, ok := webhook.EventFromContext(r.Context())
	if !ok {
		http.Error(w, "no event", http.StatusInternalServerError)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.handled[ev.ID]++
	job := r.URL.Query().Get("job")
	if n := rc.fail[job]; n != 0 {
		if n > 0 {
			rc.fail[job] = n - 1
		}
		http.Error(w, "not now", http.StatusInternalServerError)
		return
	}
	rc.processed[ev.ID]++
	w.WriteHeader(http.StatusNoContent)
}

// TestWebhookChaos: five jobs whose receiver fails the first 0 to 4
// deliveries and then loses its first acknowledgement, and one whose
// receiver never succeeds. Under the fake clock each sees exactly the
// documented schedule; the replay guard processes each event once; the
// failing one leaves its job and /status intact.
func TestWebhookChaos(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	rc := newGuardedReceiver(t)
	srv := hostedmock.Start(t, &hostedmock.Options{Clock: clk, Processor: chaosProcessor, WebhookClient: rc.srv.Client()})
	rc.attach(srv)
	rc.mu.Lock()
	for i := range 5 {
		rc.fail[strconv.Itoa(i)] = i // 0..4 failures, then a lost ack
	}
	rc.fail["5"] = -1 // never succeeds
	rc.mu.Unlock()

	ctx := t.Context()
	var ids []string
	for i := range 6 {
		in := chaosInput(t, 4000+i)
		key, err := srv.Client.Upload(ctx, hosted.FileTypeImage, bytes.NewReader(in), int64(len(in)), "image/jpeg")
		require.NoError(t, err)
		o := hosted.NewCorrection()
		o.FileKey, o.WebhookURL = key, rc.srv.URL+"/hooks?token=s3cret&job="+strconv.Itoa(i)
		ref, err := srv.Client.StartJob(ctx, o)
		require.NoError(t, err)
		ids = append(ids, ref.ID)
	}
	srv.WaitIdle()
	start := clk.Now()
	srv.Advance(3 * time.Hour)

	rc.mu.Lock()
	defer rc.mu.Unlock()
	for i, id := range ids {
		ev := "evt_" + id
		var offsets []time.Duration
		for _, ts := range rc.stamps[ev] {
			offsets = append(offsets, ts.Sub(start))
		}
		if i == 5 {
			assert.Equal(t, webhookSchedule, offsets, "never succeeds: the first attempt and 8 retries, then nothing")
			assert.Equal(t, 9, rc.handled[ev])
			assert.Zero(t, rc.processed[ev])
			continue
		}
		// i failures, the success whose ack is lost, the duplicate the
		// guard acknowledges.
		want := webhookSchedule[:i+2]
		assert.Equal(t, want, offsets, "job %d", i)
		assert.Equal(t, 1, rc.processed[ev], "job %d: processed once", i)
		assert.Equal(t, i+1, rc.handled[ev], "job %d: the duplicate never reaches the handler", i)
		statuses := rc.statuses[ev]
		assert.Equal(t, http.StatusOK, statuses[len(statuses)-1], "job %d: the duplicate is acknowledged", i)
	}
	// The jobs and /status are intact, the never-acknowledged one too.
	for _, id := range ids {
		job, err := srv.Client.GetJob(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, hosted.StatusCompleted, job.Status)
		var buf bytes.Buffer
		_, err = srv.Client.Download(ctx, job, &buf)
		require.NoError(t, err)
		assert.NotEmpty(t, buf.Bytes())
	}
}
