package hosted

import (
	"net/http"

	"github.com/pfcsdk/pfc-go/internal/transport"
)

// The hosted API's endpoints, one line each as the API documentation
// lists them, routes relative to the base URL (its /v2 prefix), with
// their named policies (see transport.Endpoint). Every one is replayed:
// GET /pfc with cache on reuses the first job's result, and a repeated
// POST /presets/ is answered 409. A job record is read whole inside its
// attempt (Buffer), so one cut off mid-body is retried; DoJSON buffers
// the other JSON answers.
var (
	epRequestUpload = &transport.Endpoint{Name: "RequestUpload", Method: http.MethodGet, Route: "/upload", Replay: true}
	epStartJob      = &transport.Endpoint{Name: "StartJob", Method: http.MethodGet, Route: "/pfc", Replay: true}
	epGetJob        = &transport.Endpoint{Name: "GetJob", Method: http.MethodGet, Route: "/status/{jobID}", Replay: true, Buffer: true, BufferLimit: maxRecordBytes}
	epListPresets   = &transport.Endpoint{Name: "ListPresets", Method: http.MethodGet, Route: "/presets", Replay: true}
	epCreatePreset  = &transport.Endpoint{Name: "CreatePreset", Method: http.MethodPost, Route: "/presets/", Replay: true}
	epGetPreset     = &transport.Endpoint{Name: "GetPreset", Method: http.MethodGet, Route: "/presets/{presetId}", Replay: true}
	epDeletePreset  = &transport.Endpoint{Name: "DeletePreset", Method: http.MethodDelete, Route: "/presets/{presetId}", Replay: true}
)

// endpoints is the table of the API, checked against the API
// documentation's routes.
var endpoints = []*transport.Endpoint{
	epRequestUpload, epStartJob, epGetJob, epListPresets, epCreatePreset, epGetPreset, epDeletePreset,
}

// epStartJobUncached is GET /pfc with cache=false: a second job would be
// billed and send its own webhook, so it is resent only when it provably
// never arrived (a refused connection, a 429).
var epStartJobUncached = func() *transport.Endpoint {
	e := *epStartJob
	e.Replay = false
	return &e
}()
