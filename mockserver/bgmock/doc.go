// Package bgmock is a stateful mock of the background-removal container:
// an http.Handler (Server, from New) and an in-process test server
// (Start), one replica each, or a fleet of them (StartFleet). What the
// three mocks share (errors, fault injection, the choice of engine) is
// package mockserver; the full reference is docs/mockserver.md in the
// module's repository.
//
// # Use
//
//	srv := bgmock.Start(t, nil) // httptest + cleanup + a ready bgcontainer client
//	res, err := srv.Client.RemoveBackgroundFile(ctx, "in.jpg", "out.png", nil, nil)
//
// The mock serves /Authorize/{license_key}, /Status, /SubmitImage,
// /CheckImage/{id}, /DownloadImage/{id} and /RemoveImage/{id}. It starts
// unactivated (unless Options.Activated): until /Authorize gets
// the valid key (TestServer.LicenseKey), every image endpoint
// answers 403 not_activated. Jobs queue for a worker, run, and stay until
// removed.
package bgmock
