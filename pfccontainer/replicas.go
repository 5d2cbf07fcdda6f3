package pfccontainer

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/replicas"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// replicaPolicy: the engine failing on an image (503
// processingPFCErrorMessage) is the image's failure, not the replica's;
// 400 unknownImageIdMessage about a key means another replica holds it.
var replicaPolicy = replicas.Policy{
	Failure: func(ae *apierr.APIError) bool {
		return ae.StatusCode != http.StatusNotImplemented && !permanent(ae)
	},
	Elsewhere: func(err error) bool {
		var ae *apierr.APIError
		if !errors.As(err, &ae) {
			return false
		}
		id, ok := findMessageID(ae.Code, ae.Message)
		return ok && id == msgUnknownImageID
	},
}

// probe is the health check of a replica: GET /version, once.
func probe(ctx context.Context, tc *transport.Client) error {
	resp, _, err := tc.Send(ctx, &transport.Request{Endpoint: decl(epVersion)}, transport.SendOptions{FailOver: true})
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// probeTimeout bounds the check of a replica that failed a flow.
const probeTimeout = 30 * time.Second

// checkLost marks the replica of c's flow lost (Flow.Lost) when a step ended with a 5xx
// that counts against the replica (replicaPolicy; not the engine failing
// on the image), its retries spent, or (setting it aside) failed without
// an answer from it and either it did not answer within the response
// header timeout (a hung replica) or GET /version, sent once, never
// reaches it either. The image is then done again elsewhere, its upload
// and output left to the TTL sweep.
func (c *Client) checkLost(ctx context.Context, err error) {
	f := c.flow
	if f == nil || !f.Movable || f.Pin == nil || err == nil || ctx.Err() != nil {
		return
	}
	rep := f.Pin
	if replicaPolicy.Sick(err) {
		f.Lost = true // not set aside: its health count decides that
		return
	}
	var answered *Error
	var ae *pfc.APIError
	if errors.As(err, &answered) || errors.As(err, &ae) {
		return
	}
	if !replicas.Unanswered(err) {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
		defer cancel()
		if !replicas.Unreachable(pctx, rep, probe) {
			return
		}
	}
	c.reps.SetAside(rep)
	f.Lost = true
}

// redoOnLoss runs the steps of a flow (Correct, CorrectFile) on one
// replica of a fleet at a time: when the replica dies or hangs under it (see checkLost), the image
// is done again on another one. step runs on a copy of c whose calls go to
// the replica of its flow (c.flow).
func (c *Client) redoOnLoss(step func(*Client) (*Correction, error)) (*Correction, error) {
	if c.flow.Pinned() != nil || !c.reps.Many() {
		return step(c)
	}
	var (
		tried []*replicas.Node
		lostR []string
		corr  *Correction
		err   error
	)
	for {
		rep := c.reps.Pick(tried...)
		if rep == nil {
			return corr, err
		}
		f := &replicas.Flow{Pin: rep, Movable: true}
		cc := *c
		cc.flow = f
		corr, err = step(&cc)
		c.reps.Release(rep)
		if !f.Lost {
			if corr != nil {
				corr.Replica, corr.LostReplicas = rep.URL, lostR
			}
			return corr, err
		}
		lostR = append(lostR, rep.URL)
		tried = append(tried, rep)
	}
}
