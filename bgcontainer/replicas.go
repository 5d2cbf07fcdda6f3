package bgcontainer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/replicas"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// replica is one container instance of the client's list.
type replica = replicas.Node

// onFlow returns a copy of c whose calls pass f to the router: each goes
// to f's replica (f.Pin), and a Movable flow's call that never reaches it
// ends at once. The flow's steps call the copy's methods.
func (c *Client) onFlow(f *replicas.Flow) *Client {
	cc := *c
	cc.flow = f
	return &cc
}

// pinned returns c's copy for calls to r alone.
func (c *Client) pinned(r *replica) *Client { return c.onFlow(&replicas.Flow{Pin: r}) }

// fleet reports whether the client has several replicas.
func (c *Client) fleet() bool { return c.reps.Many() }

// replicaPolicy: a 500 of GET /DownloadImage is the job's failure, not
// the replica's; a 404 about a process id means another replica holds it,
// and so does a replica not activated (401, 403, code not_activated),
// which holds no job.
var replicaPolicy = replicas.Policy{
	Elsewhere: func(err error) bool {
		var ae *apierr.APIError
		if !errors.As(err, &ae) {
			return false
		}
		switch ae.StatusCode {
		case http.StatusNotFound, http.StatusUnauthorized, http.StatusForbidden:
			return true
		}
		return strings.EqualFold(ae.Code, "not_activated")
	},
}

// downloadPolicy is replicaPolicy for GET /DownloadImage, whose 500 is
// the job's failure, not the replica's.
var downloadPolicy = func() replicas.Policy {
	p := replicaPolicy
	p.Failure = func(ae *apierr.APIError) bool {
		return ae.StatusCode != http.StatusNotImplemented && ae.StatusCode != http.StatusInternalServerError
	}
	return p
}()

// policyOf is the replica policy of ep's calls.
func policyOf(ep endpoint) replicas.Policy {
	if ep == epDownloadImage {
		return downloadPolicy
	}
	return replicaPolicy
}

// probe is the health check of a replica: GET /Status, once.
func probe(ctx context.Context, tc *transport.Client) error {
	resp, _, err := tc.Send(ctx, &transport.Request{Endpoint: epStatus.decl(), Header: jsonHeader()}, transport.SendOptions{FailOver: true})
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// unreachable reports whether rep is down: a GET /Status, sent once,
// never reaches it.
func (c *Client) unreachable(ctx context.Context, rep *replica) bool {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), defaultCleanupTimeout)
	defer cancel()
	return ctx.Err() == nil && replicas.Unreachable(pctx, rep, probe)
}

// checkAnswer is the replicas.Policy.Check of a call of ep about
// processID bound to no replica: the replica that answers it holds the
// job only when the 2xx answer is ep's documented one (a JSON object of
// its shape; for GET /DownloadImage, a PNG). A proxy's HTML page is not:
// that replica is passed over, not bound to the job.
func (c *Client) checkAnswer(ep endpoint, processID string) func(*http.Response) (*http.Response, error) {
	return func(resp *http.Response) (*http.Response, error) {
		if ep == epDownloadImage {
			br := bufio.NewReader(resp.Body)
			head, _ := br.Peek(len(pngMagic))
			if !bytes.Equal(head, pngMagic) {
				resp.Body.Close()
				return nil, &pfc.ResponseError{Endpoint: string(epDownloadImage), Reason: "the body is not a PNG image"}
			}
			resp.Body = struct {
				io.Reader
				io.Closer
			}{br, resp.Body}
			return resp, nil
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxJSONBody+1))
		resp.Body.Close()
		if err == nil {
			switch ep {
			case epCheckImage:
				_, err = decodeCheckResult(processID, bytes.NewReader(b), c.redact)
			case epRemoveImage:
				_, err = decodeDeleteResult(bytes.NewReader(b), c.redact)
			default:
				_, err = readObject(ep, bytes.NewReader(b), c.redact)
			}
		} else {
			err = apierr.Redactf(c.redact, "pfc: %s: reading the response: %w", ep, err)
		}
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		return resp, nil
	}
}
