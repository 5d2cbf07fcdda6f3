// Package clientopt builds a client's transport from its options. The
// shared options are declared once in package pfc over config.Config; each
// client package declares its own Option type with that underlying type
// (so pfc's options, an unnamed func type, are assignable to it, and
// another client's own options are not) and calls Build once.
//
// Defaults: retries as in package transport (4 retries, 500ms..20s
// backoff, Retry-After capped at 30s); ResponseHeaderTimeout
// transport.DefaultResponseHeaderTimeout (5 minutes) per attempt; polling
// as each client documents.
package clientopt
