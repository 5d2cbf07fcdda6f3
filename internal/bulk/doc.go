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
//     their output paths), a directory of an io/fs.FS (FSDir, with
//     Options.Source; OpenInput streams an input for its upload) or any
//     iter.Seq[Item];
//   - outputs: files, or names in a pfc.Sink (Options.Sink; WriteOutput
//     publishes through it), each written whole or not at all;
//   - shards (Options.Shard, shard.go): the items whose ID's FNV-1a 64
//     hash falls to the shard, with a manifest per shard by default;
//   - bounded concurrency (Options.Concurrency items in flight);
//   - an optional rate limit on item starts (Options.Limiter; NewLimiter
//     builds one from golang.org/x/time/rate);
//   - a progress callback (done, failed, skipped, in flight, bytes, ETA);
//   - a resumable manifest in JSON Lines (see below);
//   - a Report whose Failures list every failed item with its error value,
//     never dropped; the runner never retries an item (the clients'
//     requests are retried by internal/transport), a rerun does.
//
// # Manifest
//
// With Options.Manifest set, every item that finishes appends one JSON
// object on its own line:
//
//	{"id":"a/b.jpg","status":"done","src":"in/a/b.jpg","dst":"out/a/b.jpg","bytes":5120,"ms":41,"time":"2026-11-23T18:00:00Z","result":{"jobId":"..."}}
//	{"id":"c.jpg","status":"failed","src":"in/c.jpg","dst":"out/c.jpg","bytes":77,"ms":9,"time":"...","kind":"job_rejected","error":"pfc: job ... REJECTED (code 1003): ..."}
//
// "error" is the error's message and "kind" a short classification from
// the client. Order of events per item: the work writes the output
// atomically (temporary file, fsync, rename, directory fsync), then the
// record is appended and fsynced, and only then is the item reported
// done. Concurrent records are written in one write and one fsync (group
// commit); each is acknowledged only after that fsync, so no acknowledged
// record can be lost.
//
// Every string of a record (names, error, kind, result) passes the
// client's redactor (Options.Redact) before it is written, so no API key,
// licence key or pre-signed signature reaches the file in any spelling
// the redactor knows; a line that would still hold one once encoded is
// written redacted whole, without its raw names and result (its item is
// then done again by a rerun, like an item whose name holds a secret: its
// redacted ID matches nothing).
//
// A name (id, src, dst) that is not valid UTF-8, which a JSON string
// cannot hold, is written with U+FFFD for each invalid byte and, beside
// it, its exact bytes in base64 ("idRaw", "srcRaw", "dstRaw"), which a
// rerun reads back: such a file is skipped like any other. Manifests
// written without those fields still load; their items whose names were
// mangled are done once more.
//
// # Jobs in flight
//
// A client's work (Options.Start) calls its Started hook as soon as the
// service accepted the item's job, with the client's reference to it;
// the runner appends and fsyncs a third kind of record before the work
// goes on to wait:
//
//	{"id":"a/b.jpg","status":"started","src":"...","dst":"...","bytes":0,"ms":0,"time":"...","job":{"jobId":"...","fileKey":"..."}}
//
// "job" is the hosted job id and upload key, the correction container's
// imageKey and replica Key, or the background-removal container's
// process id and replica Key. An item whose latest record is "started"
// was in flight when its run stopped. A rerun collects such a job when
// its item comes in the input (Options.Collect: wait, download into the
// item's Dst, never the record's, and for the background-removal
// container removal), on the workers; no item starts until every item
// recorded so came, or the input ended (for an input of unknown size, at
// most 65,536 items wait). Collected items count in Report.Collected and
// get their "done" record. A job the
// service no longer knows (pfc.ErrJobForgotten: 404, past retention or
// TTL, FAILED or REJECTED, a replica no longer in the client's fleet, a
// record without "job") is counted in Report.Redone and its item is done
// again, unless its output was written after the "started" record (the
// work writes it last: the run stopped before the item's record): that
// item is done. Any other failure of a collection (a timeout, a network
// error) writes no record, and an item whose work failed after its job
// started keeps the job in its "failed" record: a rerun collects it
// rather than pay for a new one. Older manifests load as they did.
//
// # Cap and dry run
//
// Options.MaxStarts stops starting items once that many started in this
// run (collections do not count): those in flight finish, the rest count
// in Report.NotStarted, and Run returns an error matching
// pfc.ErrJobCapReached; a rerun goes on. Options.DryRun calls no work
// and writes nothing: it reads the manifest and sorts every item into
// Report.Plan (to process, done, to collect, refused by local checks of
// the item and its input file, the error naming the field).
//
// A later run with the same manifest skips the items whose latest record
// is "done" and whose output still exists (Result.Skipped), collects
// those recorded "started", and does the others again: failed items,
// items interrupted before their job started, items never reached. Nothing finished is redone, and no
// result is duplicated: an item interrupted between its output's rename
// and its record is done again and its output atomically replaced. Lines
// that do not parse are ignored (an item whose record is lost is simply
// done again), and a last line without its newline, torn by a crash, is
// cut off before the first append; a file whose first line is no JSON
// object, or whose last line is no torn record (a user's file at the
// path, by a hard link or a wrong path), is refused with a
// *pfc.ManifestError (pfc.ErrNotManifest), left as it is.
//
// The manifest must be a regular file: a symbolic link at its path is
// refused, not followed, and a named pipe or device is refused without
// waiting on it (a *pfc.ManifestError naming the path). A run holds an
// exclusive lock on its manifest (flock, where the platform has it): a
// second run of the same manifest while the first is alive is refused
// with pfc.ErrManifestInUse.
//
// The work's temporary files (fileio.WriteFileAtomicScoped with
// Item.Scope, which the run sets for each item) carry the
// run's identity in their names, ".<name>.<key>-<token>.<digits>.partial":
// key is derived from the manifest's path (its links resolved), token is
// the run's own. Before the first item in an output directory starts, the
// files there of another token under this manifest's key are removed:
// their run is provably dead, since this run holds the manifest's lock.
// Nothing else is touched: not the files of a run of another manifest
// (which may be writing to the same folder right now), not those of a
// run without a manifest or of a single call (".<name>.<digits>.partial"),
// and nothing at all where no lock could be taken.
//
// # Inputs
//
// Dir records the identity (device and inode) of every file it lists in
// Item.Listed, and the work opens the input through
// fileio.OpenParamScoped with Item.Scope, which then refuses a symbolic link at the
// input's path and any file but the one listed: an input replaced after
// the listing fails with a file error, and nothing is read or written
// for it.
//
// # Cancellation
//
// When ctx ends, no new item starts, the items in flight are cancelled
// through their context (cancellation is prompt: the clients pass ctx to
// every request), and Run returns the Report with ctx's error. Interrupted
// items are counted in Report.Interrupted and get no record, so a rerun
// does them again. A failure to write the manifest stops the run the same
// way and is returned as a *pfc.ManifestError.
package bulk
