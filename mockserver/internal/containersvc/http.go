package containersvc

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// Handler returns the container's HTTP interface, a thin translation of
// requests into Service calls:
//
//	PUT  /pfc               UploadSized (Content-Type, Content-Length, body)
//	GET  /pfc/{imageKey}    Correct (key, query)
//	GET  /pfc, GET /pfc/    Correct with no key: 400 noIdMessage
//	GET  /output/{name}     the corrected file (HEAD too; Range supported)
//	GET  /version           Version (no query parameter allowed)
//
// Every answer carries an X-Request-Id (httpx.RequestID). The query of GET
// /pfc/{imageKey} goes through httpx.Query with CorrectParams first, that
// of GET /version through httpx.Query with none allowed: an
// unknown parameter (400 unknown_parameter), a repeated one or a query
// that does not parse (400 invalid_parameter) is refused before the key is
// looked at, and logged as invalidParameterMessage (debug). The upload
// body is streamed to a temporary file in input/ with the bound
// MaxUploadBytes (413 from the declared Content-Length before a byte is
// read, or as soon as the body passes it); Close cuts off a body still
// being received (httpx.AbortBodyOnClose), so a stalled upload cannot
// hold it.
//
// Paths are matched as received, without ServeMux's cleaning, so that a
// key such as ".." or "a%2Fb" reaches the sanity check (400
// invalidIdMessage) instead of being redirected. Once the service is
// closed every request is answered 503 unavailable.
func (s *Service) Handler() http.Handler {
	return httpx.RequestID(nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.act.Begin() {
			httpx.WriteError(w, httpx.Unavailable())
			return
		}
		defer s.act.End()
		p := r.URL.Path
		switch {
		case p == UploadPath:
			if !httpx.Allow(w, r, http.MethodPut, http.MethodGet) {
				return
			}
			if r.Method == http.MethodGet {
				s.serveCorrect(w, r, "")
				return
			}
			s.serveUpload(w, r)
		case strings.HasPrefix(p, CorrectPrefix):
			if httpx.Allow(w, r, http.MethodGet) {
				s.serveCorrect(w, r, strings.TrimPrefix(p, CorrectPrefix))
			}
		case strings.HasPrefix(p, OutputPrefix):
			if httpx.Allow(w, r, http.MethodGet, http.MethodHead) {
				s.serveOutput(w, r, strings.TrimPrefix(p, OutputPrefix))
			}
		case p == VersionPath:
			if httpx.Allow(w, r, http.MethodGet) {
				s.serveVersion(w, r)
			}
		default:
			httpx.WriteError(w, httpx.Errorf(http.StatusNotFound, httpx.CodeNotFound, "no such endpoint"))
		}
	}))
}

// serveVersion answers GET /version, which takes no query parameter: any
// is refused as on /pfc/{imageKey} (400 unknown_parameter, or
// invalid_parameter for a query that does not parse).
func (s *Service) serveVersion(w http.ResponseWriter, r *http.Request) {
	if _, herr := httpx.Query(r); herr != nil {
		s.logID(slog.LevelDebug, MsgInvalidParameter, "status", herr.Status, "detail", herr.Message, "parameter", herr.Parameter)
		httpx.WriteError(w, herr)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, s.Version())
}

func (s *Service) serveUpload(w http.ResponseWriter, r *http.Request) {
	stop := httpx.AbortBodyOnClose(s.ctx, w)
	defer stop()
	res, herr := s.UploadSized(r.Context(), r.Header.Get("Content-Type"), r.ContentLength, r.Body)
	if herr != nil {
		httpx.WriteError(w, herr)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, res)
}

func (s *Service) serveCorrect(w http.ResponseWriter, r *http.Request, key string) {
	q, herr := httpx.Query(r, CorrectParams()...)
	if herr != nil {
		s.logID(slog.LevelDebug, MsgInvalidParameter, "status", herr.Status, "detail", herr.Message, "parameter", herr.Parameter)
		httpx.WriteError(w, herr)
		return
	}
	res, herr := s.Correct(r.Context(), key, q)
	if herr != nil {
		httpx.WriteError(w, herr)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, res)
}

func (s *Service) serveOutput(w http.ResponseWriter, r *http.Request, name string) {
	f, fi, herr := s.OpenOutput(name)
	if herr != nil {
		httpx.WriteError(w, herr)
		return
	}
	defer f.Close()
	// By content, not by name: a preserved file name may carry the input's
	// extension while outputType changed the format.
	head := make([]byte, 512)
	n, _ := f.ReadAt(head, 0)
	w.Header().Set("Content-Type", http.DetectContentType(head[:n]))
	http.ServeContent(w, r, name, fi.ModTime(), f)
}
