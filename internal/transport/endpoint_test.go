package transport

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

var epCheck = &Endpoint{Name: "CheckImage", Method: http.MethodDelete, Route: "/CheckImage/{process_id}", Replay: true}

// TestEndpointRoute: a Request of an Endpoint is sent with the
// endpoint's method to its route, each parameter escaped as one segment.
func TestEndpointRoute(t *testing.T) {
	t.Parallel()
	var got atomic.Value
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Method + " " + r.URL.EscapedPath())
	})
	c := newClient(t, Options{BaseURL: srv.URL + "/v2"})
	resp, err := c.Do(context.Background(), &Request{Endpoint: epCheck, Params: []string{"a/b c"}, Method: http.MethodPost})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "DELETE /v2/CheckImage/a%2Fb%20c", got.Load())
}

// TestEndpointParams: a parameter count that does not fit the route is a
// *apierr.ValidationError naming Params, and nothing is sent.
func TestEndpointParams(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	srv := newServer(t, func(http.ResponseWriter, *http.Request) { sent.Add(1) })
	c := newClient(t, Options{BaseURL: srv.URL})
	for _, params := range [][]string{nil, {"a", "b"}} {
		_, err := c.Do(context.Background(), &Request{Endpoint: epCheck, Params: params})
		var ve *apierr.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "Params", ve.Errors[0].Field)
	}
	assert.Zero(t, sent.Load())
}

// TestEndpointParamDotSegments: a parameter that is empty or a dot
// segment would address another resource once resolved (/status/.. is
// the API root): refused naming the parameter, never sent.
func TestEndpointParamDotSegments(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	srv := newServer(t, func(http.ResponseWriter, *http.Request) { sent.Add(1) })
	c := newClient(t, Options{BaseURL: srv.URL})
	for _, p := range []string{"", ".", ".."} {
		_, err := c.Do(context.Background(), &Request{Endpoint: epCheck, Params: []string{p}})
		var ve *apierr.ValidationError
		require.ErrorAs(t, err, &ve, "%q", p)
		assert.Equal(t, "process_id", ve.Errors[0].Field, "%q", p)
	}
	assert.Zero(t, sent.Load())
}

// TestEndpointRouteLogged: every record of a call names its route
// template, never the path with its ids, beside the redacted URL.
func TestEndpointRouteLogged(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	rec := &logRecorder{}
	c := newClient(t, Options{BaseURL: srv.URL, Logger: slogLogger(rec), MaxRetries: 1})
	resp, err := c.Do(context.Background(), &Request{Endpoint: epCheck, Params: []string{"job-1234"}})
	require.NoError(t, err)
	resp.Body.Close()
	for _, msg := range []string{"pfc: sending request", "pfc: response", "pfc: retrying request"} {
		recs := rec.find(msg)
		require.NotEmpty(t, recs, msg)
		for _, r := range recs {
			assert.Equal(t, "/CheckImage/{process_id}", r["route"].String(), msg)
		}
	}
	// Without an Endpoint there is no route to name.
	resp, err = c.Do(context.Background(), &Request{Path: "x"})
	require.NoError(t, err)
	resp.Body.Close()
	recs := rec.find("pfc: sending request")
	_, has := recs[len(recs)-1]["route"]
	assert.False(t, has)
}
