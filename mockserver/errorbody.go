package mockserver

import "errors"

// ErrorBody is the JSON body of every error answer of every mock backend
// (hosted API, correction container, background-removal container; the
// documentation leaves the shape open, so the three share one):
//
//	{"status": 400, "code": "invalid_parameter", "message": "width: must be between 32 and 10000, got 5", "parameter": "width"}
//
// See the package documentation for the codes.
type ErrorBody struct {
	// Status repeats the HTTP status code.
	Status int `json:"status"`
	// Code is a machine-readable reason, such as "invalid_parameter".
	Code string `json:"code"`
	// Message explains the error; when a parameter is to blame it starts
	// with the parameter's name.
	Message string `json:"message"`
	// Parameter names the one parameter to blame, if any.
	Parameter string `json:"parameter,omitempty"`
}

// DefaultMemoryBudget is the default of the mocks' MemoryBudget option,
// in bytes: 1.2 GB of live heap, what 200 megapixels of an ordinary 8-bit
// image hold while corrected, about 2 GB of heap with the collector's
// headroom.
const DefaultMemoryBudget = 1_200_000_000

// ErrInvalidOptions is wrapped by the mocks' constructors' errors for
// unusable options.
var ErrInvalidOptions = errors.New("mockserver: invalid options")
