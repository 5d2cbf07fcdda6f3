package transport

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/observe"
	"github.com/pfcsdk/pfc-go/internal/ratelimit"
	"github.com/pfcsdk/pfc-go/internal/redact"
	"github.com/pfcsdk/pfc-go/pfc"
)

// maxJSONResponse bounds what DoJSON decodes; the APIs' JSON answers are a
// few KiB, so anything near this is a broken or hostile server.
const maxJSONResponse = 32 << 20

// Request is one API call. The zero Body sends no body.
type Request struct {
	// Endpoint is the endpoint called, declared in its client's table:
	// its method, route and policy (see Endpoint). nil is a GET of Path
	// with the default policy (replayed, nothing buffered).
	Endpoint *Endpoint
	// Params fill the {name} segments of the Endpoint's route, in order,
	// each escaped as one segment.
	Params []string
	// Method is the HTTP method when Endpoint is nil or declares none;
	// empty means GET.
	Method string
	// Path is relative to BaseURL, with its segments already escaped (see
	// PathJoin), used when the Endpoint has no Route. A leading slash is
	// optional.
	Path string
	// Query is encoded sorted by key, spaces as %20.
	Query url.Values
	// RawQuery, when not empty, is sent verbatim instead of Query.
	RawQuery string
	// Header holds extra request headers. User-Agent, Content-Type (when the
	// body has one) and the credential header are set by the client.
	Header http.Header
	// Body is the request body.
	Body Body
	// NoFollowRedirects returns a 3xx response to the caller instead of
	// following it.
	NoFollowRedirects bool
	// Secrets are strings of this call to redact from its errors and logs
	// besides the Client's, such as the token of a URL sent as a query
	// value (see URLSecrets).
	Secrets []string

	// json is set by DoJSON on its own copy of the Request: Do then asks
	// for JSON, buffers a 2xx answer when jsonBuffer, and leaves its call
	// in cl for DoJSON to decode the answer.
	json, jsonBuffer bool
	cl               *call
}

// call is the state of one Do/DoExternal invocation across its attempts.
// retryablehttp runs the hooks, and http.Client the redirect policy, on the
// calling goroutine, one attempt after the other, so it needs no locking.
// Nothing of it travels in the request's context: the call's own
// http.Client (hc) sends through the call (callTransport) and asks it about
// redirects, and the retry engine's hooks are the call's methods.
type call struct {
	c      *Client
	ctx    context.Context
	method string
	// route is the Endpoint's route template, named by logs; "" for
	// DoExternal and requests without one.
	route string
	// u is the request URL; logURL is its redacted text for errors and
	// logs, computed on first use (see url): a call that succeeds without
	// logging never builds it.
	u      *url.URL
	logURL string
	// secrets are the call's own, beside the Client's: for DoExternal the
	// URL's query values, Request.Secrets, and the query values of
	// redirect hops that leave the API origin. redactor replaces them and
	// the Client's; while the call has none it is the Client's, else it is
	// built (the Client's extended, redact.Matcher.With) only when a
	// string is first redacted (redactorStale), since redaction is needed
	// on the error and log paths alone.
	secrets []string
	// secretQuery is DoExternal's URL while its query values are not yet
	// in secrets (see redact).
	secretQuery   *url.URL
	redactor      *redact.Matcher
	redactorStale bool
	external      bool
	noFollow      bool
	// noReplay, permanent and finalProcessing are the Endpoint's policy,
	// failOver the router's (SendOptions).
	noReplay        bool
	failOver        bool
	permanent       func(int) bool
	permanentErr    func(*apierr.APIError) bool
	finalProcessing bool
	// bufferJSON is Endpoint.Buffer (always for DoJSON): read a 2xx answer whole within its
	// attempt, so that a truncated body is retried like a connection error.
	bufferJSON  bool
	bufferLimit int64 // Endpoint.BufferLimit, defaulted
	once        *singleUse
	attempts    int
	nextWait    time.Duration
	// notRetried is set when a retry was due but the body could not be replayed.
	notRetried bool
	// gaveUp says why a retry that was due was not made (no retries left,
	// the context deadline, the body); "" when none was refused.
	gaveUp string
	// retriedAfterLanding is set when a retry followed an attempt that may
	// have been processed (see Outcome.RetriedAfterLanding).
	retriedAfterLanding bool
	// rc runs the attempts of this call, with the hooks above (see send).
	rc retryablehttp.Client
	// hc is the Client's http.Client, copied for the call: its Transport
	// is the call (callTransport), its CheckRedirect the call's.
	hc http.Client
	// req is the call's request, as prepare builds it for rc.
	req retryablehttp.Request
	// With an observer or a logger: when the call and its attempt under
	// way began. With an observer: the attempt under way (att, with the
	// context its StartAttempt returned) and the retry wait under way.
	start, attemptStart time.Time
	att                 *pfc.Attempt
	actx                context.Context
	wait                *pfc.RetryWait
	// admitted is set by admit when the rate budget admitted (ticket) or
	// refused (admitErr) the attempt's first hop, until its RoundTrip.
	admitted bool
	ticket   ratelimit.Ticket
	admitErr error
	// obsHeaders are the (canonical) names of the headers the observer
	// added to the request, which a hop off the service's origin loses.
	obsHeaders []string
}

