package bulk

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Record statuses in the manifest. StatusStarted records an item's job
// that the service accepted (Record.Job), written and fsynced before the
// work waits on it: a rerun collects that job (Options.Collect) instead
// of starting another.
const (
	StatusDone    = "done"
	StatusFailed  = "failed"
	StatusStarted = "started"
)

// Record is one line of the manifest.
type Record struct {
	// ID is the item's ID.
	ID string `json:"id"`
	// Status is StatusDone, StatusFailed or StatusStarted.
	Status string `json:"status"`
	// Src and Dst are the item's paths.
	Src string `json:"src,omitempty"`
	Dst string `json:"dst,omitempty"`
	// Bytes is the input's size.
	Bytes int64 `json:"bytes"`
	// Millis is how long the item took, in milliseconds.
	Millis int64 `json:"ms"`
	// Time is when the item finished (UTC).
	Time time.Time `json:"time"`
	// Kind classifies a failure (see Options.Kind).
	Kind string `json:"kind,omitempty"`
	// Error is a failure's message, as the client redacted it.
	Error string `json:"error,omitempty"`
	// Result is what Options.Summarize made of a successful result.
	Result json.RawMessage `json:"result,omitempty"`
	// Job, in a StatusStarted record (or a StatusFailed one whose job had
	// started), is the client's reference to the job the service
	// accepted, what Options.Collect resumes from.
	Job json.RawMessage `json:"job,omitempty"`
	// IDRaw, SrcRaw and DstRaw are written only for an ID, Src or Dst
	// that is not valid UTF-8, which a JSON string cannot hold (ID then
	// reads with U+FFFD for each invalid byte): its exact bytes, base64
	// in the file. Reading a manifest puts them back into ID, Src and
	// Dst, so that a rerun matches the item (see package doc).
	IDRaw  []byte `json:"idRaw,omitempty"`
	SrcRaw []byte `json:"srcRaw,omitempty"`
	DstRaw []byte `json:"dstRaw,omitempty"`
}

// restoreNames puts the exact names of IDRaw, SrcRaw and DstRaw, when
// present, into ID, Src and Dst.
func (rec *Record) restoreNames() {
	for _, f := range []struct {
		raw *[]byte
		s   *string
	}{{&rec.IDRaw, &rec.ID}, {&rec.SrcRaw, &rec.Src}, {&rec.DstRaw, &rec.Dst}} {
		if *f.raw != nil {
			*f.s = string(*f.raw)
			*f.raw = nil
		}
	}
}

// encodeRecord returns rec as one manifest line (without its newline).
// Every string goes through redact first (nil: none), Result and Job too
// (as text: one that is no JSON once redacted is kept as a JSON string
// of that text); a name that is not valid UTF-8 gets its Raw
// field. A line that still holds a secret (a spelling across fields, or
// in the base64 of a raw name) loses its Raw fields and Result, and is
// written redacted whole: such an item is done again by a rerun, but no
// secret reaches the file.
func encodeRecord(rec Record, redact func(string) string) ([]byte, error) {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	rec.ID, rec.Src, rec.Dst = redact(rec.ID), redact(rec.Src), redact(rec.Dst)
	rec.Kind, rec.Error = redact(rec.Kind), redact(rec.Error)
	for _, raw := range []*json.RawMessage{&rec.Result, &rec.Job} {
		if len(*raw) == 0 {
			continue
		}
		if red := redact(string(*raw)); red != string(*raw) {
			*raw = json.RawMessage(red)
			if !json.Valid(*raw) {
				b, err := json.Marshal(red)
				if err != nil {
					return nil, err
				}
				*raw = b
			}
		}
	}
	rec.IDRaw, rec.SrcRaw, rec.DstRaw = rawName(rec.ID), rawName(rec.Src), rawName(rec.Dst)
	line, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	if redact(string(line)) == string(line) {
		return line, nil
	}
	rec.IDRaw, rec.SrcRaw, rec.DstRaw, rec.Result, rec.Job = nil, nil, nil, nil, nil
	if line, err = json.Marshal(rec); err != nil {
		return nil, err
	}
	return []byte(redact(string(line))), nil
}

