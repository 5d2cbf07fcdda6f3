package bgcontainer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/pfc"
)

// maxJSONBody bounds a JSON answer; the container's are a few hundred
// bytes.
const maxJSONBody = 1 << 20

// object is a decoded JSON object whose members are read by name with
// typed accessors. Unknown members are ignored; a member of the wrong type
// gives a *pfc.ResponseError naming it. A JSON null reads as absent.
type object struct {
	ep      endpoint
	members map[string]json.RawMessage
	redact  func(string) string
}

// readObject reads one JSON object from r (at most maxJSONBody bytes).
// redact (nil = identity) is applied to the reasons of errors.
func readObject(ep endpoint, r io.Reader, redact func(string) string) (*object, error) {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	data, err := io.ReadAll(io.LimitReader(r, maxJSONBody+1))
	if err != nil {
		return nil, apierr.Redactf(redact, "pfc: %s: reading the response: %w", ep, err)
	}
	return parseObject(ep, data, redact)
}

func parseObject(ep endpoint, data []byte, redact func(string) string) (*object, error) {
	o := &object{ep: ep, redact: redact}
	if len(data) > maxJSONBody {
		return nil, o.fail("", "body larger than %d bytes", maxJSONBody)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, o.fail("", "not a JSON object")
	}
	if err := json.Unmarshal(trimmed, &o.members); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, o.fail("", "malformed JSON at byte %d", se.Offset)
		}
		return nil, o.fail("", "malformed JSON")
	}
	return o, nil
}

// quote returns s, a value of the answer, as a reason quotes it: redacted,
// then cut (see apierr.Excerpt).
func (o *object) quote(s string, max int) string { return apierr.Excerpt(o.redact, s, max) }

func (o *object) fail(field, format string, args ...any) error {
	return &pfc.ResponseError{Endpoint: string(o.ep), Field: field, Reason: o.redact(fmt.Sprintf(format, args...))}
}

// raw returns a member, or nil when it is absent or null.
func (o *object) raw(name string) json.RawMessage {
	r, ok := o.members[name]
	if !ok || bytes.Equal(r, []byte("null")) {
		return nil
	}
	return r
}

func kindOf(r json.RawMessage) string {
	switch r[0] {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "a number"
}

// str reads a string member ("" when absent).
func (o *object) str(name string) (string, error) {
	r := o.raw(name)
	if r == nil {
		return "", nil
	}
	if r[0] != '"' {
		return "", o.fail(name, "expected a string, got %s", kindOf(r))
	}
	var s string
	if err := json.Unmarshal(r, &s); err != nil {
		return "", o.fail(name, "malformed string")
	}
	return s, nil
}

// boolString reads a member documented as the string "true" or "false";
// a JSON boolean is accepted too. It returns the value and the raw text;
// a string strconv.ParseBool does not know reads as false.
func (o *object) boolString(name string) (bool, string, error) {
	r := o.raw(name)
	if r == nil {
		return false, "", nil
	}
	switch r[0] {
	case 't', 'f':
		var b bool
		if err := json.Unmarshal(r, &b); err != nil {
			return false, "", o.fail(name, "malformed boolean")
		}
		return b, strconv.FormatBool(b), nil
	case '"':
		s, err := o.str(name)
		if err != nil {
			return false, "", err
		}
		b, _ := strconv.ParseBool(strings.TrimSpace(s))
		return b, s, nil
	}
	return false, "", o.fail(name, "expected \"true\" or \"false\", got %s", kindOf(r))
}

// number reads a number member, also given as a numeric string; ok is
// false when it is absent.
func (o *object) number(name string) (v float64, ok bool, err error) {
	r := o.raw(name)
	if r == nil {
		return 0, false, nil
	}
	text := string(r)
	if r[0] == '"' {
		if text, err = o.str(name); err != nil {
			return 0, false, err
		}
		text = strings.TrimSpace(text)
	} else if kindOf(r) != "a number" {
		return 0, false, o.fail(name, "expected a number, got %s", kindOf(r))
	}
	v, perr := strconv.ParseFloat(text, 64)
	if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, o.fail(name, "expected a number, got %q", o.quote(text, apierr.MaxQuotedValue))
	}
	return v, true, nil
}

// integer reads a whole-number member (0 when absent).
func (o *object) integer(name string) (int, error) {
	v, ok, err := o.number(name)
	if err != nil || !ok {
		return 0, err
	}
	if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		return 0, o.fail(name, "expected a whole number, got %v", v)
	}
	return int(v), nil
}
