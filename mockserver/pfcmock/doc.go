// Package pfcmock is a stateful mock of the correction container: an
// http.Handler (Server, from New) and an in-process test server (Start),
// one replica each, or a fleet of them (StartFleet). What the three mocks
// share (errors, fault injection) is package mockserver; the full
// reference is docs/mockserver.md in the module's repository.
//
// # Use
//
//	srv := pfcmock.Start(t, nil) // httptest + cleanup + a ready pfccontainer client
//	corr, err := srv.Client.CorrectFile(ctx, "in.jpg", "out.jpg", nil, nil)
//
// The mock serves PUT /pfc, GET /pfc/{imageKey}, GET /output/{name} and GET
// /version on mount directories under Options.Root (a private
// temporary tree with a valid mock licence when empty). Every PFC_*
// variable of the container is a field of Options
// (OptionsFromEnv reads them from an environment), and its
// JSON log lines, with the container's message ids, go to LogWriter.
package pfcmock