// hostWithoutEmptyPort is u.Host as http.NewRequest sets Request.Host:
// without the colon of an empty port ("example.com:").
func hostWithoutEmptyPort(host string) string {
	if strings.LastIndex(host, ":") > strings.LastIndex(host, "]") {
		return strings.TrimSuffix(host, ":")
	}
	return host
}

// redact replaces the call's secrets in s, building the call's redactor
// first when its secrets are not the Client's. Every use is on the calling
// goroutine (see call), so the lazy build needs no locking.
func (cl *call) redact(s string) string {
	if cl.redactorStale {
		if cl.secretQuery != nil {
			// DoExternal's URL: its query values, found only now, since
			// most calls never redact.
			cl.secrets = append(redact.QueryValues(cl.secretQuery), cl.secrets...)
			cl.secretQuery = nil
		}
		cl.redactor, cl.redactorStale = cl.c.redactor.With(cl.secrets...), false
	}
	return cl.redactor.Redact(s)
}

// url returns the redacted request URL, for errors and logs: for
// DoExternal every query value replaced by REDACTED and the Client's
// secrets removed (and the call's, when its host or path repeats a query
// value: see echoesQuery); for an API call, the URL (password hidden) with the
// call's secrets removed.
//
// It is cut to apierr.MaxQuotedLine bytes once redacted (see quoteURL).
func (cl *call) url() string {
	if cl.logURL == "" {
		if cl.external {
			u := redactQueryValues(cl.u)
			if echoesQuery(cl.u) {
				u = cl.redact(u)
			}
			cl.logURL = quoteURL(cl.c.redactor.Redact(u))
		} else {
			cl.logURL = quoteURL(cl.redact(cl.u.Redacted()))
		}
	}
	return cl.logURL
}

// quoteURL cuts u, a URL already redacted, to what errors and logs quote
// of it (apierr.MaxQuotedLine bytes): a service's URL (a corrected file's,
// a redirect's Location) may be megabytes long.
func quoteURL(u string) string { return apierr.Excerpt(nil, u, apierr.MaxQuotedLine) }

// DoJSON sends r with Accept: application/json (unless r sets one) and
// decodes the JSON response into out (skipped when out is nil or the status
// is 204). A 3xx response is returned as an *apierr.APIError, since no JSON
// can be read from it. An empty or malformed body is an error naming the
// endpoint (redacted) and wrapping the decoder's error; it is not retried.
// A 2xx body that is cut off while it is read (see the package
// documentation) fails that attempt, which is retried like a connection
// error; the call's error then matches apierr.ErrTruncatedResponse.
func (c *Client) DoJSON(ctx context.Context, r *Request, out any) error {
	if r == nil {
		return fieldError("Request", "is nil")
	}
	rr := *r
	rr.json, rr.jsonBuffer = true, out != nil
	resp, err := c.Do(ctx, &rr)
	if err != nil {
		return err
	}
	cl := rr.cl
	if resp.StatusCode >= 300 {
		return apierr.FromResponse(resp, cl.method, cl.url(), cl.attempts, cl.redact)
	}
	defer drainAndClose(resp.Body)
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if err := DecodeJSON(resp.Body, cl.bufferLimit, out); err != nil {
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("empty body: %w", err)
		}
		// Quote a short, redacted excerpt of the decoder's error: it
		// copies a whole offending number, of any length.
		err = apierr.DecodeError(err, cl.redact)
		return cl.errorf(err, "decoding JSON response: %v", err)
	}
	return nil
}

