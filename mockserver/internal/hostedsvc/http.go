package hostedsvc

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// APIKeyHeader carries the API key.
const APIKeyHeader = "X-API-KEY"

// Handler returns the HTTP interface: the API under /v2 (X-API-KEY
// required), the pre-signed storage routes (PUT, no key), and the public
// result files (GET/HEAD, no key). Handlers only translate HTTP to Service
// calls and back.
func (s *Service) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

func (s *Service) serveHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Request-Id", "req_"+newID(8))
	rw := &statusRecorder{ResponseWriter: w}
	start := time.Now()
	s.route(rw, r)
	s.log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", rw.status, "elapsed", time.Since(start))
}

func (s *Service) route(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case path == "/v2" || strings.HasPrefix(path, "/v2/"):
		s.serveAPI(w, r, strings.TrimPrefix(path, "/v2"))
	case strings.HasPrefix(path, UploadRoute):
		if !allow(w, r, http.MethodPut) {
			return
		}
		q, ok := signedQuery(w, r)
		if !ok {
			return
		}
		defer s.abortBodyOnClose(w)()
		key := strings.TrimPrefix(path, UploadRoute)
		if err := s.ReceiveUpload(key, q, r.Body, r.ContentLength); err != nil {
			writeError(w, err)
			return
		}
		w.WriteHeader(http.StatusOK)
	case strings.HasPrefix(path, PresetRoute):
		if !allow(w, r, http.MethodPut) {
			return
		}
		q, ok := signedQuery(w, r)
		if !ok {
			return
		}
		defer s.abortBodyOnClose(w)()
		if err := s.ReceivePreset(strings.TrimPrefix(path, PresetRoute), q, r.Body, r.ContentLength); err != nil {
			writeError(w, err)
			return
		}
		w.WriteHeader(http.StatusOK)
	case strings.HasPrefix(path, FilesRoute):
		if !allow(w, r, http.MethodGet, http.MethodHead) {
			return
		}
		id, name, ok := strings.Cut(strings.TrimPrefix(path, FilesRoute), "/")
		if !ok {
			writeError(w, notFound("", "file not found"))
			return
		}
		f, aerr := s.OpenResult(id, name)
		if aerr != nil {
			writeError(w, aerr)
			return
		}
		defer f.Close()
		w.Header().Set("Content-Type", f.MIMEType)
		w.Header().Set("Cache-Control", "private, max-age=86400")
		http.ServeContent(w, r, f.Name, f.ModTime, f)
	default:
		writeError(w, notFound("", "no route for %s", path))
	}
}

func (s *Service) serveAPI(w http.ResponseWriter, r *http.Request, path string) {
	key := r.Header.Get(APIKeyHeader)
	if key == "" {
		writeError(w, apiErr(http.StatusUnauthorized, CodeUnauthorized, "missing %s header", APIKeyHeader))
		return
	}
	account, ok := s.Authenticate(key)
	if !ok {
		writeError(w, apiErr(http.StatusUnauthorized, CodeUnauthorized, "invalid API key"))
		return
	}
	base := s.baseURL(r)
	q, ok := query(w, r)
	if !ok {
		return
	}
	switch {
	case path == "/upload":
		if !allow(w, r, http.MethodGet) {
			return
		}
		writeResult(w)(s.RequestUpload(account, q, base))
	case path == "/pfc":
		if !allow(w, r, http.MethodGet) {
			return
		}
		writeResult(w)(s.StartJob(account, q, base))
	case strings.HasPrefix(path, "/status/") && !strings.Contains(path[len("/status/"):], "/"):
		if !allow(w, r, http.MethodGet) {
			return
		}
		s.serveStatus(w, account, path[len("/status/"):], q)
	case path == "/presets" || path == "/presets/":
		switch r.Method {
		case http.MethodGet:
			writeResult(w)(s.ListPresets(account, q))
		case http.MethodPost:
			if err := onlyParams(q); err != nil {
				writeError(w, err)
				return
			}
			writeResult(w)(s.CreatePreset(account, r.Body, base))
		default:
			allow(w, r, http.MethodGet, http.MethodPost)
		}
	case strings.HasPrefix(path, "/presets/") && !strings.Contains(path[len("/presets/"):], "/"):
		id := path[len("/presets/"):]
		if err := onlyParams(q); err != nil {
			writeError(w, err)
			return
		}
		switch r.Method {
		case http.MethodGet:
			writeResult(w)(s.GetPreset(account, id))
		case http.MethodDelete:
			writeResult(w)(s.DeletePreset(account, id))
		default:
			allow(w, r, http.MethodGet, http.MethodDelete)
		}
	default:
		writeError(w, notFound("", "no route for /v2%s", path))
	}
}

// serveStatus answers GET /status/{jobID}: 200 with the record, or 302 to
// the corrected file when the job is COMPLETED unless noRedirect=true.
func (s *Service) serveStatus(w http.ResponseWriter, account, id string, q url.Values) {
	if err := onlyParams(q, "noRedirect"); err != nil {
		writeError(w, err)
		return
	}
	noRedirect := false
	if v, ok, _ := single(q, "noRedirect"); ok {
		switch v {
		case "true":
			noRedirect = true
		case "false":
		default:
			writeError(w, paramErr(CodeInvalidParameter, "noRedirect", "must be true or false, got %q", v))
			return
		}
	}
	view, aerr := s.JobStatus(account, id)
	if aerr != nil {
		writeError(w, aerr)
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

func query(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		writeError(w, apiErr(http.StatusBadRequest, CodeInvalidParameter, "malformed query string: %v", err))
		return nil, false
	}
	return q, true
}

// signedQuery parses the query of a pre-signed URL; one that does not
// parse has been tampered with (403, like a wrong signature).
func signedQuery(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		writeError(w, apiErr(http.StatusForbidden, CodeForbidden, "the pre-signed URL's query is malformed"))
		return nil, false
	}
	return q, true
}

// abortBodyOnClose makes Close interrupt the reads of the request body,
// with a read deadline on the connection, so that a stalled upload cannot
// hold Close (which waits for every body being received). Call the
// returned function when the handler is done.
func (s *Service) abortBodyOnClose(w http.ResponseWriter) (stop func() bool) {
	rc := http.NewResponseController(w)
	// ErrNotSupported (a ResponseWriter without a connection) leaves the
	// read as it is.
	return context.AfterFunc(s.ctx, func() { _ = rc.SetReadDeadline(time.Now()) })
}

// allow answers 405 unless r's method is one of methods.
func allow(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	writeError(w, apiErr(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method %s not allowed; use %s", r.Method, strings.Join(methods, " or ")))
	return false
}

// writeResult returns a function writing either v as JSON (200) or the
// error.
func writeResult(w http.ResponseWriter) func(v any, err *APIError) {
	return func(v any, err *APIError) {
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	}
}

// marshal is json.Marshal without HTML escaping, so URLs keep their '&'.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"status":500,"code":"internal_error","message":"encoding the answer failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, e *APIError) { writeJSON(w, e.Status, e) }

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
