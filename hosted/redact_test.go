package hosted

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// Every error string the client builds from a server's answer passes the
// client's redactor: a hostile or buggy server that echoes the API key
// must not put it into an error message (which ends up in logs).
func TestErrorStringsAreRedacted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	failed := func(id string) map[string]any {
		return jobJSON(id, StatusFailed, map[string]any{"statusText": "invalid key " + testKey + "\nsecond line", "code": 7})
	}
	cases := []struct {
		name    string
		respond func(mt *httpmock.MockTransport)
		call    func(c *Client) error
		is      error
	}{
		{
			name: "JobError with a statusText echoing the key",
			respond: func(mt *httpmock.MockTransport) {
				expectAPI(t, mt, "GET", `=~/v2/status/j1`, 200, failed("j1"))
			},
			call: func(c *Client) error { _, err := c.Wait(ctx, "j1", nil); return err },
			is:   pfc.ErrJobFailed,
		},
		{
			name: "malformed timestamp quoted in a decode error",
			respond: func(mt *httpmock.MockTransport) {
				expectAPI(t, mt, "GET", `=~/v2/status/j1`, 200, jobJSON("j1", StatusProcessing, map[string]any{"createdAt": "yesterday " + testKey}))
			},
			call: func(c *Client) error { _, err := c.GetJob(ctx, "j1"); return err },
		},
		{
			name: "job id in a decode error",
			respond: func(mt *httpmock.MockTransport) {
				mt.RegisterNoResponder(httpmock.NewStringResponder(200, "{not json"))
			},
			call: func(c *Client) error { _, err := c.GetJob(ctx, "id-"+testKey); return err },
		},
		{
			name: "status endpoint quoted back",
			respond: func(mt *httpmock.MockTransport) {
				expectAPI(t, mt, "GET", `=~/v2/pfc`, 200, map[string]string{"statusEndpoint": "https://x.test/status/?k=" + testKey})
			},
			call: func(c *Client) error { _, err := c.StartJob(ctx, NewCorrection().WithFileKey("k")); return err },
		},
		{
			name: "job id in a download error",
			respond: func(mt *httpmock.MockTransport) {
				mt.RegisterResponder("GET", "https://files.test/f", func(*http.Request) (*http.Response, error) {
					return &http.Response{StatusCode: 200, Header: http.Header{}, Body: readCloser{iotest.ErrReader(errors.New("reset"))}}, nil
				})
			},
			call: func(c *Client) error {
				_, err := c.Download(ctx, &Job{ID: testKey, Status: StatusCompleted, CorrectedFile: "https://files.test/f"}, &strings.Builder{})
				return err
			},
		},
		{
			name:    "status echoed in a download refusal",
			respond: func(mt *httpmock.MockTransport) {},
			call: func(c *Client) error {
				_, err := c.Download(ctx, &Job{ID: "j", Status: JobStatus(testKey)}, &strings.Builder{})
				return err
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := mockClient(t)
			tc.respond(mt)
			err := tc.call(c)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), testKey)
			assert.NotContains(t, err.Error(), "\n")
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			// Nothing in the chain may carry it in its message either.
			walk(err, func(e error) { assert.NotContains(t, e.Error(), testKey, "%T in the chain", e) })
		})
	}
}

func TestWaitTimeoutErrorIsRedacted(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", `=~/v2/status/`, 200, jobJSON("x", JobStatus("QUEUED "+testKey), nil))
	_, err := c.Wait(context.Background(), "id-"+testKey, &pfc.WaitOptions{MinDelay: 1, MaxDelay: 1, MaxWait: 1})
	var te *pfc.WaitTimeoutError
	require.ErrorAs(t, err, &te)
	assert.NotContains(t, err.Error(), testKey)
}

// walk calls fn on err and on everything in its chain.
func walk(err error, fn func(error)) {
	if err == nil {
		return
	}
	fn(err)
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		walk(u.Unwrap(), fn)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			walk(e, fn)
		}
	}
}

// readCloser adds a no-op Close to a reader.
type readCloser struct {
	r interface{ Read([]byte) (int, error) }
}

func (r readCloser) Read(p []byte) (int, error) { return r.r.Read(p) }
func (readCloser) Close() error                 { return nil }