// DoExternal sends a request to an absolute URL outside the API: a
// pre-signed upload or download URL. It never sends the credential (the
// credential header is removed from header if present), follows redirects,
// and retries like Do. Every query value of rawURL (signatures, tokens) is
// replaced by REDACTED in errors and logs, and query values of 8 characters
// or more are also removed from error bodies. Statuses are handled as in Do.
func (c *Client) DoExternal(ctx context.Context, method, rawURL string, header http.Header, body Body) (*http.Response, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The URL is not quoted: it may carry a signature.
		return nil, fieldError("url", "must be an absolute http or https URL")
	}
	// A copy of the map (send adds User-Agent and Content-Type) sharing
	// the caller's value slices, which nothing here modifies in place:
	// two allocations where Clone takes three.
	h := make(http.Header, len(header)+2)
	for k, v := range header {
		h[k] = v
	}
	header = h
	if c.authHeader != "" {
		delHeader(header, c.authHeader)
	}
	cl := &call{
		c:        c,
		method:   methodOrGet(method),
		u:        u,
		redactor: c.redactor,
		external: true,
	}
	if u.RawQuery != "" {
		cl.secretQuery, cl.redactorStale = u, true
	}
	req, err := c.prepare(ctx, cl, u, header, body)
	if err != nil {
		return nil, err
	}
	resp, err := cl.rc.Do(req)
	return cl.result(resp, err)
}

// noEndpoint is the policy of a Request without an Endpoint: the
// default one, replayed.
var noEndpoint = Endpoint{Replay: true}

// Do sends an API request to BaseURL and its Endpoint's route (or Path),
// with the credential header, retrying as the package documentation
// describes. A 2xx response, or a 3xx one that was not followed, is
// returned and the caller must close its body. Any other status becomes
// an *apierr.APIError (the body consumed and closed); a transport failure
// is an error whose text holds only the redacted URL, wrapping the cause
// (errors.Is(err, context.Canceled) holds after a cancellation, errors.As
// finds the *url.Error).
func (c *Client) Do(ctx context.Context, r *Request) (*http.Response, error) {
	resp, _, err := c.Send(ctx, r, SendOptions{})
	return resp, err
}

// SendOptions is a replica router's state of one call, beside its Request
// and its Endpoint's policy: what the router knows of the fleet, not of
// the endpoint (internal/replicas sets it per call).
type SendOptions struct {
	// FailOver ends the call at once, not retried here, when an attempt
	// provably never reached the server (see NeverSent): the router has
	// another replica of the service to send it to. Other failures keep
	// the Endpoint's policy.
	FailOver bool
}

// Outcome is what a call's attempts tell its caller beyond the answer:
// Send returns it also with an error.
type Outcome struct {
	// Attempts is the number of attempts made (0 when none was sent).
	Attempts int
	// RetriedAfterLanding is whether a retry of the call followed an
	// attempt that may have been processed: one that failed after its
	// connection was made, without an answer (reset, timeout, a body cut
	// off), or answered 500, 502 or 504. An attempt that never left (dial
	// failure) or was refused (408, 429, 503) does not count. A caller
	// reading a retry's 404 as its own first attempt's doing (a DELETE
	// whose answer was lost) checks it: a 404 after a refused attempt is a
	// plain 404.
	RetriedAfterLanding bool
}

