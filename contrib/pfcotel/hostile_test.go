package pfcotel_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/pfcsdk/pfc-go/contrib/pfcotel"
	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/pfc"
)

// hostileKey has characters every encoding changes.
const hostileKey = "Lic-7f3A/9c2e+51b4=4d0e@9a7f:6b8c"

// spellings are ways a server echoes the key (those of the redaction
// tests that a header or a JSON string can carry).
func spellings(key string) map[string]string {
	b := []byte(key)
	js, _ := json.Marshal(key)
	var u strings.Builder
	for _, r := range key {
		fmt.Fprintf(&u, `\u%04x`, r)
	}
	var html strings.Builder
	for _, r := range key {
		fmt.Fprintf(&html, "&#%d;", r)
	}
	return map[string]string{
		"as is":              key,
		"upper case":         strings.ToUpper(key),
		"QueryEscape":        url.QueryEscape(key),
		"PathEscape":         url.PathEscape(key),
		"JSON":               string(js[1 : len(js)-1]),
		"\\u-escaped":        u.String(),
		"HTML decimal":       html.String(),
		"hex":                hex.EncodeToString(b),
		"base64":             base64.StdEncoding.EncodeToString(b),
		"base64 URL, raw":    base64.RawURLEncoding.EncodeToString(b),
		"base64 query-esc'd": url.QueryEscape(base64.StdEncoding.EncodeToString(b)),
	}
}

// hostileHosted serves the hosted API echoing echo everywhere a server
// can: request ids, error bodies, a pre-signed URL's path and query, a
// job status, a corrected file's URL. Each first answer of an endpoint is
// a 503 asking for a retry. storage, when set, is the base URL of the
// pre-signed upload URL.
func hostileHosted(t *testing.T, echo, storage string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	var srvURL string
	var uploads, polls atomic.Int32
	fail := func(w http.ResponseWriter, status int) {
		w.Header().Set("X-Request-Id", echo)
		w.Header().Set("Retry-After", "0")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"message": "bad key " + echo, "code": echo})
	}
	mux.HandleFunc("GET /v2/upload", func(w http.ResponseWriter, _ *http.Request) {
		if uploads.Add(1) == 1 {
			fail(w, http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("X-Request-Id", echo)
		base := srvURL
		if storage != "" {
			base = storage
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"fileKey": "fk1",
			"uploadUrl": base + "/store/" + url.PathEscape(echo) + "?sig=" + url.QueryEscape(echo)})
	})
	mux.HandleFunc("PUT /store/{key}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("X-Request-Id", echo)
	})
	mux.HandleFunc("GET /v2/pfc", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Request-Id", echo)
		_ = json.NewEncoder(w).Encode(map[string]string{"statusEndpoint": srvURL + "/v2/status/j1"})
	})
	mux.HandleFunc("GET /v2/status/j1", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Request-Id", echo)
		status, extra := echo, ""
		if polls.Add(1) > 1 {
			status, extra = "COMPLETED", srvURL+"/files/"+url.PathEscape(echo)+"?sig="+url.QueryEscape(echo)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"_id": "j1", "status": status, "statusText": echo, "code": 0,
			"createdAt": "2026-11-22T10:00:00.000Z", "updatedAt": "2026-11-22T10:00:01.000Z", "correctedFile": extra})
	})
	mux.HandleFunc("GET /files/{f}", func(w http.ResponseWriter, _ *http.Request) { fail(w, http.StatusBadGateway) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	srvURL = srv.URL
	return srv
}

// TestNoSecretInTelemetry: a server that echoes the API key, in every
// spelling the redactor knows, in request ids, error bodies, pre-signed
// URLs, job statuses and file URLs, gets it into no span name, attribute,
// event, status or metric attribute; and no metric attribute holds a job
// id, a URL or a file name.
func TestNoSecretInTelemetry(t *testing.T) {
	t.Parallel()
	for name, echo := range spellings(hostileKey) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tm := newTelemetry(t)
			srv := hostileHosted(t, echo, "")
			c, err := hosted.NewClient(hostileKey, pfc.WithBaseURL(srv.URL+"/v2"), pfc.WithObserver(tm.obs),
				pfc.WithRetries(1, time.Millisecond, time.Millisecond), hosted.WithPolling(pfc.WaitOptions{MinDelay: 1, MaxDelay: 1}))
			require.NoError(t, err)
			img := tinyJPEG(t, 3)
			_, err = c.Correct(context.Background(), strings.NewReader(string(img)), int64(len(img)), nil, io.Discard, nil)
			require.Error(t, err, "the download fails")

			assertNoSecret(t, tm, hostileKey)
			assert.Contains(t, telemetryTexts(t, tm), "other", "the echoed job status is reported as other")
		})
	}
}

// kvTexts are the keys and values of kvs as text.
func kvTexts(kvs []attribute.KeyValue) []string {
	var out []string
	for _, kv := range kvs {
		out = append(out, string(kv.Key), kv.Value.String())
	}
	return out
}

// metricSets are the attribute sets of m's data points.
func metricSets(m metricdata.Metrics) []attribute.Set {
	var out []attribute.Set
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, dp := range d.DataPoints {
			out = append(out, dp.Attributes)
		}
	case metricdata.Histogram[float64]:
		for _, dp := range d.DataPoints {
			out = append(out, dp.Attributes)
		}
	}
	return out
}

