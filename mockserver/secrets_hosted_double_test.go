package mockserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// hostileHosted is a hosted API double that echoes every secret it is
// sent back to the client: the X-API-KEY in error bodies (message, code,
// parameter), in headers and in a redirect's query; the query of a
// pre-signed URL (its signature) in the error body of a storage or file
// request. TestNoSecretInAnyLogOrError checks that none of it reaches an
// error string or a log line of the client.
func hostileHosted(t *testing.T) *httptest.Server {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("X-API-KEY")
		echo := key + " " + respell(key) + " " + r.URL.RawQuery + " " + r.URL.String() + " " + respell(r.URL.RawQuery)
		w.Header().Set("X-Echo", echo)
		w.Header().Set("X-Request-Id", key)
		w.Header().Set("WWW-Authenticate", `Bearer realm="`+key+`"`)
		fail := func(status int) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(map[string]any{"status": status, "code": "echo_" + key,
				"message": "you sent " + echo, "parameter": key})
		}
		switch p := r.URL.Path; {
		case p == "/v2/upload":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]string{"fileKey": "fk-" + key,
				"uploadUrl": srv.URL + "/storage/upload/fk?expires=1&signature=" + hostileSignature})
		case p == "/v2/pfc":
			fail(http.StatusBadRequest)
		case strings.HasPrefix(p, "/v2/status/"):
			fail(http.StatusInternalServerError)
		case strings.HasPrefix(p, "/v2/presets"):
			fail(http.StatusConflict)
		case strings.HasPrefix(p, "/v2/redirect"):
			http.Redirect(w, r, srv.URL+"/v2/status/x?k="+key, http.StatusFound)
		case strings.HasPrefix(p, "/storage/"), strings.HasPrefix(p, "/files/"):
			// An object store's SignatureDoesNotMatch, quoting the query.
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte("<Error><Code>SignatureDoesNotMatch</Code><StringToSign>" + r.URL.RawQuery +
				"</StringToSign><Signature>" + r.URL.Query().Get("signature") + r.URL.Query().Get("X-Amz-Signature") + "</Signature></Error>"))
		default:
			fail(http.StatusUnauthorized)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// respell returns s as other servers' encoders and templates write it:
// upper- and lower-cased, every byte percent-escaped, every character
// \u-escaped and as HTML references.
func respell(s string) string {
	var pct, uni, ent strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&pct, "%%%02x", s[i])
	}
	for _, r := range s {
		fmt.Fprintf(&uni, `\u%04X`, r)
		fmt.Fprintf(&ent, "&#%d;", r)
	}
	return strings.Join([]string{strings.ToUpper(s), strings.ToLower(s), pct.String(), uni.String(), ent.String()}, " ")
}

// hostileSignature is the pre-signed signature the hostile double hands
// out and echoes.
const hostileSignature = "hostileSig0123456789abcdefABCDEF"
