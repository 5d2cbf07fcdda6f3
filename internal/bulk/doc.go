// Package bulk is the one bulk runner behind the bulk entry points of the
// three clients: hosted.Client.CorrectDir and CorrectAll,
// pfccontainer.Client.CorrectDir and CorrectAll (and the same on
// pfccontainer.Direct, direct file mode), bgcontainer.Client.RemoveDir and
// RemoveAll. A client supplies only the per-item work, a function that
// turns one input file into one output file (its CorrectFile or
// RemoveBackgroundFile, written atomically), a classification of its
// errors and a summary of its result for the manifest, and converts the
// runner's types to its own public ones; everything else lives here:
//
//   - inputs: a directory (Dir lists its images, in lexical order, with
//     their output paths) or any iter.Seq[Item];
//   - bounded concurrency (Options.Concurrency items in flight);
//   - an optional rate limit on item starts (Options.Limiter; NewLimiter
//     builds one from golang.org/x/time/rate);
//   - a progress callback (done, failed, skipped, in flight, bytes, ETA);
//   - a resumable manifest in JSON Lines (see below);
//   - a Report whose Failures list every failed item with its error value,
//     never dropped.
//
// # Retries
//
// The runner never retries an item: each client's requests are already
// retried by the shared HTTP layer (internal/transport: connection errors,
// 408, 429 and 5xx, with backoff and Retry-After), so an item that fails
// here failed after those retries, or for a reason no retry fixes (a
// rejected job, an invalid file). A rerun with the same manifest retries
// the failed items, and only them.
//
// # Manifest
//
// With Options.Manifest set, every item that finishes appends one JSON
// object on its own line:
//
//	{"id":"a/b.jpg","status":"done","src":"in/a/b.jpg","dst":"out/a/b.jpg","bytes":5120,"ms":41,"time":"2026-11-23T18:00:00Z","result":{"jobId":"..."}}
//	{"id":"c.jpg","status":"failed","src":"in/c.jpg","dst":"out/c.jpg","bytes":77,"ms":9,"time":"...","kind":"job_rejected","error":"pfc: job ... REJECTED (code 1003): ..."}
//
// "error" is the error's message, which the clients have already redacted
// (no API key, licence key or pre-signed signature), and "kind" a short
// classification from the client. Order of events per item: the work
// writes the output atomically (temporary file, fsync, rename, directory
// fsync), then the record is appended and fsynced, and only then is the
// item reported done. Concurrent records are written in one write and one
// fsync (group commit); each is acknowledged only after that fsync, so no
// acknowledged record can be lost.
//
// A later run with the same manifest skips the items whose latest record
// is "done" and whose output still exists (Result.Skipped), and does the
// others again: failed items, items that were in flight when the previous
// run stopped, items never reached. Nothing finished is redone, and no
// result is duplicated: an item interrupted between its output's rename
// and its record is done again and its output atomically replaced. Lines
// that do not parse are ignored (an item whose record is lost is simply
// done again), and a last line without its newline, torn by a crash, is
// cut off before the first append. The temporary files a crash left
// beside the outputs (".<name>.<digits>.partial", <name> cut short for a
// long one, from fileio.WriteFileAtomic) are removed, once per output directory, before
// the first item there starts.
//
// # Cancellation
//
// When ctx ends, no new item starts, the items in flight are cancelled
// through their context (cancellation is prompt: the clients pass ctx to
// every request), and Run returns the Report with ctx's error. Interrupted
// items are counted in Report.Interrupted and get no record, so a rerun
// does them again. A failure to write the manifest stops the run the same
// way and is returned as a *ManifestError.
package bulk