// telemetryTexts are the names, attribute keys and values, event
// attributes and status descriptions of every span, and the names and
// attribute values of every metric, with the metric attribute values
// last, after an empty string.
func telemetryTexts(t *testing.T, tm *telemetry) []string {
	t.Helper()
	var texts []string
	spans := tm.spans.Ended()
	require.NotEmpty(t, spans)
	for _, s := range spans {
		texts = append(texts, s.Name(), s.Status().Description)
		texts = append(texts, kvTexts(s.Attributes())...)
		for _, e := range s.Events() {
			texts = append(texts, e.Name)
			texts = append(texts, kvTexts(e.Attributes)...)
		}
	}
	var labels []string
	for _, m := range tm.metrics(t) {
		texts = append(texts, m.Name)
		for _, set := range metricSets(m) {
			for _, kv := range set.ToSlice() {
				labels = append(labels, kv.Value.String())
			}
		}
	}
	return append(append(texts, ""), labels...)
}

// assertNoSecret checks that no spelling of key is in any telemetry text,
// and that no metric attribute holds a job id, a file key, a URL or a
// file name.
func assertNoSecret(t *testing.T, tm *telemetry, key string) {
	t.Helper()
	texts := telemetryTexts(t, tm)
	for _, s := range spellings(key) {
		for _, text := range texts {
			require.NotContains(t, strings.ToLower(text), strings.ToLower(s))
		}
	}
	for i := len(texts) - 1; i >= 0 && texts[i] != ""; i-- {
		for _, bad := range []string{"j1", "fk1", "/store/", "/files/", "http", "?", ".jpg"} {
			assert.NotContains(t, texts[i], bad, "a metric attribute")
		}
	}
}

// failStorage fails every request to a host under .storage.test as a
// resolver would, naming the host; it sends the others.
type failStorage struct{ next http.RoundTripper }

func (f failStorage) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Hostname(), ".storage.test") {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: r.URL.Hostname(), IsNotFound: true}}
	}
	return f.next.RoundTrip(r)
}

// TestNoSecretInTransportErrors: a pre-signed URL whose host name holds
// the API key, and whose connection fails naming that host, gets the key
// into no attribute (server.address) or status (the attempt's error).
func TestNoSecretInTransportErrors(t *testing.T) {
	t.Parallel()
	const key = "k3yabcdef0123456789xyz" // fits in a host name, also as hex
	for _, echo := range []string{key, strings.ToUpper(key), hex.EncodeToString([]byte(key))} {
		t.Run(echo, func(t *testing.T) {
			t.Parallel()
			tm := newTelemetry(t)
			srv := hostileHosted(t, echo, "http://"+echo+".storage.test")
			c, err := hosted.NewClient(key, pfc.WithBaseURL(srv.URL+"/v2"), pfc.WithObserver(tm.obs),
				pfc.WithHTTPClient(&http.Client{Transport: failStorage{next: srv.Client().Transport}}),
				pfc.WithRetries(1, time.Millisecond, time.Millisecond))
			require.NoError(t, err)
			img := tinyJPEG(t, 4)
			_, err = c.Correct(context.Background(), strings.NewReader(string(img)), int64(len(img)), nil, io.Discard, nil)
			require.ErrorIs(t, err, pfc.ErrUnreachable)
			assertNoSecret(t, tm, key)
			var sawDNS bool
			for _, s := range tm.spans.Ended() {
				sawDNS = sawDNS || strings.Contains(s.Status().Description, "no such host")
			}
			assert.True(t, sawDNS, "the attempt's span has its (redacted) error")
		})
	}
}

// TestStorageHostNotAMetricAttribute: a pre-signed storage URL's host is
// chosen by the service, one per job if it likes ("job-42.storage.test"):
// it stays on the attempt's span but is no attribute of
// http.client.request.duration, whose series would grow with the jobs.
// The service's own host (an attempt with a route) stays on both.
func TestStorageHostNotAMetricAttribute(t *testing.T) {
	t.Parallel()
	tm := newTelemetry(t)
	ctx := context.Background()
	for i, a := range []pfc.Attempt{
		{Method: "PUT", Server: "job-41.storage.test", Number: 1, Status: 200},
		{Method: "GET", Server: "job-42.storage.test:8443", Number: 1, Status: 200},
		{Method: "GET", Route: "/status/{jobID}", Server: "api.test:8443", Number: 1, Status: 200},
	} {
		a.Start = time.Now()
		actx := tm.obs.StartAttempt(ctx, &a)
		tm.obs.EndAttempt(actx, &a)
		require.Len(t, tm.spans.Ended(), i+1)
	}
	var hosts []string
	for _, set := range metricSets(tm.metrics(t)["http.client.request.duration"]) {
		if v, ok := set.Value("server.address"); ok {
			hosts = append(hosts, v.AsString())
		}
	}
	assert.Equal(t, []string{"api.test"}, hosts)
	for _, s := range tm.spans.Ended() {
		assert.Contains(t, kvTexts(s.Attributes()), "server.address", s.Name())
	}
}

// TestZeroObserver: an Observer not made by New (its zero value) reports
// nothing instead of panicking in the client's calls.
func TestZeroObserver(t *testing.T) {
	t.Parallel()
	var o pfcotel.Observer
	ctx := context.Background()
	op := &pfc.Operation{Kind: "item", Name: "hosted.bulk", Item: 1, Start: time.Now()}
	octx := o.StartOperation(ctx, op)
	require.NotNil(t, octx)
	a := &pfc.Attempt{Method: "GET", Route: "/status/{jobID}", Header: http.Header{}, Start: time.Now()}
	actx := o.StartAttempt(octx, a)
	require.NotNil(t, actx)
	assert.Empty(t, a.Header)
	o.EndAttempt(actx, a)
	o.RetryWait(octx, &pfc.RetryWait{Attempt: 1, Reason: "server error"})
	o.JobUpdate(octx, &pfc.JobUpdate{API: "hosted", Status: "COMPLETED", Terminal: true})
	o.EndOperation(octx, op)
}
