package apierr

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"
)

const (
	// MaxBody is the largest body copy an APIError keeps.
	MaxBody = 4 << 10
	// readMargin is read past MaxBody so that a secret straddling the
	// MaxBody boundary is still seen whole by the redactor (see safeCut).
	readMargin = 1 << 10
	// maxRequestID bounds the request id kept from a response header (real
	// ones are UUID-sized; a header can hold megabytes).
	maxRequestID = 256
	// maxParameter bounds the parameter name kept from an error body.
	maxParameter = 256
	// drainLimit bounds what is discarded after the copy so that the
	// connection can be reused without reading an unbounded body.
	drainLimit = 64 << 10
)

// requestIDHeaders are the response headers that carry a request id, in the
// order they are consulted.
var requestIDHeaders = []string{"X-Request-Id", "X-Amzn-Requestid", "X-Amz-Request-Id", "X-Correlation-Id"}

// RequestID is the request id of an answer's header h (the first of
// X-Request-Id, X-Amzn-Requestid, X-Amz-Request-Id, X-Correlation-Id),
// redacted with redact (nil: none) and then cut to 256 bytes, so that no
// prefix of a secret straddling the cut survives; "" when there is none.
func RequestID(h http.Header, redact func(string) string) string {
	for _, k := range requestIDHeaders {
		if v := h.Get(k); v != "" {
			if redact != nil {
				v = redact(v)
			}
			return cutUTF8(v, maxRequestID)
		}
	}
	return ""
}

// FromResponse builds the *APIError for resp. It reads a bounded copy of the
// body (MaxBody bytes), closes the body, and fills Code and Message from a
// JSON body ({"message"|"error"|"detail"|"statusText": string, "code":
// string|number, "parameter": string}), an XML error document (<Error><Code/><Message/></Error>,
// as object stores answer pre-signed requests) or a short text/plain body.
// A body that does not parse leaves Code and Message empty.
//
// redactedURL must already be redacted. redact (nil = identity) is applied to
// every string taken from the response: the body copy, the message, the
// code and the request id (cut to 256 bytes).
func FromResponse(resp *http.Response, method, redactedURL string, attempts int, redact func(string) string) *APIError {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	e := &APIError{Method: method, URL: redactedURL, Attempts: attempts}
	if resp == nil {
		return e
	}
	e.StatusCode = resp.StatusCode
	e.RequestID = RequestID(resp.Header, redact)
	if resp.Body == nil {
		return e
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, MaxBody+readMargin))
	// Drain a bounded remainder so the connection can go back to the pool.
	_, _ = io.CopyN(io.Discard, resp.Body, drainLimit)

	code, msg, param := parseBody(resp.Header.Get("Content-Type"), raw)
	e.Code = redact(code)
	e.Message = redact(msg)
	e.Parameter = cutUTF8(redact(param), maxParameter)

	if len(raw) > MaxBody {
		raw = raw[:safeCut(raw, MaxBody, redact)]
	}
	body := redact(string(raw))
	if len(body) > MaxBody { // only when redaction made it longer
		body = body[:MaxBody]
	}
	if body != "" {
		e.Body = []byte(body)
	}
	return e
}

// safeCut returns a cut position <= limit at which no secret known to redact
// is split in two: cutting inside a secret and redacting afterwards would
// leave its first bytes visible. A cut is safe when redacting both halves
// separately gives the same text as redacting the whole.
func safeCut(raw []byte, limit int, redact func(string) string) int {
	whole := redact(string(raw))
	for cut := limit; cut > 0 && cut > limit-readMargin; cut-- {
		if redact(string(raw[:cut]))+redact(string(raw[cut:])) == whole {
			return cut
		}
	}
	return 0
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not
// end inside a UTF-8 sequence.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// parseBody extracts an error code, message and blamed parameter from an
// error body.
func parseBody(contentType string, raw []byte) (code, msg, param string) {
	mediaType, _, _ := mime.ParseMediaType(contentType)
	trimmed := bytes.TrimSpace(raw)
	switch {
	case isJSON(mediaType) || (len(trimmed) > 0 && trimmed[0] == '{'):
		return parseJSON(trimmed)
	case strings.HasSuffix(mediaType, "/xml") || strings.HasSuffix(mediaType, "+xml") ||
		bytes.HasPrefix(trimmed, []byte("<?xml")) || bytes.HasPrefix(trimmed, []byte("<Error>")):
		code, msg = parseXML(trimmed)
		return code, msg, ""
	case mediaType == "text/plain" && utf8.Valid(trimmed):
		// A plain-text body is usually the message itself; keep a short one.
		if len(trimmed) <= MaxQuotedMessage*2 {
			return "", string(trimmed), ""
		}
	}
	return "", "", ""
}

func isJSON(mediaType string) bool {
	return mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
}

// messageKeys are the JSON members that may carry the message, in priority order.
var messageKeys = []string{"message", "error", "detail", "statusText"}

func parseJSON(raw []byte) (code, msg, param string) {
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return "", "", ""
	}
	code = jsonScalar(obj["code"])
	param = jsonScalar(obj["parameter"])
	code, msg = parseJSONMessage(obj, code)
	return code, msg, param
}

// parseJSONMessage finds the message of a decoded JSON error object.
func parseJSONMessage(obj map[string]json.RawMessage, code string) (string, string) {
	for _, k := range messageKeys {
		v, ok := obj[k]
		if !ok {
			continue
		}
		if s := jsonScalar(v); s != "" {
			return code, s
		}
		// {"error": {"message": ..., "code": ...}}
		var nested map[string]json.RawMessage
		if json.Unmarshal(v, &nested) == nil {
			if code == "" {
				code = jsonScalar(nested["code"])
			}
			if s := jsonScalar(nested["message"]); s != "" {
				return code, s
			}
		}
		// FastAPI-style {"detail": [{"loc": [...], "msg": "..."}]}.
		var items []struct {
			Loc []any  `json:"loc"`
			Msg string `json:"msg"`
		}
		if json.Unmarshal(v, &items) == nil {
			var parts []string
			for _, it := range items {
				if it.Msg == "" {
					continue
				}
				var loc []string
				for _, l := range it.Loc {
					if s, ok := l.(string); ok {
						loc = append(loc, s)
					}
				}
				if len(loc) > 0 {
					parts = append(parts, strings.Join(loc, ".")+": "+it.Msg)
				} else {
					parts = append(parts, it.Msg)
				}
			}
			if len(parts) > 0 {
				return code, strings.Join(parts, "; ")
			}
		}
	}
	return code, ""
}

// jsonScalar returns a JSON string's value or a number's text; "" otherwise.
func jsonScalar(v json.RawMessage) string {
	if len(v) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(v, &n) == nil {
		return n.String()
	}
	return ""
}

func parseXML(raw []byte) (code, msg string) {
	var doc struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	if xml.Unmarshal(raw, &doc) != nil {
		return "", ""
	}
	return strings.TrimSpace(doc.Code), strings.TrimSpace(doc.Message)
}