// rawName returns the bytes of s when s is not valid UTF-8, else nil.
func rawName(s string) []byte {
	if utf8.ValidString(s) {
		return nil
	}
	return []byte(s)
}

// maxLine bounds one manifest line when reading (a record quotes at most a
// few KiB of error message and result).
const maxLine = 1 << 20

// openManifest opens (creating it and its directory if needed) the manifest at path and
// returns the latest record of every item in it, positioned for appending,
// and whether this run holds the manifest's lock (false where the platform
// or file system has no lock to take).
// The manifest must be a regular file: a symbolic link there is not
// followed, and a named pipe or device is refused without waiting on it.
// Unparsable lines are ignored, but a file whose first line is no JSON
// object is refused (see readRecords); a last line without its newline (a
// write torn by a crash) is cut off when it starts as a record does, and
// the file refused otherwise.
func openManifest(path string) (*os.File, map[string]Record, bool, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, false, &pfc.ManifestError{Path: path, Op: "open", Err: unwrapPathError(err)}
	}
	// O_APPEND: every write lands at the end, in one piece, even if a
	// second process were (against the rules) appending too.
	f, err := fileio.OpenFileNoFollow("manifest", path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		var fe *fileio.FileError
		if errors.As(err, &fe) {
			err = fe.Err
		}
		return nil, nil, false, &pfc.ManifestError{Path: path, Op: "open", Err: err}
	}
	// The lock makes "one run at a time per manifest" sure, and is what
	// proves a run of this manifest dead to the cleanup of temporary files.
	locked := true
	switch err := fileio.TryLock(f); {
	case errors.Is(err, fileio.ErrLocked):
		f.Close()
		return nil, nil, false, &pfc.ManifestError{Path: path, Op: "lock", Err: pfc.ErrManifestInUse}
	case errors.Is(err, errors.ErrUnsupported):
		locked = false
	case err != nil:
		f.Close()
		return nil, nil, false, &pfc.ManifestError{Path: path, Op: "lock", Err: err}
	}
	prior, good, err := readRecords(f)
	if err != nil {
		f.Close()
		return nil, nil, false, &pfc.ManifestError{Path: path, Op: "read", Err: err}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, false, &pfc.ManifestError{Path: path, Op: "read", Err: unwrapPathError(err)}
	}
	if st.Size() != good {
		// Only a record torn by a crash is cut, which starts with "{":
		// anything else is no manifest of ours (a hard link to a user's
		// file planted at the path, a path naming another file), whose
		// last line must not be cut.
		var first [1]byte
		if _, err := f.ReadAt(first[:], good); err != nil || first[0] != '{' {
			f.Close()
			return nil, nil, false, &pfc.ManifestError{Path: path, Op: "read", Err: pfc.ErrNotManifest}
		}
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, nil, false, &pfc.ManifestError{Path: path, Op: "truncate", Err: unwrapPathError(err)}
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, nil, false, &pfc.ManifestError{Path: path, Op: "truncate", Err: unwrapPathError(err)}
		}
	}
	return f, prior, locked, nil
}

