package hosted

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/serverid"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// maxRecordBytes bounds a job record read from the network; real records
// are a few KiB even with detection data.
const maxRecordBytes = 8 << 20

// JobRef identifies a started job: the answer of GET /pfc.
type JobRef struct {
	// ID is the job identifier, the last path segment of StatusEndpoint.
	ID string
	// StatusEndpoint is the URL the service returned for polling.
	StatusEndpoint string
}

// StartJob validates opts and starts a correction job (GET /pfc). Invalid
// options are reported as a *pfc.ValidationError before any request is sent,
// an unusable job id (see the package doc) as a *pfc.ResponseError.
//
// GET /pfc is not idempotent: if a 5xx answer is retried, the service may
// have started the job twice. With cache enabled (the default) the second
// job reuses the first one's result. With WithCache(false) a second job
// would be billed and send its own webhook, so the request is then resent
// only when it provably never arrived (a refused connection, a 429), like
// the background-removal container's SubmitImage.
func (c *Client) StartJob(ctx context.Context, opts *CorrectionOptions) (_ *JobRef, err error) {
	if opts == nil {
		return nil, &apierr.ValidationError{Errors: []apierr.FieldError{{Field: "fileKey", Message: "is required"}}}
	}
	q, err := c.startQuery(opts)
	if err != nil {
		return nil, err
	}
	var out struct {
		StatusEndpoint string `json:"statusEndpoint"`
	}
	// A webhook URL often carries a token; keep it out of errors and logs.
	req := &transport.Request{Endpoint: epStartJob, RawQuery: q}
	if opts.Cache != nil && !*opts.Cache {
		req.Endpoint = epStartJobUncached
	}
	if opts.WebhookURL != "" {
		req.Secrets = transport.URLSecrets(opts.WebhookURL)
	}
	if err := c.http.DoJSON(ctx, req, &out); err != nil {
		return nil, err
	}
	id, err := c.jobIDFromEndpoint(out.StatusEndpoint)
	if err != nil {
		return nil, err
	}
	c.jobSubmitted(ctx, id)
	return &JobRef{ID: id, StatusEndpoint: out.StatusEndpoint}, nil
}

// jobIDFromEndpoint returns the job id, the last path segment of a
// statusEndpoint, checked (see package serverid: its shape, and no
// secret of the client in it or anywhere in the URL); otherwise a
// *pfc.ResponseError naming statusEndpoint, which quotes the URL only
// redacted and cut, and never an id that holds a secret.
func (c *Client) jobIDFromEndpoint(endpoint string) (string, error) {
	fail := func(reason string) error {
		return &pfc.ResponseError{Endpoint: "GET /pfc", Field: "statusEndpoint", Reason: reason}
	}
	if serverid.HoldsSecret(endpoint, c.http.Redact) {
		return "", fail("holds a credential of this client (not quoted); refused")
	}
	quoted := strconv.Quote(c.quote(endpoint, apierr.MaxQuotedMessage))
	u, err := url.Parse(endpoint)
	if err != nil || u.Path == "" {
		return "", fail("unusable: " + quoted)
	}
	// The last segment as sent, unescaped alone: "j%2F1" is the id "j/1"
	// (refused below), not "1", another job's.
	seg := path.Base(u.EscapedPath())
	id, err := url.PathUnescape(seg)
	if err != nil || seg == "/" || seg == "." || id == "status" {
		return "", fail("holds no job id: " + quoted)
	}
	if why := serverid.Check(id, c.http.Redact); why != "" {
		return "", fail("its job id (the last path segment) " + why + ": " + quoted)
	}
	return id, nil
}

// quote returns the service's text (or a caller's) as an error string
// quotes it: redacted first, then on one line and cut to at most max
// bytes, so that not even a prefix of a secret survives the cut.
func (c *Client) quote(s string, max int) string { return apierr.Excerpt(c.http.Redact, s, max) }

// GetJob fetches the job record (GET /status/{jobID}?noRedirect=true), so
// checking a finished job does not download its file. A 302 or 303 that
// arrives anyway reads as completion: status COMPLETED, correctedFile the
// redirect's Location; it is never followed with the API key. Any other
// 3xx is a *pfc.APIError. A record whose _id is not jobID is refused with
// an *pfc.ResponseError naming "_id"; one without _id is taken as
// jobID's.
func (c *Client) GetJob(ctx context.Context, jobID string) (_ *Job, err error) {
	if jobID == "" {
		return nil, &apierr.ValidationError{Errors: []apierr.FieldError{{Field: "jobID", Message: "is required"}}}
	}
	resp, err := c.http.Do(ctx, &transport.Request{
		Endpoint:          epGetJob,
		Params:            []string{jobID},
		RawQuery:          "noRedirect=true",
		NoFollowRedirects: true,
	})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusFound || resp.StatusCode == http.StatusSeeOther:
		loc, err := resp.Location()
		if err != nil {
			return nil, c.errorf("pfc: GET /status/%s answered %d without a usable Location", c.quote(jobID, apierr.MaxQuotedMessage), resp.StatusCode)
		}
		// The body of a redirect is usually not a record; when it is one
		// (the record of the job, as some services send), it must be
		// this job's: a Location for another job's file is refused.
		var rec struct {
			ID json.RawMessage `json:"_id"`
		}
		if json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&rec) == nil && len(rec.ID) > 0 {
			var id string
			if json.Unmarshal(rec.ID, &id) == nil {
				if err := c.checkJobID(jobID, id); err != nil {
					return nil, err
				}
			}
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return &Job{ID: jobID, Status: StatusCompleted, CorrectedFile: loc.String()}, nil
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		// Any other redirect (a moved API, a gateway's canonical path) says
		// nothing about the job: reading it as completion would stop
		// polling early and hand out an API URL as the corrected file.
		return nil, c.http.StatusError(http.MethodGet, resp)
	}
	var j Job
	if err := transport.DecodeJSON(resp.Body, maxRecordBytes, &j); err != nil {
		// The decoder's error quotes a whole offending number: a short,
		// redacted excerpt of it only.
		return nil, c.errorf("pfc: GET /status/%s: decoding job record: %w", c.quote(jobID, apierr.MaxQuotedMessage), apierr.DecodeError(err, c.http.Redact))
	}
	if err := c.checkJobID(jobID, j.ID); err != nil {
		return nil, err
	}
	if j.ID == "" {
		j.ID = jobID
	}
	return &j, nil
}

// checkJobID refuses a record whose _id (got; empty: absent) is not the
// id asked for: another job's record would make Wait end on that job's
// state and Download fetch that job's file.
func (c *Client) checkJobID(want, got string) error {
	if got == "" || got == want {
		return nil
	}
	return &pfc.ResponseError{
		Endpoint: "GET /status/" + c.quote(want, 200),
		Field:    "_id",
		Reason:   "the record is for job " + c.quote(got, 200) + ", not the job asked for",
	}
}
