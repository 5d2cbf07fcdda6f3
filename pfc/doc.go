// Package pfc holds what the three pfc-go clients share, defined once: the
// errors they return, the transport options that configure any of them,
// the wait options, the one-call flow options and the bulk-run types.
//
// The clients are hosted (the hosted correction API), pfccontainer (the
// correction container) and bgcontainer (the background-removal
// container). Learn one and you know the others.
//
// # Errors
//
// Every error a client returns classifies with the same targets:
//
//	var apiErr *pfc.APIError     // an error status the service answered
//	var ve *pfc.ValidationError  // bad input, refused before any request
//	switch {
//	case errors.As(err, &ve):
//		fmt.Println("fix:", ve.Fields())
//	case errors.Is(err, pfc.ErrRateLimited):
//		// back off
//	case errors.As(err, &apiErr):
//		fmt.Println(apiErr.StatusCode, apiErr.Message, apiErr.RequestID)
//	}
//
// An *APIError unwraps to the sentinel of its status class:
//
//	400, 422  ErrBadRequest
//	401, 403  ErrUnauthorized
//	404, 410  ErrNotFound
//	413       ErrTooLarge
//	429       ErrRateLimited
//	5xx       ErrServer
//	102       ErrStillProcessing (a final 102 Processing: poll again)
//
// Other statuses (408, 409, 3xx ...) unwrap to nil; test StatusCode. The
// containers add errors of their own that explain an answer from their
// API documentation's error tables (pfccontainer.Error, bgcontainer.Error):
// errors.As still finds the *APIError behind them.
//
// Every string in an error has passed the client's redactor first: the
// API key, licence keys and pre-signed URL signatures never appear in an
// error message, a log record or a file the SDK writes.
package pfc
