// Package observetest holds what the clients' observer tests share:
// Recorder, a pfc.Observer that writes each event as a line, and Steady,
// which drops from those lines what depends on a mock's pace. It is
// imported by test files only.
package observetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/pfcsdk/pfc-go/pfc"
)

// Traceparent is the W3C trace context Recorder adds to every attempt
// that has a header for one.
const Traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

// Recorder is a pfc.Observer that writes each event as a line:
//
//	start <kind> <name>
//	end <kind> <name> err=<bool>
//	attempt <method> <route, quoted> <status> #<number>
//	job <api> <status><-<previous> submitted=<bool> terminal=<bool> failed=<bool>
//
// The zero value is ready. It is safe for concurrent use.
type Recorder struct {
	pfc.NopObserver
	mu      sync.Mutex
	lines   []string
	headers []bool
	timed   []bool
}

func (r *Recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

// StartOperation writes "start <kind> <name>".
func (r *Recorder) StartOperation(ctx context.Context, op *pfc.Operation) context.Context {
	r.add("start %s %s", op.Kind, op.Name)
	return ctx
}

// EndOperation writes "end <kind> <name> err=<bool>".
func (r *Recorder) EndOperation(_ context.Context, op *pfc.Operation) {
	r.add("end %s %s err=%v", op.Kind, op.Name, op.Err != nil)
}

// StartAttempt notes whether the attempt has a header to propagate a
// trace context in (Headers), and adds Traceparent to it.
func (r *Recorder) StartAttempt(ctx context.Context, a *pfc.Attempt) context.Context {
	r.mu.Lock()
	r.headers = append(r.headers, a.Header != nil)
	r.mu.Unlock()
	if a.Header != nil {
		a.Header.Set("Traceparent", Traceparent)
	}
	return ctx
}

// EndAttempt writes "attempt <method> <route> <status> #<number>".
func (r *Recorder) EndAttempt(_ context.Context, a *pfc.Attempt) {
	r.add("attempt %s %q %d #%d", a.Method, a.Route, a.Status, a.Number)
}

// JobUpdate writes "job <api> <status><-<previous> submitted=<bool>
// terminal=<bool> failed=<bool>"; a terminal one's processing time is
// noted (Timed).
func (r *Recorder) JobUpdate(_ context.Context, j *pfc.JobUpdate) {
	r.add("job %s %s<-%s submitted=%v terminal=%v failed=%v", j.API, j.Status, j.Previous, j.Submitted, j.Terminal, j.Failed)
	if j.Terminal {
		r.mu.Lock()
		r.timed = append(r.timed, j.ProcessingTime > 0)
		r.mu.Unlock()
	}
}

// Lines returns the lines written so far.
func (r *Recorder) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lines)
}

// Headers returns, per attempt started so far, whether it had a header
// to propagate a trace context in.
func (r *Recorder) Headers() []bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.headers)
}

// Timed returns, per terminal job update so far, whether it had a
// processing time.
func (r *Recorder) Timed() []bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.timed)
}

// Steady returns lines without what depends on a mock's pace: the job
// updates neither submitted nor terminal (queued, processing), the
// previous status of a terminal one, and the repeats in a row of the
// line poll (a status attempt's).
func Steady(lines []string, poll string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "job ") {
			if strings.Contains(l, " submitted=false terminal=false ") {
				continue
			}
			if i, j := strings.Index(l, "<-"), strings.Index(l, " submitted="); strings.Contains(l, " terminal=true ") && i >= 0 && i < j {
				l = l[:i+2] + l[j:]
			}
		}
		if l == poll && len(out) > 0 && out[len(out)-1] == l {
			continue
		}
		out = append(out, l)
	}
	return out
}