// Send is Do with the router's state of the call (o), returning also the
// Outcome of its attempts, which the router and callers of a DELETE read.
func (c *Client) Send(ctx context.Context, r *Request, o SendOptions) (*http.Response, Outcome, error) {
	if r == nil {
		return nil, Outcome{}, fieldError("Request", "is nil")
	}
	ep := r.Endpoint
	if ep == nil {
		ep = &noEndpoint
	}
	path := r.Path
	if ep.Route != "" {
		p, err := ep.path(r.Params)
		if err != nil {
			return nil, Outcome{}, err
		}
		path = p
	}
	u, err := c.resolve(path)
	if err != nil {
		return nil, Outcome{}, err
	}
	switch {
	case r.RawQuery != "":
		u.RawQuery = r.RawQuery
	case len(r.Query) > 0:
		u.RawQuery = encodeQuery(r.Query)
	}
	header := r.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	if r.json && header.Get("Accept") == "" {
		setHeader(header, "Accept", acceptJSON[0])
	}
	if c.authHeader != "" {
		// Any spelling the caller left in Header would be sent beside ours.
		delHeader(header, c.authHeader)
		if c.authValue != "" {
			header[c.authHeader] = c.authValues
		}
	}
	cl := &call{
		c:        c,
		method:   methodOrGet(cmp.Or(ep.Method, r.Method)),
		route:    ep.Route,
		u:        u,
		redactor: c.redactor,
		noFollow: r.NoFollowRedirects,

		noReplay:        !ep.Replay,
		failOver:        o.FailOver,
		permanent:       ep.Final,
		permanentErr:    ep.FinalAnswer,
		finalProcessing: ep.Final102,
		bufferJSON:      ep.Buffer || r.jsonBuffer,
		bufferLimit:     cmp.Or(ep.BufferLimit, maxJSONResponse),
	}
	if len(r.Secrets) > 0 {
		cl.secrets, cl.redactorStale = r.Secrets, true
	}
	if r.json {
		r.cl = cl
	}
	req, err := c.prepare(ctx, cl, u, header, r.Body)
	if err != nil {
		return nil, Outcome{}, err
	}
	resp, err := cl.rc.Do(req)
	resp, err = cl.result(resp, err)
	return resp, Outcome{Attempts: cl.attempts, RetriedAfterLanding: cl.retriedAfterLanding}, err
}

func methodOrGet(m string) string {
	if m == "" {
		return http.MethodGet
	}
	return m
}

// prepare builds the request of a call and sets up the retry engine that
// sends it (cl.rc), with this package's hooks; result reads its outcome.
func (c *Client) prepare(ctx context.Context, cl *call, u *url.URL, header http.Header, body Body) (*retryablehttp.Request, error) {
	if ctx == nil {
		return nil, fieldError("ctx", "is nil")
	}
	if body.err != nil {
		return nil, body.err
	}
	cl.ctx = ctx
	if c.obs != nil || c.logger != nil {
		cl.start = time.Now()
	}
	cl.once = body.once
	readerFunc, contentLength := body.readerFunc()

	var raw any // an untyped nil for "no body": retryablehttp calls any func it gets
	if readerFunc != nil {
		raw = retryablehttp.ReaderFunc(readerFunc)
	}
	// The request is built as http.NewRequestWithContext builds one, on u
	// itself (keeping the caller's escaping exactly) rather than on its
	// text, which retryablehttp.NewRequest would parse again; SetBody is
	// what NewRequest does with the body. WithContext copies a literal
	// that stays on the stack: one allocation, where NewRequestWithContext
	// makes three (a URL and a header map, both replaced at once).
	if !validHeaderName(cl.method) { // a method is a token, as a header name is
		return nil, fieldError("Method", "is not a valid HTTP method")
	}
	hreq := (&http.Request{Method: cl.method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: header, Host: hostWithoutEmptyPort(u.Host)}).WithContext(ctx)
	// The retryablehttp.Request lives in the call too (see rc).
	req := &cl.req
	req.Request = hreq
	if err := req.SetBody(raw); err != nil {
		// Only a body source can fail here: a ReaderBody used twice.
		return nil, cl.wrapErr(err)
	}
	req.ContentLength = contentLength
	req.Header = header
	header["User-Agent"] = c.userAgentValues
	if body.contentType != "" {
		req.Header.Set("Content-Type", body.contentType)
	}

	// The retryablehttp.Client lives in the call (one allocation less);
	// its Logger stays nil: its own records carry unredacted URLs.
	rc := &cl.rc
	cl.hc = *c.hc
	cl.hc.Transport, cl.hc.CheckRedirect = (*callTransport)(cl), cl.checkRedirect
	rc.HTTPClient = &cl.hc
	rc.RetryWaitMin, rc.RetryWaitMax, rc.RetryMax = c.minWait, c.maxWait, c.maxRetries
	rc.CheckRetry, rc.Backoff, rc.RequestLogHook = cl.observedCheckRetry, cl.backoff, cl.requestHook
	rc.ErrorHandler = passLastResult
	if c.logger != nil {
		rc.ResponseLogHook = cl.responseHook
	}
	return req, nil
}