// readRecords reads r from its start and returns the latest record per
// ID, and the offset just after the last newline (where appending goes).
// A first line (blank lines aside) that is no JSON object is no record a
// run wrote: the input is no manifest (pfc.ErrNotManifest), a user's file
// that must not be appended to.
func readRecords(r io.Reader) (map[string]Record, int64, error) {
	prior := map[string]Record{}
	br := bufio.NewReaderSize(r, 64<<10)
	var good int64
	first := true
	for {
		line, n, err := readLine(br)
		if len(line) > 0 && line[len(line)-1] == '\n' {
			good += n
			trimmed := bytes.TrimSpace(line)
			if first && len(trimmed) > 0 {
				first = false
				// A line cut at maxLine, or redacted whole (see
				// encodeRecord), is judged by its start.
				if trimmed[0] != '{' || (n <= maxLine && !json.Valid(trimmed) && !bytes.HasPrefix(trimmed, []byte(`{"id":`))) {
					return nil, 0, pfc.ErrNotManifest
				}
			}
			var rec Record
			if json.Unmarshal(trimmed, &rec) == nil {
				rec.restoreNames()
				if rec.ID != "" && (rec.Status == StatusDone || rec.Status == StatusFailed || rec.Status == StatusStarted) {
					prior[rec.ID] = rec
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return prior, good, nil
		}
		if err != nil {
			return nil, 0, err
		}
	}
}

// readLine returns the next line with its newline (without one at the end
// of the input) and the number of bytes it took from br. A line longer
// than maxLine is returned cut, which makes it unparsable, so it is
// ignored; n still counts it whole, so that the offset after it is right.
func readLine(br *bufio.Reader) (line []byte, n int64, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if len(line) < maxLine {
			line = append(line, chunk...)
		} else if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			line = append(line[:maxLine], '\n')
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, n, err
	}
}

// manifestWriter appends records with group commit: a record waits for
// the fsync of the write that holds it.
type manifestWriter struct {
	path   string
	f      *os.File
	redact func(string) string // applied to every record (nil: none)
	reqs   chan writeReq
	done   chan struct{}
}

type writeReq struct {
	line []byte
	ack  chan error
}

// maxBatch bounds the records of one write.
const maxBatch = 256

func newManifestWriter(path string, f *os.File, redact func(string) string) *manifestWriter {
	w := &manifestWriter{path: path, f: f, redact: redact, reqs: make(chan writeReq), done: make(chan struct{})}
	go w.loop()
	return w
}

func (w *manifestWriter) loop() {
	defer close(w.done)
	var sticky error
	var buf []byte
	batch := make([]writeReq, 0, maxBatch)
	for first := range w.reqs {
		batch = append(batch[:0], first)
	drain:
		for len(batch) < maxBatch {
			select {
			case r, ok := <-w.reqs:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		err := sticky
		if err == nil {
			buf = buf[:0]
			for _, r := range batch {
				buf = append(buf, r.line...)
			}
			if _, err = w.f.Write(buf); err == nil {
				err = w.f.Sync()
			}
			if err != nil {
				// The file may now end with part of a line: nothing more
				// is appended (a rerun cuts the torn tail).
				err = &pfc.ManifestError{Path: w.path, Op: "write", Err: unwrapPathError(err)}
				sticky = err
			}
		}
		for _, r := range batch {
			r.ack <- err
		}
	}
}

// append writes rec (see encodeRecord) and returns once it is durable.
func (w *manifestWriter) append(rec Record) error {
	line, err := encodeRecord(rec, w.redact)
	if err != nil {
		return &pfc.ManifestError{Path: w.path, Op: "write", Err: err}
	}
	ack := make(chan error, 1)
	w.reqs <- writeReq{line: append(line, '\n'), ack: ack}
	return <-ack
}

// close stops the writer (no append may be in progress) and closes the
// file.
func (w *manifestWriter) close() error {
	close(w.reqs)
	<-w.done
	if err := w.f.Close(); err != nil {
		return &pfc.ManifestError{Path: w.path, Op: "write", Err: unwrapPathError(err)}
	}
	return nil
}

// unwrapPathError drops *os.PathError's "op path:" prefix, which the
// errors of this package already say.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// peekManifest returns the latest record of every item in the manifest at
// path without creating, locking or changing it (a dry run): no file
// there reads as an empty manifest.
func peekManifest(path string) (map[string]Record, error) {
	f, err := fileio.OpenFileNoFollow("manifest", path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Record{}, nil
	}
	if err != nil {
		var fe *fileio.FileError
		if errors.As(err, &fe) {
			err = fe.Err
		}
		return nil, &pfc.ManifestError{Path: path, Op: "open", Err: err}
	}
	defer f.Close()
	prior, _, err := readRecords(f)
	if err != nil {
		return nil, &pfc.ManifestError{Path: path, Op: "read", Err: err}
	}
	return prior, nil
}
