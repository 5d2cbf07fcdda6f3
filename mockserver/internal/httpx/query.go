package httpx

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
)

// Query parses r's query strictly: a query that does not parse is a 400
// invalid_parameter; a parameter not in allowed is a 400
// unknown_parameter and one given more than once a 400
// invalid_parameter, both naming it (the first in sorted order, so the
// answer is deterministic).
func Query(r *http.Request, allowed ...string) (url.Values, *Error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, Errorf(http.StatusBadRequest, CodeInvalidParameter, "malformed query string: %v", err)
	}
	if e := OnlyParams(q, allowed...); e != nil {
		return nil, e
	}
	return q, nil
}

// ParseQuery parses r's query without checking its names (a handler that
// checks them later, per route, with OnlyParams); a query that does not
// parse is a 400 invalid_parameter.
func ParseQuery(r *http.Request) (url.Values, *Error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, Errorf(http.StatusBadRequest, CodeInvalidParameter, "malformed query string: %v", err)
	}
	return q, nil
}

// OnlyParams answers 400 for a parameter of q not in allowed
// (unknown_parameter) or given more than once (invalid_parameter).
func OnlyParams(q url.Values, allowed ...string) *Error {
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(allowed, name) {
			return ParamError(http.StatusBadRequest, CodeUnknownParameter, name, "is not a parameter of this endpoint")
		}
		if len(q[name]) > 1 {
			return ParamError(http.StatusBadRequest, CodeInvalidParameter, name, "must be given at most once")
		}
	}
	return nil
}

// Single returns the one value of name in q and whether it is present; a
// repeated parameter is a 400 invalid_parameter.
func Single(q url.Values, name string) (string, bool, *Error) {
	vs, ok := q[name]
	if !ok {
		return "", false, nil
	}
	if len(vs) != 1 {
		return "", true, ParamError(http.StatusBadRequest, CodeInvalidParameter, name, "must be given at most once")
	}
	return vs[0], true, nil
}

// Bool returns the boolean parameter name of q: exactly "true" or
// "false"; def when absent. Anything else (or a repeat) is a 400
// invalid_parameter naming it.
func Bool(q url.Values, name string, def bool) (bool, *Error) {
	v, ok, e := Single(q, name)
	if e != nil || !ok {
		return def, e
	}
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, ParamError(http.StatusBadRequest, CodeInvalidParameter, name, "must be true or false, got %q", v)
}
