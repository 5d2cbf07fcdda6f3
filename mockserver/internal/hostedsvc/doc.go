// Package hostedsvc is the core of the hosted API v2 mock: accounts,
// pre-signed uploads, jobs (run by the shared jobqueue, within a pixel
// budget), the result cache, presets, retention and webhook delivery, all
// on an injectable clock.
// Its HTTP layer (Handler) only translates requests into Service calls,
// with the plumbing shared by every mock backend (httpx).
//
// Package mockserver wraps it for users and documents the behaviour; the
// choices the API documentation leaves open are listed there.
//
// Images are corrected by a Processor (the reference engine behind a thin
// adapter). Before calling it the Service checks what the API documentation
// states about inputs, with the engine's own sniffers and limits
// (mockserver/internal/engine/imageio), so that REJECTED jobs do not depend
// on the processor: file type and format, CMYK, pixel limits, the 30 MB input
// limit of background removal, the preset, the background image.
//
// Presets live in an index of their own (presetIndex), one list per
// account in creation order, under per-account locks, never the
// Service's mu: creation is O(1) amortised, a page O(limit), so one
// account's presets slow neither other accounts nor other calls. An
// account holds at most Config.MaxPresets (default DefaultMaxPresets,
// 10,000); the API documentation gives neither a limit nor its error, so
// one more is answered as a real service would: 409 conflict, no
// parameter, "the account holds N presets, the most it may hold; delete
// one before creating another".
package hostedsvc
