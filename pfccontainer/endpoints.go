package pfccontainer

import (
	"net/http"

	"github.com/pfcsdk/pfc-go/internal/transport"
)

// endpoints is the container's API, one line per endpoint of the API
// documentation, with its named policies (see transport.Endpoint): each
// is replayed (a repeated upload leaves an unused key that the
// container's TTL sweep deletes), its JSON answer read whole inside its
// attempt (Buffer), so one cut off mid-body is retried like a connection
// error, and an error answer whose message id the error table marks final
// (permanent) is not retried, whatever its status. The corrected file's
// URL is not an endpoint of the API: it is fetched with DoExternal. On a
// client of several replicas an upload goes to another replica while it
// provably never reached one (MoveUnsent), GET /version to any that works
// (MoveAny); the correction of a key stays on the replica that holds it.
var endpoints = []*transport.Endpoint{
	{Name: epUpload, Method: http.MethodPut, Route: "/pfc", Replay: true, Move: transport.MoveUnsent, FinalAnswer: permanent, Buffer: true, BufferLimit: maxJSONBody},
	{Name: epCorrect, Method: http.MethodGet, Route: "/pfc/{imageKey}", Replay: true, FinalAnswer: permanent, Buffer: true, BufferLimit: maxJSONBody},
	{Name: epVersion, Method: http.MethodGet, Route: "/version", Replay: true, Move: transport.MoveAny, FinalAnswer: permanent, Buffer: true, BufferLimit: maxJSONBody},
}

// decl returns ep's line of the endpoints table.
func decl(ep endpoint) *transport.Endpoint {
	for _, d := range endpoints {
		if d.Name == ep {
			return d
		}
	}
	panic("pfccontainer: endpoint " + ep + " is not declared") // a programming error, caught by TestEndpointsTable
}
