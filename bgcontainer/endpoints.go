package bgcontainer

import (
	"net/http"

	"github.com/pfcsdk/pfc-go/internal/transport"
)

// endpoints is the container's API, one line per endpoint of the API
// documentation, with its named policies (see transport.Endpoint). JSON
// answers are read whole inside their attempt (Buffer), so one cut off
// mid-body is retried like a connection error (never for SubmitImage,
// whose error then says the answer was lost). SubmitImage starts a job per
// request: it is never replayed once it may have reached the container.
// DownloadImage answers a final 102 while the job is processing, and 500
// when the job failed; its PNG streams to the caller. On a client of
// several replicas a submission goes to another replica while it provably
// never reached one (MoveUnsent), GET /Status to any that works (MoveAny);
// the calls about a job stay on the replica that holds it.
var endpoints = []*transport.Endpoint{
	{Name: string(epAuthorize), Method: http.MethodGet, Route: "/Authorize/{license_key}", Replay: true, Buffer: true, BufferLimit: maxJSONBody},
	{Name: string(epStatus), Method: http.MethodGet, Route: "/Status", Replay: true, Move: transport.MoveAny, Buffer: true, BufferLimit: maxJSONBody},
	{Name: string(epSubmitImage), Method: http.MethodPost, Route: "/SubmitImage", Replay: false, Move: transport.MoveUnsent, Buffer: true, BufferLimit: maxJSONBody},
	{Name: string(epCheckImage), Method: http.MethodGet, Route: "/CheckImage/{process_id}", Replay: true, Buffer: true, BufferLimit: maxJSONBody},
	{Name: string(epDownloadImage), Method: http.MethodGet, Route: "/DownloadImage/{process_id}", Replay: true, Final102: true, Final: jobFailed},
	{Name: string(epRemoveImage), Method: http.MethodDelete, Route: "/RemoveImage/{process_id}", Replay: true, Buffer: true, BufferLimit: maxJSONBody},
}

// jobFailed is the final status of GET /DownloadImage: 500, the job failed.
func jobFailed(status int) bool { return status == http.StatusInternalServerError }

// decl returns e's line of the endpoints table.
func (e endpoint) decl() *transport.Endpoint {
	for _, d := range endpoints {
		if d.Name == string(e) {
			return d
		}
	}
	panic("bgcontainer: endpoint " + string(e) + " is not declared") // a programming error, caught by TestEndpointsTable
}
