// Package pfcdoc is the mocks' reading of the correction parameters: the
// hosted API's GET /pfc parameter table and the correction container's
// GET /pfc/{imageKey} table (Hosted, Container: in the documentation's
// order, with types, defaults, allowed values and ranges), the priority
// rules that decide which of several supplied parameters the service
// uses, and the `param` struct tag by which each mock's one request type
// marks its plain parameters (Fields, CopyParams).
//
// It is written from the API documentation and kept apart from the
// clients' declaration table (internal/pfcparams): the mocks must not
// import that table, so that a misreading on either side makes the
// cross-check tests fail instead of being shared. Its own test compares
// the two tables (names, kinds, values, ranges, defaults, required); the
// tests of internal/pfcparams drive every value through clients and
// mocks.
//
// The resize rule is shared by the hosted API and the correction container
// (GET /pfc/{imageKey}): of width, height, long, short and scale only the
// first supplied one, in that order, is used (Sizes.Resolve). The
// background rule is the hosted API's: generative (bgGenerativePrompt) >
// image (bgFileKey) > solid colour (bgColor) > transparent, all only with
// removeBackground=true, and bgShadow only in the image and colour modes
// (Background.Resolve).
//
// A test checks Hosted against the parameter table of the hosted API's
// documentation.
package pfcdoc
