package hosted

import (
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
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

// TestNoKeyPrefixSurvivesACut: text quoted in an error is redacted before
// it is cut. The API key is placed across every cut length the module
// uses (apierr.ExcerptLengths), with 1 to len-1 of its bytes before the
// cut: cutting first left them in the error.
func TestNoKeyPrefixSurvivesACut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	calls := map[string]func(c *Client, mt *httpmock.MockTransport, text string) error{
		"unusable status endpoint": func(c *Client, mt *httpmock.MockTransport, text string) error {
			// A leading ":" fails to parse.
			mt.RegisterRegexpResponder("GET", regexp.MustCompile(`/v2/pfc`), httpmock.NewJsonResponderOrPanic(200, map[string]string{"statusEndpoint": ":" + text}))
			_, err := c.StartJob(ctx, NewCorrection().WithFileKey("k"))
			return err
		},
		"job id in a decode error": func(c *Client, mt *httpmock.MockTransport, text string) error {
			mt.RegisterRegexpResponder("GET", regexp.MustCompile(`/v2/status/`), httpmock.NewStringResponder(200, "{not json"))
			_, err := c.GetJob(ctx, text)
			return err
		},
		"status of a job without a file": func(c *Client, _ *httpmock.MockTransport, text string) error {
			_, err := c.Download(ctx, &Job{ID: "j", Status: JobStatus(text)}, io.Discard)
			return err
		},
		"job id in a download error": func(c *Client, mt *httpmock.MockTransport, text string) error {
			mt.RegisterResponder("GET", "https://files.test/f", func(*http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: 200, Header: http.Header{}, Body: readCloser{iotest.ErrReader(errors.New("reset"))}}, nil
			})
			_, err := c.Download(ctx, &Job{ID: text, Status: StatusCompleted, CorrectedFile: "https://files.test/f"}, io.Discard)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, mt := mockClient(t)
			for _, max := range apierr.ExcerptLengths() {
				for k := 1; k < len(testKey); k++ {
					err := call(c, mt, strings.Repeat("x", max-k)+testKey+"-tail")
					require.Error(t, err)
					require.NotContains(t, err.Error(), testKey[:5], "cut at %d, %d bytes before it", max, k)
				}
			}
		})
	}
}

// TestDecodeErrorQuotesAShortExcerpt: the decoder's error copies a whole
// offending number (a 7 MiB "code" made a 7 MiB error string); the error
// and everything in its chain quote a short excerpt of it.
func TestDecodeErrorQuotesAShortExcerpt(t *testing.T) {
	t.Parallel()
	huge := "9" + strings.Repeat("1", 1<<20)
	ctx := context.Background()
	getJob := func(c *Client) error { _, err := c.GetJob(ctx, "j1"); return err }
	cases := map[string]struct {
		body, want string
		call       func(c *Client) error
	}{
		"code":         {`{"_id":"j1","status":"PROCESSING","code":` + huge + `}`, "number 9111", getJob},
		"timestamp":    {`{"_id":"j1","status":"PROCESSING","createdAt":` + huge + `}`, "timestamp", getJob},
		"preset total": {`{"presets":[],"total":` + huge + `}`, "number 9111", func(c *Client) error { _, err := c.Presets.List(ctx, nil); return err }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, mt := mockClient(t)
			mt.RegisterNoResponder(httpmock.NewStringResponder(200, tc.body))
			err := tc.call(c)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			walk(err, func(e error) { assert.Less(t, len(e.Error()), 1<<10, "%T in the chain: %.200s", e, e.Error()) })
		})
	}
}
