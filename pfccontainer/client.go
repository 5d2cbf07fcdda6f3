package pfccontainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/clientopt"
	"github.com/pfcsdk/pfc-go/internal/config"
	"github.com/pfcsdk/pfc-go/internal/replicas"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Client talks to one correction container. It is safe for concurrent use.
// Create one with NewClient and reuse it.
type Client struct {
	http *transport.Client
	// reps are the container's replicas (one for a single base URL);
	// http is the first one's transport.
	reps *replicas.Fleet
	// base is the container's base URL as configured (WithBaseURL).
	base string
	// rebase moves corrected_url onto base (RebaseCorrectedURLs).
	rebase bool
	// maxDownload bounds a download (WithMaxDownloadSize; 0: none).
	maxDownload int64
	// flow is the routing state of the flow this copy of the client runs
	// (see correctFile): its calls go to the flow's replica. nil for the
	// client a caller holds.
	flow *replicas.Flow
}

// Option configures a Client: the transport options of package pfc
// (pfc.WithBaseURL, pfc.WithRetries ...). An option of another client
// package (hosted.WithPolling: the container's correction is synchronous)
// does not compile here.
type Option func(*config.Config)

// NewClient returns a client of the container at pfc.WithBaseURL
// (required).
// The container documents no request authentication (it is licensed by
// files mounted in /sdk_license), so no credential is sent; put it behind
// a network boundary or an authenticating reverse proxy, whose header a
// custom pfc.WithHTTPClient transport can add (to requests for the proxy's
// host only: the same transport fetches corrected_url, which may name
// another host). Invalid settings are reported
// all at once as a *pfc.ValidationError naming the options' fields.
func NewClient(opts ...Option) (*Client, error) {
	var fe apierr.FieldErrors
	if config.Apply(opts).PollingSet { // only through an explicit conversion
		fe.Add("WithPolling", "does not apply to pfccontainer: the correction is synchronous")
	}
	// The corrected files (corrected_url, fetched with DoExternal) are
	// served by the container itself: they count against a rate budget.
	auth := clientopt.Auth{BudgetExternal: true}
	tc, cfg, err := clientopt.Build(opts, auth, fe)
	if err != nil {
		return nil, err
	}
	reps, err := clientopt.BuildReplicas(context.Background(), cfg, auth, tc, probe)
	if err != nil {
		return nil, err
	}
	return &Client{http: tc, reps: reps, base: reps.First().URL, maxDownload: cfg.MaxDownloadSize}, nil
}

// RebaseCorrectedURLs returns a client sharing c's connections and
// settings that rewrites every corrected_url onto c's base URL (on a
// client of several replicas, the URL of the replica that corrected the
// image), keeping the /output/... tail, before returning it or
// downloading from it.
//
// Use it when the container's PFC_SITE_URL names a host this client
// cannot reach: the default http://localhost seen from another machine or
// container, or a site URL of the container's internal network; not when
// it names a reachable gateway or CDN that serves /output. The container's
// own answer stays in Correction.ReportedURL.
func (c *Client) RebaseCorrectedURLs() *Client {
	cc := *c
	cc.rebase = true
	return &cc
}

// BaseURL returns the container's base URL the client was built with; for
// a client of several replicas, the first replica's (with
// pfc.WithReplicaHost, the URL of its first resolved address).
func (c *Client) BaseURL() string { return c.base }

// CloseIdleConnections closes the idle keep-alive connections of the
// client's transport (when the container is going away).
func (c *Client) CloseIdleConnections() {
	for _, r := range c.reps.All() {
		r.Value.CloseIdleConnections()
	}
}

// String returns the same text as Format.
func (c Client) String() string { return fmt.Sprint(c) }

// Format prints the client as "pfccontainer.Client(<base URL>)" (for
// several replicas, "replicas <URL>, <URL> (weight 3), ..." in place of
// the base URL; ", rebased" added for RebaseCorrectedURLs) whatever the
// verb, as bgcontainer's does, never the client's internals. A nil
// *Client prints as "<nil>".
func (c Client) Format(f fmt.State, _ rune) {
	rebased := ""
	if c.rebase {
		rebased = ", rebased"
	}
	_, _ = fmt.Fprintf(f, "pfccontainer.Client(%s%s)", c.reps.Where(c.base, c.redact), rebased)
}

// LogValue makes slog log the client as Format prints it: base_url (or
// replicas) and rebase; a nil *Client as "<nil>".
func (c *Client) LogValue() slog.Value {
	if c == nil {
		return slog.StringValue("<nil>")
	}
	return slog.GroupValue(c.reps.LogAttr(c.base, c.redact), slog.Bool("rebase", c.rebase))
}

