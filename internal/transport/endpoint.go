package transport

import (
	"fmt"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
)

// Endpoint is one endpoint of an API, declared once in its client's table
// (endpoints.go): its method, its route template and its named policies.
// A Request carries its Endpoint; the transport reads the policy from it.
// The zero policy is the safe one: not replayed once it may have reached
// the server, no final statuses besides the default ones.
type Endpoint struct {
	// Name is the client's name for the call ("CheckImage", "GetJob"):
	// what its errors call the endpoint.
	Name string
	// Method is the HTTP method.
	Method string
	// Route is the path template relative to the client's base URL, as the
	// API documentation writes it ("/CheckImage/{process_id}"): each
	// {name} segment is filled from Request.Params, escaped. Logs name the
	// route, never the path with its ids.
	Route string
	// Replay says the request may be sent again once it may have reached
	// the server. Without it (a request that creates something per
	// attempt: POST /SubmitImage) only failures proving that it never left
	// (no connection obtained, dial refused or failed, DNS failure) or
	// that it was refused unread (429 Too Many Requests) are retried; no
	// other status and no error after connecting is.
	Replay bool
	// Move says whether and how a replica router (internal/replicas) may
	// send the call to another replica of the service: see Move. The zero
	// value, Stay, never moves a call.
	Move Move
	// Final, when set, reports statuses the service documents as final for
	// this endpoint: they are never retried, even when the default policy
	// would (e.g. 500 "processing failed" of GET /DownloadImage).
	Final func(status int) bool
	// FinalAnswer, when set, sees the parsed error of every answer of 400
	// or more that the policy would retry, and reports whether it is final
	// for this endpoint: for statuses shared by transient and permanent
	// conditions, told apart by the body's code or message (the correction
	// container's 503 processingPFCErrorMessage). The body is peeked (a
	// bounded copy, see apierr.MaxBody) and kept whole for the caller.
	FinalAnswer func(*apierr.APIError) bool
	// Final102 makes an informational 102 Processing end the attempt at
	// once as "still processing" (an *apierr.APIError with StatusCode 102
	// matching apierr.ErrStillProcessing), without waiting for a final
	// response and without retrying: for endpoints documented to answer a
	// final 102 (GET /DownloadImage of the background-removal container).
	Final102 bool
	// Buffer reads a 2xx answer (204 excepted) whole, at most BufferLimit,
	// inside its attempt, so that a body cut off while it is read is
	// retried like a connection error. For small JSON answers a client
	// decodes itself; DoJSON buffers always. Never for downloads.
	Buffer bool
	// BufferLimit bounds a buffered answer; 0 means 32 MiB. A longer
	// answer is read to BufferLimit+1 bytes only, enough for the caller's
	// own check (more than BufferLimit: too long) to see it.
	BufferLimit int64
}

// Move is the named policy of an endpoint on a client of several replicas
// of one service: may its call go to another replica.
type Move uint8

const (
	// Stay: the call goes to its flow's replica, or to the one that holds
	// its key (a job or image id), asked of each replica in turn while no
	// replica is known to hold it; never elsewhere.
	Stay Move = iota
	// MoveUnsent is new work (a submission, an upload): the call goes to
	// the least busy replica, and to the next while an attempt provably
	// never reached one (NeverSent) and none may have been processed
	// (Outcome.RetriedAfterLanding).
	MoveUnsent
	// MoveAny is a call without side effects that every replica answers
	// alike (a status, a version): it goes to the least busy replica, and
	// to the next while one fails as the replica's fault (not reached, not
	// answered in time, a 5xx).
	MoveAny
)

// String is the method and route: "GET /CheckImage/{process_id}".
func (e *Endpoint) String() string { return e.Method + " " + e.Route }

// path fills the route's {name} segments with params, in order, each
// escaped as one segment (see PathJoin); an empty value, "." or ".." is
// refused, naming the parameter.
func (e *Endpoint) path(params []string) (string, error) {
	segs := strings.Split(e.Route, "/")
	n := 0
	for i, s := range segs {
		if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
			continue
		}
		if n == len(params) {
			return "", fieldError("Params", "has fewer values than the route "+e.Route+" has parameters")
		}
		switch params[n] {
		case "", ".", "..":
			// A dot segment would name another resource once the server
			// resolves it (/status/.. is the API root): never sent.
			return "", fieldError(s[1:len(s)-1], fmt.Sprintf("must not be %q", params[n]))
		}
		segs[i] = PathEscape(params[n])
		n++
	}
	if n != len(params) {
		return "", fieldError("Params", "has more values than the route "+e.Route+" has parameters")
	}
	return strings.Join(segs, "/"), nil
}
