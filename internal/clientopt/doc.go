// Package clientopt is the one implementation of the functional options
// shared by the hosted, pfccontainer and bgcontainer clients (go-github
// style). Each public client package declares
//
//	type Option = clientopt.Option
//
// and thin, documented With* forwards, so a user who knows hosted's options
// knows the others. A client's constructor calls Build once to get a
// configured *transport.Client and the resolved Config (polling defaults
// included).
//
// Defaults: retries as in package transport (4 retries, 500ms..20s
// backoff, Retry-After capped at 30s); ResponseHeaderTimeout
// transport.DefaultResponseHeaderTimeout (5 minutes) per attempt; polling
// as each client documents.
package clientopt
