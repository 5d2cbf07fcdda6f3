// Package bgcontainer will be the client of the locally deployed GPU
// background-removal container (license activation, SubmitImage,
// CheckImage, DownloadImage, RemoveImage).
//
// It is not implemented yet: this package holds no API. The client will
// share the transport, errors and redaction of package hosted (see
// internal/transport; license keys are passed as redacted secrets), and
// package mockserver will serve a mock of the container for its tests.
package bgcontainer
