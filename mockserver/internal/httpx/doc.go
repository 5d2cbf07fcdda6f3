// Package httpx holds the HTTP plumbing shared by the mock backends
// (hosted API, correction container, background-removal container): the
// one JSON error body, JSON writing, method checks and, as they move here,
// strict query parsing, bounded body reading, request ids and a writer for
// a raw final status on a hijacked connection.
package httpx
