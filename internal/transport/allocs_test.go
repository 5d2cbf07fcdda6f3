package transport

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// cannedJSON is a RoundTripper that answers every request with a small
// JSON object, without a network, so that allocations counted around a
// call are the transport's own and net/http's client, never a server's.
type cannedJSON struct{}

func (cannedJSON) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	const body = `{"fileKey":"0123456789abcdef","uploadUrl":"https://example.com/u"}`
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       r,
	}, nil
}

// TestDoJSONAllocs bounds the allocations of one successful DoJSON call
// (credential header, query, JSON answer decoded), so that a change adding
// work to the hot path of every API call fails here, whatever the timing.
// The bound is the count measured when it was set: lower it when the path
// gets cheaper. Not parallel: AllocsPerRun counts the whole process's
// allocations (averaged over the runs, so stray ones round away).
func TestDoJSONAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	c, err := New(Options{BaseURL: "https://api.test/v2", AuthHeader: "X-API-KEY", AuthValue: "k-0123456789abcdef",
		HTTPClient: &http.Client{Transport: cannedJSON{}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var out struct {
		FileKey   string `json:"fileKey"`
		UploadURL string `json:"uploadUrl"`
	}
	r := &Request{Path: "upload", RawQuery: "fileType=image"}
	got := testing.AllocsPerRun(200, func() {
		if err := c.DoJSON(ctx, r, &out); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("DoJSON: %.0f allocations per call", got)
	// 33 while the call travelled in its requests' context; 36 since the
	// retry engine's hooks and the redirect policy are the call's method
	// values (one allocation each), so that no call state is a context
	// value.
	const bound = 36
	if got > bound {
		t.Errorf("DoJSON allocates %.0f times per call, more than %d", got, bound)
	}
}
