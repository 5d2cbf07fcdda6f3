// Package fileio is the file handling the three clients share: opening a
// regular file to upload (Open), recognising an image by its content
// (SniffImage, DetectContentType) and writing a result atomically
// (WriteFileAtomic).
//
// WriteFileAtomic writes to a temporary file in the destination's
// directory, fsyncs it, gives it its final mode (an overwritten file keeps
// its permission bits, a new file gets 0644) and renames it over the
// destination, so the destination is either untouched or complete: never
// half-written, and no temporary file is left behind on failure.
//
// A bulk run speaks to the file functions through a Scope, passed to them
// as an argument (never in a context): WriteFileAtomicScoped and
// DownloadFile name their temporary files after the run, and
// OpenParamScoped opens a listed input only if it is still the file that
// was listed, never through a symbolic link.
package fileio
