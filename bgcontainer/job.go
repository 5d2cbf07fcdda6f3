package bgcontainer

import (
	"io"
	"math"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/serverid"
)

// JobStatus is the state of a job.
type JobStatus string

// The job states the container reports: SubmitImage answers
// StatusProcessing; CheckImage any of the four.
const (
	StatusQueued     JobStatus = "queued"
	StatusProcessing JobStatus = "processing"
	StatusCompleted  JobStatus = "completed"
	StatusFailed     JobStatus = "failed"
)

// Terminal reports whether no transition follows: completed and failed
// are terminal; queued, processing and states this SDK does not know are
// not, so polling goes on until its deadline.
func (s JobStatus) Terminal() bool {
	switch JobStatus(strings.ToLower(string(s))) {
	case StatusCompleted, StatusFailed:
		return true
	}
	return false
}

// Mode is the segmentation mode of a job.
type Mode string

// The modes the container accepts.
const (
	ModePortrait Mode = "portrait"
	ModeGeneral  Mode = "general"
)

// Valid reports whether m is ModePortrait or ModeGeneral.
func (m Mode) Valid() bool { return m == ModePortrait || m == ModeGeneral }

// Job is the answer of SubmitImage.
type Job struct {
	// ProcessID identifies the job in every later call (a UUID).
	ProcessID string
	// Status is "processing" on submission.
	Status JobStatus
	// Mode is the job's mode as the container took it.
	Mode Mode
	// PreprocessingEnabled is preprocessing_enabled read as a boolean (the
	// container sends the string "true" or "false").
	PreprocessingEnabled bool
	// PreprocessingEnabledRaw is preprocessing_enabled as sent.
	PreprocessingEnabledRaw string
	// Message is the container's message ("Image processing started").
	Message string
}

func decodeJob(r io.Reader, redact func(string) string) (*Job, error) {
	o, err := readObject(epSubmitImage, r, redact)
	if err != nil {
		return nil, err
	}
	var j Job
	var status, mode string
	for _, f := range []struct {
		name string
		dst  *string
	}{{"process_id", &j.ProcessID}, {"status", &status}, {"mode", &mode}, {"message", &j.Message}} {
		if *f.dst, err = o.str(f.name); err != nil {
			return nil, err
		}
	}
	j.Status, j.Mode = JobStatus(status), Mode(mode)
	if j.PreprocessingEnabled, j.PreprocessingEnabledRaw, err = o.boolString("preprocessing_enabled"); err != nil {
		return nil, err
	}
	switch {
	case j.ProcessID == "":
		return nil, o.fail("process_id", "missing")
	case serverid.HoldsSecret(j.ProcessID, redact):
		// A UUID-shaped licence key passes the shape check: echoed as the
		// id, it would be returned, quoted in errors (Error.ProcessID)
		// and written into a bulk manifest.
		return nil, o.fail("process_id", "holds the client's licence key (not quoted); refused")
	case !isUUID(j.ProcessID):
		// Every later call would refuse it as a *pfc.ValidationError, as if the
		// caller had passed a bad id; a hostile one ("..") would also
		// address another path once joined to /CheckImage/.
		return nil, o.fail("process_id", "not a UUID: %q", o.quote(j.ProcessID, apierr.MaxQuotedID))
	}
	return &j, nil
}

// CheckResult is the answer of CheckImage.
type CheckResult struct {
	// ProcessID is the job asked about (from the request).
	ProcessID string
	// Status is the job's state.
	Status JobStatus
	// OriginalName is the submitted file's name.
	OriginalName string
	// Mode is the job's mode.
	Mode Mode
	// ProcessingTime is processing_time (sent in seconds); present only
	// when the job completed (see HasProcessingTime).
	ProcessingTime time.Duration
	// HasProcessingTime reports whether processing_time was sent.
	HasProcessingTime bool
	// Error is the reason of a failed job.
	Error string
}

func decodeCheckResult(processID string, r io.Reader, redact func(string) string) (*CheckResult, error) {
	o, err := readObject(epCheckImage, r, redact)
	if err != nil {
		return nil, err
	}
	c := CheckResult{ProcessID: processID}
	var status, mode string
	for _, f := range []struct {
		name string
		dst  *string
	}{{"status", &status}, {"original_name", &c.OriginalName}, {"mode", &mode}, {"error", &c.Error}} {
		if *f.dst, err = o.str(f.name); err != nil {
			return nil, err
		}
	}
	c.Status, c.Mode = JobStatus(status), Mode(mode)
	if c.Status == "" {
		return nil, o.fail("status", "missing")
	}
	secs, ok, err := o.number("processing_time")
	if err != nil {
		return nil, err
	}
	if ok {
		if secs < 0 || secs > math.MaxInt64/float64(time.Second) {
			return nil, o.fail("processing_time", "out of range: %v", secs)
		}
		c.ProcessingTime, c.HasProcessingTime = time.Duration(secs*float64(time.Second)), true
	}
	return &c, nil
}

// DeleteResult is the answer of RemoveImage.
type DeleteResult struct {
	// Status is "deleted".
	Status string
	// ProcessID is the removed job.
	ProcessID string
	// FilesDeleted is how many files the container deleted.
	FilesDeleted int
	// PreviousStatus is the state the job had.
	PreviousStatus JobStatus
	// AnswerLost is true when the container's answer was lost and the
	// transport's retry found the job already gone (404 on a later
	// attempt): the job was removed, but FilesDeleted and PreviousStatus
	// are unknown (zero).
	AnswerLost bool
}

func decodeDeleteResult(r io.Reader, redact func(string) string) (*DeleteResult, error) {
	o, err := readObject(epRemoveImage, r, redact)
	if err != nil {
		return nil, err
	}
	var d DeleteResult
	var prev string
	for _, f := range []struct {
		name string
		dst  *string
	}{{"status", &d.Status}, {"process_id", &d.ProcessID}, {"previous_status", &prev}} {
		if *f.dst, err = o.str(f.name); err != nil {
			return nil, err
		}
	}
	d.PreviousStatus = JobStatus(prev)
	if d.FilesDeleted, err = o.integer("files_deleted"); err != nil {
		return nil, err
	}
	return &d, nil
}
