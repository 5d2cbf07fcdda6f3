package containersvc

import (
	"net/http"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// Handler returns the container's HTTP interface, a thin translation of
// requests into Service calls:
//
//	PUT  /pfc               Upload (Content-Type, body)
//	GET  /pfc/{imageKey}    Correct (key, query)
//	GET  /pfc, GET /pfc/    Correct with no key: 400 noIdMessage
//	GET  /output/{name}     the corrected file (HEAD too; Range supported)
//	GET  /version           Version
//
// Paths are matched as received, without ServeMux's cleaning, so that a
// key such as ".." or "a%2Fb" reaches the sanity check (400
// invalidIdMessage) instead of being redirected.
//
// Phase 2 (shared plumbing): the query goes through httpx.Query(r,
// CorrectParams()...) before Correct, the upload body through httpx's
// bounded receive, and request ids through its middleware.
func (s *Service) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
			res, herr := s.Upload(r.Context(), r.Header.Get("Content-Type"), r.Body)
			if herr != nil {
				httpx.WriteError(w, herr)
				return
			}
			httpx.WriteJSON(w, http.StatusOK, res)
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
				httpx.WriteJSON(w, http.StatusOK, s.Version())
			}
		default:
			httpx.WriteError(w, httpx.Errorf(http.StatusNotFound, httpx.CodeNotFound, "no such endpoint"))
		}
	})
}

func (s *Service) serveCorrect(w http.ResponseWriter, r *http.Request, key string) {
	res, herr := s.Correct(r.Context(), key, r.URL.Query())
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