// result turns what the retry engine returned for cl into the call's
// answer: a transport failure into a redacted error, an error status (and
// a final 102) into an *apierr.APIError, each logged when a retry that
// was due was not made.
func (cl *call) result(resp *http.Response, err error) (*http.Response, error) {
	if cl.wait != nil { // cut short by the context
		cl.endWait(time.Now())
	}
	if err != nil {
		if resp != nil {
			drainAndClose(resp.Body)
		}
		out := cl.wrapErr(err)
		cl.logGaveUp(0, out)
		return nil, out
	}
	if resp.StatusCode >= 400 || resp.StatusCode == http.StatusProcessing {
		var out error = apierr.FromResponse(resp, cl.method, cl.url(), cl.attempts, cl.redact)
		if cl.notRetried {
			out = &notRetriedError{err: out}
		}
		cl.logGaveUp(resp.StatusCode, out)
		return nil, out
	}
	return resp, nil
}

// logGaveUp logs, at Warn, the failure a call returns when a retry was
// due and not made (cl.gaveUp): the last record of a call that retried
// says how it ended. out is the call's error, already redacted; status is
// its answer's, 0 for a transport failure.
func (cl *call) logGaveUp(status int, out error) {
	l := cl.c.logger
	if l == nil || cl.gaveUp == "" {
		return
	}
	attrs := cl.logAttrs(slog.Int("attempts", cl.attempts), slog.Duration("duration", time.Since(cl.start)))
	if status != 0 {
		attrs = append(attrs, slog.Int("status", status))
	}
	attrs = append(attrs, slog.String("reason", cl.gaveUp), slog.String("error", out.Error()))
	l.LogAttrs(cl.ctx, slog.LevelWarn, "pfc: request failed", attrs...)
}

// callTransport is a call as the RoundTripper of its http.Client (hc):
// each attempt, and each redirect hop, runs under the call's rules (see
// call.roundTrip) through the Client's transport.
type callTransport call

// RoundTrip runs one attempt or redirect hop of the call.
func (t *callTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	cl := (*call)(t)
	if b := cl.c.budget; b != nil && cl.budgeted(r) {
		return cl.roundTripBudgeted(b, cl.c.rt.transport(), r)
	}
	return cl.roundTrip(cl.c.rt.transport(), r)
}

// observedCheckRetry is the call's CheckRetry: it ends the attempt under
// way for the observer (when there is one), then decides (checkRetry).
func (cl *call) observedCheckRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if cl.att != nil {
		cl.endAttempt(resp, err)
	}
	return cl.checkRetry(ctx, resp, err)
}

// acceptJSON is the value of the Accept header DoJSON sends, shared by its
// requests like the Client's own header values (see setHeader).
var acceptJSON = []string{"application/json"}

// setHeader sets h[key] (key in canonical form) to value, sharing the
// slice of the common value rather than allocating one as Header.Set
// does. Shared slices have no room to grow, so an Add copies them, and
// nothing sets a request's header values in place.
func setHeader(h http.Header, key, value string) {
	if value == acceptJSON[0] {
		h[key] = acceptJSON
		return
	}
	h[key] = []string{value}
}

// requestHook runs before every attempt (retryablehttp calls it even with no
// logger): it counts attempts and logs them.
func (cl *call) requestHook(_ retryablehttp.Logger, req *http.Request, _ int) {
	cl.attempts++
	cl.admit(req)
	if cl.c.obs != nil || cl.c.logger != nil {
		cl.attemptStart = time.Now()
		if cl.c.obs != nil {
			cl.startAttempt(req, cl.attemptStart)
		}
	}
	if l := cl.c.logger; l != nil {
		l.LogAttrs(cl.ctx, slog.LevelDebug, "pfc: sending request", cl.logAttrs(slog.Int("attempt", cl.attempts))...)
	}
}

