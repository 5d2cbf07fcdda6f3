package bgcontainer

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/pfc"
)

// straddleKey is a licence key whose first four bytes occur nowhere else
// in the tests' text: a prefix of it that survives a cut is recognisable.
const straddleKey = "QZJX-licence-7d6c5b4a3f2e1d0c"

// echoFixture is a container whose answers echo text, set per case: in
// SubmitImage's process_id, CheckImage's processing_time, a failed job's
// error, a queued job's status, and the status and message of an
// Unlicensed /Authorize.
type echoFixture struct {
	*fixture
	text  atomic.Pointer[string]
	field atomic.Pointer[string] // which answer echoes text
}

func newEchoFixture(t *testing.T) *echoFixture {
	t.Helper()
	ef := &echoFixture{fixture: newFixture(t, straddleKey)}
	answer := func(field string, body map[string]any) httpmock.Responder {
		return func(*http.Request) (*http.Response, error) {
			if *ef.field.Load() == field {
				body[field] = *ef.text.Load()
			}
			return httpmock.NewJsonResponse(200, body)
		}
	}
	ef.on(t, http.MethodPost, "/SubmitImage", func(r *http.Request) (*http.Response, error) {
		switch *ef.field.Load() {
		case "process_id":
			return answer("process_id", map[string]any{"status": "processing"})(r)
		case "status", "message":
			return httpmock.NewJsonResponse(403, errorBody(403, "not_activated", "not activated", ""))
		}
		return httpmock.NewJsonResponse(200, submitAnswer)
	})
	ef.on(t, http.MethodGet, "/Authorize/"+straddleKey, func(r *http.Request) (*http.Response, error) {
		return answer(*ef.field.Load(), map[string]any{"status": "Unlicensed", "message": "Invalid license key"})(r)
	})
	ef.on(t, http.MethodGet, "/CheckImage/"+jobID, func(r *http.Request) (*http.Response, error) {
		switch f := *ef.field.Load(); f {
		case "processing_time":
			return answer(f, map[string]any{"status": "completed"})(r)
		case "error":
			return answer(f, map[string]any{"status": "failed"})(r)
		case "queued":
			return httpmock.NewJsonResponse(200, map[string]any{"status": *ef.text.Load()})
		}
		return httpmock.NewJsonResponse(200, completed)
	})
	return ef
}

// call runs the client call whose answer echoes text in field, and
// returns its error.
func (ef *echoFixture) call(field, text string) error {
	ef.field.Store(&field)
	ef.text.Store(&text)
	ctx := context.Background()
	var err error
	switch field {
	case "process_id":
		_, err = ef.c.SubmitImage(ctx, strings.NewReader("img"), 3, nil)
	case "processing_time":
		_, err = ef.c.CheckImage(ctx, jobID)
	case "error":
		_, err = ef.c.WaitImage(ctx, jobID, nil)
	case "queued":
		// MaxWait runs out on a fake clock once the first state is in.
		clk := poll.NewFakeClock(time.Unix(0, 0))
		ef.c.wait.Clock, ef.c.wait.MaxWait = clk, time.Minute
		ef.c.wait.OnProgress = func(any) { clk.Advance(time.Minute) }
		_, err = ef.c.WaitImage(ctx, jobID, nil)
	case "status", "message":
		_, err = ef.c.RemoveBackground(ctx, bytes.NewReader([]byte("img")), 3, nil, io.Discard, nil)
	}
	return err
}

// TestNoSecretPrefixSurvivesACut: the container's text is redacted
// before it is cut, in every error that quotes it. The licence key is
// placed across every cut length the module uses (apierr.ExcerptLengths),
// with 1 to len-1 of its bytes before the cut: cutting first left them
// in the error, the logs and the bulk manifest.
func TestNoSecretPrefixSurvivesACut(t *testing.T) {
	t.Parallel()
	for _, field := range []string{"process_id", "processing_time", "error", "queued", "status", "message"} {
		t.Run(field, func(t *testing.T) {
			t.Parallel()
			ef := newEchoFixture(t)
			for _, max := range apierr.ExcerptLengths() {
				for k := 1; k < len(straddleKey); k++ {
					text := strings.Repeat("x", max-k) + straddleKey + "-tail"
					err := ef.call(field, text)
					require.Error(t, err)
					require.NotContains(t, err.Error(), straddleKey[:4], "cut at %d, %d bytes before it", max, k)
				}
			}
			assert.NotContains(t, ef.logs.String(), straddleKey[:4])
		})
	}
}

// TestWaitTimeoutRedactsTheStatus: a status that echoes the licence key
// put the whole key in the *pfc.WaitTimeoutError's text.
func TestWaitTimeoutRedactsTheStatus(t *testing.T) {
	t.Parallel()
	ef := newEchoFixture(t)
	err := ef.call("queued", straddleKey)
	var te *pfc.WaitTimeoutError
	require.ErrorAs(t, err, &te)
	require.NotNil(t, te.Last)
	assert.NotContains(t, err.Error(), straddleKey)
	assert.Contains(t, err.Error(), "still REDACTED after")
	assert.Equal(t, JobStatus(straddleKey), te.Last.(*CheckResult).Status, "the record itself is the container's")
}