// redact is the transport's redactor (none for a client without one).
func (c *Client) redact(s string) string {
	if c.http == nil {
		return s
	}
	return c.http.Redact(s)
}

// apiError turns an error of the transport for a call of ep into the
// container's typed error: an API error whose body names one of the
// container's message ids becomes an *Error of that row, with the
// *pfc.APIError as its cause; anything else is returned as it is.
func apiError(ep endpoint, err error) error {
	var ae *pfc.APIError
	if !errors.As(err, &ae) {
		return err
	}
	if e := classify(ae.StatusCode, ae.Code, ae.Message, ae.Parameter, err); e != nil {
		e.Endpoint, e.RequestID = ep, ae.RequestID
		return e
	}
	return err
}

// maxJSONBody bounds a JSON answer read; the container's are a few
// hundred bytes.
const maxJSONBody = 1 << 20

// getJSON sends r to ep (asking for JSON, with the endpoint's policy)
// and decodes its 2xx answer into out. A body that is not one JSON value
// of out's shape, or larger than maxJSONBody, is a *pfc.ResponseError.
// key is the imageKey the call is about (its replica), "" for new work.
// The call goes where ep's Move allows (see replicas.Send): the replica of
// c's flow, the one holding key, any working one for GET /version. It
// returns the replica that answered.
func (c *Client) getJSON(ctx context.Context, ep endpoint, key string, r *transport.Request, out any) (*replicas.Node, error) {
	r.Header = http.Header{"Accept": {"application/json"}}
	r.Endpoint = decl(ep)
	// decoded: out was filled by the lookup's Check.
	decoded := false
	p := replicaPolicy
	if key != "" && out != nil {
		// The lookup of an unbound key binds it only to a replica whose
		// answer decodes (a proxy's HTML page does not).
		p.Check = func(resp *http.Response) (*http.Response, error) {
			// A copy of out (its defaults kept): a replica's answer that
			// failed half-way leaves nothing in out.
			v := reflect.New(reflect.TypeOf(out).Elem())
			v.Elem().Set(reflect.ValueOf(out).Elem())
			if err := c.decodeJSON(ep, r.Endpoint.Method, resp, v.Interface()); err != nil {
				return nil, err
			}
			reflect.ValueOf(out).Elem().Set(v.Elem())
			decoded = true
			return resp, nil
		}
	}
	resp, sent, err := replicas.Send(ctx, c.reps, c.flow, key, r, p)
	if err != nil {
		return sent.Replica, apiError(ep, err)
	}
	if decoded {
		return sent.Replica, nil
	}
	return sent.Replica, c.decodeJSON(ep, r.Endpoint.Method, resp, out)
}

// decodeJSON decodes resp's 2xx answer to ep into out and closes its body.
// A body that is not one JSON value of out's shape, or larger than
// maxJSONBody, is a *pfc.ResponseError.
func (c *Client) decodeJSON(ep endpoint, method string, resp *http.Response, out any) error {
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		// A redirect a custom CheckRedirect chose not to follow.
		return c.http.StatusError(method, resp)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxJSONBody+1))
	if err != nil {
		return c.errorf("pfc: %s: reading the response: %w", ep, err)
	}
	if len(b) > maxJSONBody {
		return &pfc.ResponseError{Endpoint: string(ep), Reason: fmt.Sprintf("body larger than %d bytes", maxJSONBody)}
	}
	if err := json.Unmarshal(b, out); err != nil {
		re := &pfc.ResponseError{Endpoint: string(ep), Reason: "not a JSON object of the documented shape"}
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te):
			// te.Value copies a whole offending number: quote an excerpt.
			re.Field = c.quote(te.Field, apierr.MaxQuotedName)
			re.Reason = "has the wrong type " + c.quote(te.Value, apierr.MaxQuotedValue)
		case errors.As(err, &se):
			re.Reason = fmt.Sprintf("malformed JSON at byte %d", se.Offset)
		case len(bytes.TrimSpace(b)) == 0:
			re.Reason = "empty body"
		}
		return re
	}
	return nil
}

// errorf is fmt.Errorf with the message passed through the client's
// redactor: for every error string that quotes a server's answer.
func (c *Client) errorf(format string, args ...any) error {
	return apierr.Redactf(c.http.Redact, format, args...)
}

// quote returns the container's text (or a caller's) as an error string
// quotes it: redacted first, then on one line and cut to at most max
// bytes, so that not even a prefix of a secret survives the cut.
func (c *Client) quote(s string, max int) string { return apierr.Excerpt(c.http.Redact, s, max) }
