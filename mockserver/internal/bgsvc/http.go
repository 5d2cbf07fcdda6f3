package bgsvc

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// Routes of the container (the documented paths, case-sensitive as FastAPI's).
const (
	RouteAuthorize     = "/Authorize"
	RouteStatus        = "/Status"
	RouteSubmitImage   = "/SubmitImage"
	RouteCheckImage    = "/CheckImage"
	RouteDownloadImage = "/DownloadImage"
	RouteRemoveImage   = "/RemoveImage"
)

// Handler returns the HTTP interface of the container: every answer gets
// an X-Request-Id, every request is logged (debug level, the licence key
// redacted), and errors use the shared JSON error body. Unknown paths are
// 404 (the answer does not repeat the path, which may hold a key), wrong
// methods 405 with Allow, unknown or repeated query parameters 400.
func (s *Service) Handler() http.Handler { return httpx.RequestID(s.log, http.HandlerFunc(s.route)) }

// route dispatches on the escaped path, so that a path segment holding an
// escaped "/" (a licence key) stays one segment.
func (s *Service) route(w http.ResponseWriter, r *http.Request) {
	name, arg, hasArg := strings.Cut(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	switch route := "/" + name; {
	case route == RouteAuthorize:
		if s.allow(w, r, http.MethodGet, true) {
			s.serveAuthorize(w, arg)
		}
	case route == RouteStatus && !hasArg:
		if s.allow(w, r, http.MethodGet, true) {
			httpx.WriteJSON(w, http.StatusOK, s.Status())
		}
	case route == RouteSubmitImage && !hasArg:
		// Its query is checked after the activation (serveSubmit).
		if s.allow(w, r, http.MethodPost, false) {
			s.serveSubmit(w, r)
		}
	case route == RouteCheckImage || route == RouteDownloadImage:
		if s.allow(w, r, http.MethodGet, true) {
			s.serveJob(w, route, arg)
		}
	case route == RouteRemoveImage:
		if s.allow(w, r, http.MethodDelete, true) {
			s.serveJob(w, route, arg)
		}
	default:
		// The path is not repeated: /authorize/{key} (a wrong case) is
		// unknown too, and the answer must not echo a licence key.
		httpx.WriteError(w, httpx.Errorf(http.StatusNotFound, httpx.CodeNotFound,
			"no route for %s on this path (the routes, case-sensitive: %s/{license_key}, %s, %s, %s/{process_id}, %s/{process_id}, %s/{process_id})",
			clip(r.Method), RouteAuthorize, RouteStatus, RouteSubmitImage, RouteCheckImage, RouteDownloadImage, RouteRemoveImage))
	}
}

// allow checks the method and, when noQuery is set, that the query has no
// parameter (every route but SubmitImage takes none).
func (s *Service) allow(w http.ResponseWriter, r *http.Request, method string, noQuery bool) bool {
	if !httpx.Allow(w, r, method) {
		return false
	}
	if noQuery {
		if _, e := httpx.Query(r); e != nil {
			httpx.WriteError(w, e)
			return false
		}
	}
	return true
}

// segment unescapes a path argument; ok is false when it does not
// unescape.
func segment(escaped string) (string, bool) {
	v, err := url.PathUnescape(escaped)
	return v, err == nil
}

func (s *Service) serveAuthorize(w http.ResponseWriter, escapedKey string) {
	key, ok := segment(escapedKey)
	if !ok {
		httpx.WriteError(w, httpx.ParamError(http.StatusBadRequest, httpx.CodeInvalidParameter, ParamLicenseKey, "is not a valid path segment"))
		return
	}
	st, e := s.Authorize(key)
	if e != nil {
		httpx.WriteError(w, e)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, st)
}

func (s *Service) serveSubmit(w http.ResponseWriter, r *http.Request) {
	if e := s.CheckActivated(); e != nil {
		httpx.WriteError(w, e)
		return
	}
	q, e := httpx.Query(r, ParamPreprocessing, ParamPostprocessing)
	if e != nil {
		httpx.WriteError(w, e)
		return
	}
	defer httpx.AbortBodyOnClose(s.closing, w)()
	req, e := s.ReadSubmitForm(w, r)
	if e != nil {
		httpx.WriteError(w, e)
		return
	}
	req.Preprocessing, req.Postprocessing = queryFlag(q, ParamPreprocessing), queryFlag(q, ParamPostprocessing)
	resp, e := s.Submit(req)
	if e != nil {
		httpx.WriteError(w, e)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, resp)
}

// serveJob answers CheckImage, DownloadImage and RemoveImage. A missing
// or malformed id is the service's 400 (the documented "process_id invalid
// format or missing").
func (s *Service) serveJob(w http.ResponseWriter, route, escapedID string) {
	if e := s.CheckActivated(); e != nil {
		httpx.WriteError(w, e)
		return
	}
	id, ok := segment(escapedID)
	if !ok {
		id = escapedID // not a UUID either
	}
	switch route {
	case RouteCheckImage:
		c, e := s.Check(id)
		if e != nil {
			httpx.WriteError(w, e)
			return
		}
		httpx.WriteJSON(w, http.StatusOK, c)
	case RouteRemoveImage:
		d, e := s.Remove(id)
		if e != nil {
			httpx.WriteError(w, e)
			return
		}
		httpx.WriteJSON(w, http.StatusOK, d)
	default:
		s.serveDownload(w, id)
	}
}

// serveDownload answers a result: a raw final "HTTP/1.1 102 Processing"
// while the job is queued or processing (the documented behaviour, which
// net/http cannot write as a final status: the connection is hijacked and
// closed), the PNG once completed.
func (s *Service) serveDownload(w http.ResponseWriter, id string) {
	d, e := s.Download(id)
	if e != nil {
		httpx.WriteError(w, e)
		return
	}
	if d.Processing {
		if err := httpx.WriteFinalStatus(w, http.StatusProcessing, "Processing"); err != nil {
			// No connection to hijack (HTTP/2, a recorder): 503 with
			// Retry-After says the same in a form any client reads.
			s.log.Warn("cannot write a raw 102; answering 503", "error", err)
			w.Header().Set("Retry-After", "1")
			httpx.WriteError(w, httpx.Errorf(http.StatusServiceUnavailable, httpx.CodeUnavailable, "image still processing"))
		}
		return
	}
	defer d.File.Close()
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Content-Length", strconv.FormatInt(d.Size, 10))
	h.Set("Last-Modified", d.ModTime.UTC().Format(http.TimeFormat))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, d.File); err != nil {
		s.log.Debug("download interrupted", "process_id", id, "error", err)
	}
}

// queryFlag returns the value of a query flag, nil when the query does not
// name it; a flag named with an empty value (?preprocessing=) is a pointer
// to "", which SubmitImage refuses.
func queryFlag(q url.Values, name string) *string {
	if !q.Has(name) {
		return nil
	}
	v := q.Get(name)
	return &v
}
