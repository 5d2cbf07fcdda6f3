// Package pfcparams declares the correction parameters of the two
// correction APIs once, for both clients: the hosted API's GET /pfc
// (package hosted) and the correction container's GET /pfc/{imageKey}
// (package pfccontainer). Table holds one Param per wire name: the APIs
// that take it, its kind (and so its Go type), its range or allowed
// values with each API's spelling, the service default and a doc line.
//
// Each client binds its CorrectionOptions struct to the table once (Bind):
// every field with a `url:"name"` tag must have an entry for that API of a
// matching kind, and every entry for the API a field. Validation
// (Binding.Check), query encoding (Binding.Encode), the order of reported
// problems and the resize priority (ResizePriority, Sizes.Resolve) are
// derived from the table, so the clients never repeat a name, range or
// spelling.
//
// # Adding a parameter
//
//  1. Add one Param to Table, in the documentation's order, with the APIs
//     that take it, its Kind, range or values, default and doc line.
//  2. Add one field with the url tag of its wire name to the
//     CorrectionOptions of each client it applies to (and, if wanted, one
//     With* setter). The field's doc comment may repeat the doc line.
//
// Nothing else: Bind panics at package initialisation, and the tests
// fail, when a field and the table disagree. The mocks keep their own
// tables, written from the API documentation (mockserver/internal/pfcdoc
// and containersvc); the cross-check test of this package drives every
// declared parameter through the clients into the in-process mocks, at
// its range edges and just outside, so a misreading on either side fails.
//
// Priority rules: of width, height, long, short and scale only the first
// supplied one is used (both APIs); the hosted background modes are
// generative > image > colour > transparent (Background.Resolve).
package pfcparams
