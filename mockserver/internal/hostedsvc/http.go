package hostedsvc

import (
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// APIKeyHeader carries the API key.
const APIKeyHeader = "X-API-KEY"

// Handler returns the HTTP interface: the API under /v2 (X-API-KEY
// required), the pre-signed storage routes (PUT, no key), and the public
// result files (GET/HEAD, no key). Handlers only translate HTTP to Service
// calls and back. Once Close has begun every request is answered 503
// unavailable: the files behind the state are going away.
func (s *Service) Handler() http.Handler { return httpx.RequestID(s.log, http.HandlerFunc(s.route)) }

func (s *Service) route(w http.ResponseWriter, r *http.Request) {
	if s.closing() {
		httpx.WriteError(w, httpx.Unavailable())
		return
	}
	path := r.URL.Path
	switch {
	case path == "/v2" || strings.HasPrefix(path, "/v2/"):
		s.serveAPI(w, r, strings.TrimPrefix(path, "/v2"))
	case strings.HasPrefix(path, UploadRoute):
		s.servePut(w, r, strings.TrimPrefix(path, UploadRoute), s.ReceiveUpload)
	case strings.HasPrefix(path, PresetRoute):
		s.servePut(w, r, strings.TrimPrefix(path, PresetRoute), s.ReceivePreset)
	case strings.HasPrefix(path, FilesRoute):
		if !httpx.Allow(w, r, http.MethodGet, http.MethodHead) {
			return
		}
		id, name, ok := strings.Cut(strings.TrimPrefix(path, FilesRoute), "/")
		if !ok {
			httpx.WriteError(w, notFound("", "file not found"))
			return
		}
		f, aerr := s.OpenResult(id, name)
		if aerr != nil {
			httpx.WriteError(w, aerr)
			return
		}
		defer f.Close()
		w.Header().Set("Content-Type", f.MIMEType)
		w.Header().Set("Cache-Control", "private, max-age=86400")
		http.ServeContent(w, r, f.Name, f.ModTime, f)
	default:
		httpx.WriteError(w, notFound("", "no route for %s", path))
	}
}

func (s *Service) serveAPI(w http.ResponseWriter, r *http.Request, path string) {
	key := r.Header.Get(APIKeyHeader)
	if key == "" {
		httpx.WriteError(w, httpx.Errorf(http.StatusUnauthorized, httpx.CodeUnauthorized, "missing %s header", APIKeyHeader))
		return
	}
	account, ok := s.Authenticate(key)
	if !ok {
		httpx.WriteError(w, httpx.Errorf(http.StatusUnauthorized, httpx.CodeUnauthorized, "invalid API key"))
		return
	}
	base := s.baseURL(r)
	q, qerr := httpx.ParseQuery(r)
	if qerr != nil {
		httpx.WriteError(w, qerr)
		return
	}
	switch {
	case path == "/upload":
		if !httpx.Allow(w, r, http.MethodGet) {
			return
		}
		writeResult(w)(s.RequestUpload(account, q, base))
	case path == "/pfc":
		if !httpx.Allow(w, r, http.MethodGet) {
			return
		}
		writeResult(w)(s.StartJob(account, q, base))
	case strings.HasPrefix(path, "/status/") && !strings.Contains(path[len("/status/"):], "/"):
		if !httpx.Allow(w, r, http.MethodGet) {
			return
		}
		s.serveStatus(w, account, path[len("/status/"):], q)
	case path == "/presets" || path == "/presets/":
		switch r.Method {
		case http.MethodGet:
			writeResult(w)(s.ListPresets(account, q))
		case http.MethodPost:
			if err := httpx.OnlyParams(q); err != nil {
				httpx.WriteError(w, err)
				return
			}
			writeResult(w)(s.CreatePreset(account, r.Body, base))
		default:
			httpx.Allow(w, r, http.MethodGet, http.MethodPost)
		}
	case strings.HasPrefix(path, "/presets/") && !strings.Contains(path[len("/presets/"):], "/"):
		id := path[len("/presets/"):]
		if err := httpx.OnlyParams(q); err != nil {
			httpx.WriteError(w, err)
			return
		}
		switch r.Method {
		case http.MethodGet:
			writeResult(w)(s.GetPreset(account, id))
		case http.MethodDelete:
			writeResult(w)(s.DeletePreset(account, id))
		default:
			httpx.Allow(w, r, http.MethodGet, http.MethodDelete)
		}
	default:
		httpx.WriteError(w, notFound("", "no route for /v2%s", path))
	}
}

// serveStatus answers GET /status/{jobID}: 200 with the record, or 302 to
// the corrected file when the job is COMPLETED unless noRedirect=true.
func (s *Service) serveStatus(w http.ResponseWriter, account, id string, q url.Values) {
	if err := httpx.OnlyParams(q, "noRedirect"); err != nil {
		httpx.WriteError(w, err)
		return
	}
	noRedirect, err := httpx.Bool(q, "noRedirect", false)
	if err != nil {
		httpx.WriteError(w, err)
		return
	}
	view, aerr := s.JobStatus(account, id)
	if aerr != nil {
		httpx.WriteError(w, aerr)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if view.Status == "COMPLETED" && !noRedirect {
		w.Header().Set("Location", view.CorrectedFile)
		w.WriteHeader(http.StatusFound)
	}
	_, _ = w.Write(view.Record)
}

func (s *Service) baseURL(r *http.Request) string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// servePut answers a PUT to a pre-signed storage URL (no API key): receive
// checks the URL's query and stores the body of the object named name; 200
// with an empty body once stored. A query that does not parse is 403, as
// a tampered URL.
func (s *Service) servePut(w http.ResponseWriter, r *http.Request, name string,
	receive func(name string, q url.Values, body io.Reader, contentLength int64) *httpx.Error) {
	if !httpx.Allow(w, r, http.MethodPut) {
		return
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		httpx.WriteError(w, httpx.Errorf(http.StatusForbidden, httpx.CodeForbidden, "the pre-signed URL's query is malformed"))
		return
	}
	defer httpx.AbortBodyOnClose(s.ctx, w)()
	if err := receive(name, q, r.Body, r.ContentLength); err != nil {
		httpx.WriteError(w, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// writeResult returns a function writing either v as JSON (200) or the
// error.
func writeResult(w http.ResponseWriter) func(v any, err *httpx.Error) {
	return func(v any, err *httpx.Error) {
		if err != nil {
			httpx.WriteError(w, err)
			return
		}
		httpx.WriteJSON(w, http.StatusOK, v)
	}
}
