// Package doccheck holds the tests that keep the doc comments of the
// public packages (every package outside internal/, examples/ and cmd/)
// true to the code. It has no code of its own.
//
// Every code block of a doc comment that reads as Go (it has a :=, a
// declaration, or a call such as hosted.NewClient( ) must compile against
// the module as it is: statements as the body of a function, declarations
// at top level, the packages they name imported. A fragment may use, without
// declaring them, ctx (a context.Context), t (a *testing.T), err (an error
// to classify), c (the documented package's *Client), apiKey, licenseKey,
// fileKey (strings) and handler (an http.Handler), and need not use every
// variable it declares. Shell commands, JSON, headers and tables are not Go.
// The ```go blocks of the Markdown documents (docs/, examples/) compile
// the same way; README.md's are internal/readme's.
//
// A doc comment names no unexported identifier of its package, and no
// family of names ("every Resize* setter") without members; an Error
// method that quotes its text returns that text.
package doccheck
