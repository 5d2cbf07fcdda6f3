// Package pfccontainer will be the client of the locally deployed
// correction container (PUT and GET /pfc, /version, direct file mode).
//
// It is not implemented yet: this package holds no API. The client will
// share the transport, errors and redaction of package hosted (see
// internal/transport), and package mockserver will serve a mock of the
// container for its tests.
package pfccontainer
