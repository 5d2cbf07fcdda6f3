package mockserver

import (
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/faults"
)

// ErrInvalidFaultSpec is wrapped by ParseFaults's errors.
var ErrInvalidFaultSpec = faults.ErrInvalidSpec

// FaultSpec is a parsed fault-injection spec (see ParseFaults and the
// package documentation's "Fault injection" section). Give the same
// FaultSpec to several backends: each uses its own section, and each
// backend instance keeps its own request counters.
type FaultSpec struct {
	spec *faults.Spec
	// Observe, if set, is called after every request a backend using
	// this spec serves, faulted or not, with what the fault layer decided
	// and the status the handler answered. It is called concurrently from
	// the requests' goroutines, after the answer was written (closing the
	// http.Server waits for it), or, for a fault that closes the
	// connection (reset, reset-after, truncate, 102), just before the
	// close, so that a client which saw the fault finds it observed. Set it before the spec is given to a
	// backend: each backend reads it once, when it is created. On an empty
	// spec (ParseFaults("")) it observes every request and nothing is
	// injected.
	Observe func(FaultEvent)
}

// FaultEvent describes one request that passed a backend's fault layer.
type FaultEvent struct {
	// Backend is "hosted", "container" or "bg".
	Backend string
	// Route is the route's name in a spec (see the package documentation).
	Route string
	// Seq is the request's index among the requests of its route on this
	// backend instance, from 0 in order of arrival.
	Seq uint64
	// Kind is the injected fault ("503", "reset-after", ...); "" for none.
	Kind string
	// AfterHandler reports a fault injected after the handler ran: the
	// request had its side effect but the client did not get the answer.
	AfterHandler bool
	// Method and URL are the request's; URL holds the path and the query
	// as received (pre-signed signatures included: the event prints and
	// logs with them REDACTED, the URL on its own does not).
	Method string
	URL    *url.URL
	// Status is what the handler answered (also a final 102 on a hijacked
	// connection); 0 when it did not run (a fault before the handler).
	Status int
}

// ParseFaults parses a fault-injection spec, such as
//
//	rate=0.2,kinds=503|429|reset|latency,seed=7
//	rate=0.1;hosted:routes=pfc|status;bg:rate=0.3,kinds=102|503
//
// against the backends and routes of the mocks. An empty spec returns an
// empty FaultSpec, which injects nothing (set Observe to watch requests).
// Errors match ErrInvalidFaultSpec and name the section and parameter.
func ParseFaults(spec string) (*FaultSpec, error) {
	s, err := faults.Parse(spec, faultBackends)
	if err != nil {
		return nil, err
	}
	return &FaultSpec{spec: s}, nil
}

// String returns the spec as given to ParseFaults.
func (s *FaultSpec) String() string {
	if s == nil {
		return ""
	}
	return s.spec.String()
}

// Wrap puts the fault layer of a backend in front of h, the mock's
// handler: backend is a name a section may be prefixed with ("hosted",
// "container" or "bg"), and its routes are that mock's. Each mock's
// constructor calls it once, and each call keeps its own request
// counters. A nil spec, or an unknown backend, returns h; log (nil
// discards) gets a record of each injected fault.
func (s *FaultSpec) Wrap(backend string, log *slog.Logger, h http.Handler) http.Handler {
	if s == nil {
		return h
	}
	i := slices.IndexFunc(faultBackends, func(b faults.Backend) bool { return b.Name == backend })
	if i < 0 {
		return h
	}
	b := faultBackends[i]
	var observe func(faults.Event)
	if fn := s.Observe; fn != nil {
		observe = func(e faults.Event) {
			fn(FaultEvent{Backend: e.Backend, Route: e.Route, Seq: e.Seq, Kind: string(e.Kind),
				AfterHandler: e.Kind.AfterHandler(), Method: e.Method, URL: e.URL, Status: e.Status})
		}
	}
	return faults.New(s.spec, b, log, observe).Wrap(h)
}

// faultBackends are the backends a spec may name, with their routes.
var faultBackends = []faults.Backend{hostedFaults, containerFaults, bgFaults}

// hostedFaults: the hosted mock's routes (written out: its service core
// imports this package for FaultSpec).
var hostedFaults = faults.Backend{
	Name: "hosted",
	Routes: []faults.Route{
		{Name: "upload"}, {Name: "storage"}, {Name: "pfc"}, {Name: "status"},
		{Name: "presets"}, {Name: "files"}, {Name: "other"},
	},
	Classify: func(_, p string) string {
		switch {
		case p == "/v2/upload":
			return "upload"
		case p == "/v2/pfc":
			return "pfc"
		case strings.HasPrefix(p, "/v2/status/"):
			return "status"
		case p == "/v2/presets" || strings.HasPrefix(p, "/v2/presets/"):
			return "presets"
		case strings.HasPrefix(p, "/storage/upload/"), strings.HasPrefix(p, "/storage/presets/"):
			return "storage"
		case strings.HasPrefix(p, "/files/"):
			return "files"
		}
		return "other"
	},
}

// containerFaults: the correction container mock's routes (written out:
// its service core imports this package for FaultSpec).
var containerFaults = faults.Backend{
	Name: "container",
	Routes: []faults.Route{
		{Name: "upload"}, {Name: "correct"}, {Name: "output"}, {Name: "version"}, {Name: "other"},
	},
	Classify: func(method, p string) string {
		switch {
		case p == "/pfc" && method == http.MethodPut:
			return "upload"
		case p == "/pfc", strings.HasPrefix(p, "/pfc/"):
			return "correct"
		case strings.HasPrefix(p, "/output/"):
			return "output"
		case p == "/version":
			return "version"
		}
		return "other"
	},
}

// bgFaults: the background-removal container mock's routes (written out:
// its service core imports this package for FaultSpec); download
// (GET /DownloadImage/{id}) is the one that answers a final 102.
var bgFaults = faults.Backend{
	Name: "bg",
	Routes: []faults.Route{
		{Name: "authorize"}, {Name: "status"}, {Name: "submit"}, {Name: "check"},
		{Name: "download", Final102: true}, {Name: "remove"}, {Name: "other"},
	},
	Classify: func(_, p string) string {
		name, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		switch "/" + name {
		case "/Authorize":
			return "authorize"
		case "/Status":
			return "status"
		case "/SubmitImage":
			return "submit"
		case "/CheckImage":
			return "check"
		case "/DownloadImage":
			return "download"
		case "/RemoveImage":
			return "remove"
		}
		return "other"
	},
}