func (cl *call) responseHook(_ retryablehttp.Logger, resp *http.Response) {
	if l := cl.c.logger; l != nil {
		l.LogAttrs(cl.ctx, slog.LevelDebug, "pfc: response",
			cl.logAttrs(slog.Int("status", resp.StatusCode), slog.Int("attempt", cl.attempts),
				slog.Duration("duration", time.Since(cl.attemptStart)))...)
	}
}

func (cl *call) logRedirect(req *http.Request, hop int) {
	cl.c.logger.LogAttrs(cl.ctx, slog.LevelDebug, "pfc: following redirect",
		cl.logAttrs(
			// The target may be a pre-signed URL whatever the call: always hide its query.
			slog.String("location", quoteURL(cl.redact(redactQueryValues(req.URL)))), slog.Int("hop", hop))...)
}

// checkRetry decides, after each attempt, whether another one follows, and
// computes its wait (handed to retryablehttp through backoff). Deciding here
// rather than in backoff keeps the last response intact when we stop: a
// false answer makes retryablehttp return it as is.
func (cl *call) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, nil // never retry once the caller gave up
	}
	if err != nil {
		if !retryableError(err) || (cl.noReplay && !neverSent(err)) || (cl.failOver && neverSent(err)) {
			return false, nil
		}
	} else if !retryableStatus(resp.StatusCode) || (cl.noReplay && resp.StatusCode != http.StatusTooManyRequests) ||
		(cl.permanent != nil && cl.permanent(resp.StatusCode)) || cl.permanentAnswer(resp) {
		return false, nil
	}
	c := cl.c
	if cl.attempts > c.maxRetries {
		cl.gaveUp = "no retries left"
		return false, nil // retries exhausted: the last result is returned
	}
	if cl.once != nil && !cl.once.replayable() {
		cl.notRetried, cl.gaveUp = true, "the request body cannot be sent again"
		return false, nil
	}
	wait, fromServer := c.retryWait(cl.attempts-1, resp)
	if deadline, ok := ctx.Deadline(); ok && c.now().Add(wait).After(deadline) {
		// Waiting would outlive the caller's deadline: return what we have
		// now rather than fail later with a bare deadline error.
		if l := c.logger; l != nil {
			l.LogAttrs(ctx, slog.LevelDebug, "pfc: not retrying, the wait would pass the context deadline",
				append(cl.outcomeAttrs(resp, err), slog.Duration("wait", wait), slog.Duration("duration", time.Since(cl.attemptStart)))...)
		}
		cl.gaveUp = "the wait would pass the context deadline"
		return false, nil
	}
	cl.nextWait = wait
	if c.obs != nil {
		cl.startWait(resp, err, fromServer)
	}
	cl.retriedAfterLanding = cl.retriedAfterLanding || mayHaveLanded(resp, err)
	if l := c.logger; l != nil {
		l.LogAttrs(ctx, slog.LevelWarn, "pfc: retrying request",
			append(cl.outcomeAttrs(resp, err),
				slog.Duration("wait", wait), slog.Bool("retry_after", fromServer),
				slog.Duration("duration", time.Since(cl.attemptStart)),
				slog.Int("retries_left", c.maxRetries-cl.attempts))...)
	}
	return true, nil
}

// mayHaveLanded reports whether an attempt that ended with resp or err
// may have been processed by the server (see Outcome.RetriedAfterLanding).
func mayHaveLanded(resp *http.Response, err error) bool {
	if err != nil {
		return !neverSent(err)
	}
	switch resp.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return false
	}
	return true
}

// logAttrs are the attributes of every record of the call: the flow it
// belongs to ("op", when there is one, see observe.Name), the method,
// the route template of its Endpoint (when it has one: the path without
// its ids, what traces name spans after), the redacted URL, then extra.
func (cl *call) logAttrs(extra ...slog.Attr) []slog.Attr {
	attrs := make([]slog.Attr, 0, 4+len(extra)+2)
	if op := observe.Name(cl.ctx); op != "" {
		attrs = append(attrs, slog.String("op", op))
	}
	attrs = append(attrs, slog.String("method", cl.method))
	if cl.route != "" {
		attrs = append(attrs, slog.String("route", cl.route))
	}
	return append(append(attrs, slog.String("url", cl.url())), extra...)
}

