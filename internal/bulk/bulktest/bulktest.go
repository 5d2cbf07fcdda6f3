// Package bulktest holds what the tests of bulk runs share: MemSink, a
// sink in memory; WriteStarted and WriteDirStarted, a manifest of jobs in
// flight as a run that stopped leaves it; and NoRequests, the transport
// of a dry run, whose outcome CheckDryRun checks.
// It is imported by test files only.
package bulktest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/pfc"
)

// ErrRefused is the error of a Put of the name MemSink.Fail names.
var ErrRefused = errors.New("publish refused by the test")

// MemSink is a pfc.Sink in memory: Put publishes only a complete write,
// and none once its context is done. The zero value is empty.
type MemSink struct {
	mu   sync.Mutex
	objs map[string][]byte
	puts int
	fail string
}

// Put publishes what write writes as name, unless write fails, name is
// the one SetFail named (ErrRefused, after write) or ctx is done.
func (s *MemSink) Put(ctx context.Context, name string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.puts++
	if name == s.fail {
		return ErrRefused
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.objs == nil {
		s.objs = map[string][]byte{}
	}
	s.objs[name] = buf.Bytes()
	return nil
}

// Exists reports whether name was published.
func (s *MemSink) Exists(_ context.Context, name string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.objs[name]
	return ok, nil
}

// SetFail makes the Puts of name fail (with ErrRefused) after their
// write; "" fails none.
func (s *MemSink) SetFail(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = name
}

// Objects returns a copy of what was published, by name.
func (s *MemSink) Objects() map[string][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.objs)
}

// Puts counts the calls of Put whose write succeeded, published or not.
func (s *MemSink) Puts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.puts
}

// Started is a "started" manifest record: an item whose job the service
// accepted.
type Started struct {
	ID, Src, Dst string
	// Time is when the job was recorded (zero: no time in the record).
	Time time.Time
	// Job is the client's reference to the job, written as JSON.
	Job any
}

// WriteStarted writes the manifest at path with recs, one record a line,
// as a run that stopped with those jobs in flight leaves it.
func WriteStarted(t testing.TB, path string, recs ...Started) {
	t.Helper()
	var lines []string
	for _, r := range recs {
		job, err := json.Marshal(r.Job)
		if err != nil {
			t.Fatal(err)
		}
		rec := map[string]any{"id": r.ID, "status": "started", "src": r.Src, "dst": r.Dst, "job": json.RawMessage(job)}
		if !r.Time.IsZero() {
			rec["time"] = r.Time
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Manifest is the path of the manifest of a Dir run into out, when the
// run names none.
func Manifest(out string) string { return filepath.Join(out, ".pfc-bulk.jsonl") }

// WriteDirStarted writes Manifest(out) as a Dir run from in to out leaves
// it that stopped with jobs[i] in flight for the item rels[i]: its output
// out/dst(rels[i]) (dst nil: rels[i]), recorded at at (zero: no time).
func WriteDirStarted(t testing.TB, in, out string, rels []string, dst func(string) string, at time.Time, jobs ...any) {
	t.Helper()
	if len(jobs) > len(rels) {
		t.Fatalf("%d jobs for %d items", len(jobs), len(rels))
	}
	recs := make([]Started, len(jobs))
	for i, job := range jobs {
		name := rels[i]
		if dst != nil {
			name = dst(name)
		}
		recs[i] = Started{ID: rels[i], Src: filepath.Join(in, rels[i]), Dst: filepath.Join(out, name), Time: at, Job: job}
	}
	WriteStarted(t, Manifest(out), recs...)
}

// CheckDryRun checks the outcome of a dry run (its report and error) of
// a Dir run into out over n files: every file to process, and no
// manifest written.
func CheckDryRun[R any](t testing.TB, out string, n int, rep *pfc.BulkReport[R], err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if rep.Plan == nil {
		t.Fatal("a dry run's report has no plan")
	}
	if len(rep.Plan.Process) != n {
		t.Errorf("the plan processes %d files, want %d", len(rep.Plan.Process), n)
	}
	if _, err := os.Stat(Manifest(out)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dry run writes no manifest: %v", err)
	}
}

// NoRequests is an http.RoundTripper that fails its test on any request:
// the transport of a dry run, which must send none.
type NoRequests struct{ T testing.TB }

// RoundTrip fails the test and the request.
func (f NoRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	f.T.Errorf("a request during a dry run: %s %s", r.Method, r.URL.Path)
	return nil, errors.New("no requests in a dry run")
}
