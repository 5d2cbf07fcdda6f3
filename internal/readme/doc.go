// Package readme holds the test that keeps the Go snippets of the
// repository's README.md compiling: every ```go block must build when
// pasted into a main function or a test function. It has no code of its
// own.
package readme