func (cl *call) outcomeAttrs(resp *http.Response, err error) []slog.Attr {
	attrs := cl.logAttrs(slog.Int("attempt", cl.attempts))
	if err != nil {
		return append(attrs, slog.String("error", cl.describe(err)))
	}
	return append(attrs, slog.Int("status", resp.StatusCode))
}

func (cl *call) backoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	return cl.nextWait
}

// passLastResult is the ErrorHandler, replacing retryablehttp's, whose
// "giving up" error quotes the unredacted URL and which drops the last
// response: the last result is passed through unchanged.
func passLastResult(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err != nil && resp != nil {
		drainAndClose(resp.Body)
		return nil, err
	}
	return resp, err
}

// requestError is a transport failure with a redacted message; it unwraps
// to a *url.Error whose URL is redacted and whose Err is the cause, and to
// class, when set: apierr.ErrUnreachable for a server that could not be
// reached.
type requestError struct {
	msg   string
	err   error
	class error
}

func (e *requestError) Error() string { return e.msg }
func (e *requestError) Unwrap() []error {
	if e.class == nil {
		return []error{e.err}
	}
	return []error{e.err, e.class}
}

// notRetriedError adds why a retryable failure was not retried.
type notRetriedError struct{ err error }

func (e *notRetriedError) Error() string {
	return e.err.Error() + " (not retried: the request body is a single-use io.Reader and was already read)"
}
func (e *notRetriedError) Unwrap() []error { return []error{e.err, ErrBodyNotReplayable} }

// wrapErr turns an error of the retry loop (a *url.Error from net/http, the
// context's error when a wait was interrupted, a body error) into one whose
// text carries only the redacted URL, and says how many attempts were made.
func (cl *call) wrapErr(err error) error {
	wrapped := cl.redactedURLError(err)
	msg := "pfc: " + wrapped.Error()
	if cl.attempts > 1 {
		msg += fmt.Sprintf(" (%d attempts)", cl.attempts)
	}
	var te *truncatedError
	if cl.noReplay && errors.As(err, &te) {
		msg += " (not retried: the request may have been processed, and its answer was lost)"
	}
	re := &requestError{msg: cl.redact(msg), err: wrapped}
	if cl.ctx != nil && cl.ctx.Err() == nil && unreachable(err) {
		// Not after a cancellation or an expired deadline, which ended
		// the dial: the context's error says why.
		re.class = apierr.ErrUnreachable
	}
	var out error = re
	if cl.notRetried {
		out = &notRetriedError{err: out}
	}
	return out
}

// describe is the redacted text of one attempt's error, for logs.
func (cl *call) describe(err error) string {
	return cl.redact(cl.redactedURLError(err).Error())
}

// redactedURLError returns err as a *url.Error carrying the redacted URL
// (net/http's carries the full one, query included) and the same cause.
func (cl *call) redactedURLError(err error) *url.Error {
	op := cl.method[:1] + strings.ToLower(cl.method[1:]) // net/http's style: "Get"
	cause := err
	if ue, ok := err.(*url.Error); ok {
		op, cause = ue.Op, ue.Err
	}
	if strings.Contains(cause.Error(), "failed to parse Location header") {
		// net/http quotes the whole Location, which may be a pre-signed URL
		// this call has never seen, so no redactor knows its signature.
		cause = errBadLocation
	}
	return &url.Error{Op: op, URL: cl.url(), Err: cause}
}

// errBadLocation replaces net/http's error for an unparsable Location.
var errBadLocation = errors.New("redirect with an unparsable Location header")

// errorf reports a failure after a response arrived (e.g. decoding it).
func (cl *call) errorf(cause error, format string, args ...any) error {
	msg := fmt.Sprintf("pfc: %s %s: ", cl.method, cl.url()) + fmt.Sprintf(format, args...)
	return &requestError{msg: cl.redact(msg), err: cause}
}

func drainAndClose(body io.ReadCloser) {
	if _, inMemory := body.(*memBody); inMemory || body == nil {
		return // read whole and closed within its attempt (bufferJSON)
	}
	_, _ = io.CopyN(io.Discard, body, 64<<10)
	_ = body.Close()
}
