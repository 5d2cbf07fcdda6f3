package bgcontainer

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

func TestDecodeErrorsAreRedacted(t *testing.T) {
	t.Parallel()
	redact := func(s string) string { return strings.ReplaceAll(s, "sekrit", "REDACTED") }
	_, err := decodeCheckResult("id", strings.NewReader(`{"status":"completed","processing_time":"sekrit"}`), redact)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "sekrit")
	assert.Contains(t, err.Error(), "REDACTED")
}

func TestDecodeJob(t *testing.T) {
	t.Parallel()
	const id = "123e4567-e89b-42d3-a456-426614174000"
	tests := []struct {
		name      string
		body      string
		want      *Job
		wantField string
	}{
		{name: "seed shape", body: `{"status":"processing","process_id":"` + id + `","mode":"portrait","preprocessing_enabled":"true","message":"Image processing started"}`,
			want: &Job{ProcessID: id, Status: StatusProcessing, Mode: ModePortrait, PreprocessingEnabled: true,
				PreprocessingEnabledRaw: "true", Message: "Image processing started"}},
		{name: "python bool string", body: `{"process_id":"` + id + `","preprocessing_enabled":"False"}`,
			want: &Job{ProcessID: id, PreprocessingEnabledRaw: "False"}},
		{name: "json bool", body: `{"process_id":"` + id + `","preprocessing_enabled":true}`,
			want: &Job{ProcessID: id, PreprocessingEnabled: true, PreprocessingEnabledRaw: "true"}},
		{name: "odd string kept raw", body: `{"process_id":"` + id + `","preprocessing_enabled":"maybe"}`,
			want: &Job{ProcessID: id, PreprocessingEnabledRaw: "maybe"}},
		{name: "flag wrong type", body: `{"process_id":"` + id + `","preprocessing_enabled":1}`, wantField: "preprocessing_enabled"},
		{name: "id wrong type", body: `{"process_id":7}`, wantField: "process_id"},
		{name: "id missing", body: `{"status":"processing"}`, wantField: "process_id"},
		{name: "id not a UUID", body: `{"process_id":"job-1"}`, wantField: "process_id"},
		{name: "id walking up", body: `{"process_id":".."}`, wantField: "process_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeJob(strings.NewReader(tt.body), nil)
			if tt.want == nil {
				var re *pfc.ResponseError
				require.ErrorAs(t, err, &re)
				assert.Equal(t, tt.wantField, re.Field)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeCheckResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		body      string
		want      *CheckResult
		wantField string
	}{
		{name: "completed", body: `{"status":"completed","original_name":"a.jpg","mode":"general","processing_time":1.5}`,
			want: &CheckResult{ProcessID: "p", Status: StatusCompleted, OriginalName: "a.jpg", Mode: ModeGeneral,
				ProcessingTime: 1500 * time.Millisecond, HasProcessingTime: true}},
		{name: "numeric string time", body: `{"status":"completed","processing_time":"2"}`,
			want: &CheckResult{ProcessID: "p", Status: StatusCompleted, ProcessingTime: 2 * time.Second, HasProcessingTime: true}},
		{name: "failed", body: `{"status":"failed","original_name":"a.jpg","mode":"portrait","error":"bad image"}`,
			want: &CheckResult{ProcessID: "p", Status: StatusFailed, OriginalName: "a.jpg", Mode: ModePortrait, Error: "bad image"}},
		{name: "queued", body: `{"status":"queued","original_name":"a.jpg","mode":"portrait","processing_time":null}`,
			want: &CheckResult{ProcessID: "p", Status: StatusQueued, OriginalName: "a.jpg", Mode: ModePortrait}},
		{name: "time wrong type", body: `{"status":"completed","processing_time":true}`, wantField: "processing_time"},
		{name: "time negative", body: `{"status":"completed","processing_time":-1}`, wantField: "processing_time"},
		{name: "time huge", body: `{"status":"completed","processing_time":1e300}`, wantField: "processing_time"},
		{name: "status missing", body: `{"mode":"general"}`, wantField: "status"},
		{name: "status wrong type", body: `{"status":["done"]}`, wantField: "status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeCheckResult("p", strings.NewReader(tt.body), nil)
			if tt.want == nil {
				var re *pfc.ResponseError
				require.ErrorAs(t, err, &re)
				assert.Equal(t, tt.wantField, re.Field)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeDeleteResult(t *testing.T) {
	t.Parallel()
	got, err := decodeDeleteResult(strings.NewReader(`{"status":"deleted","process_id":"p","files_deleted":2,"previous_status":"completed"}`), nil)
	require.NoError(t, err)
	assert.Equal(t, &DeleteResult{Status: "deleted", ProcessID: "p", FilesDeleted: 2, PreviousStatus: StatusCompleted}, got)
	for _, body := range []string{`{"files_deleted":1.5}`, `{"files_deleted":"two"}`, `{"files_deleted":[1]}`} {
		_, err := decodeDeleteResult(strings.NewReader(body), nil)
		var re *pfc.ResponseError
		require.ErrorAs(t, err, &re, body)
		assert.Equal(t, "files_deleted", re.Field)
	}
}

func TestDecodeBodyLimit(t *testing.T) {
	t.Parallel()
	body := `{"status":"` + strings.Repeat("a", maxJSONBody) + `"}`
	_, err := decodeDeleteResult(strings.NewReader(body), nil)
	require.ErrorIs(t, err, pfc.ErrInvalidResponse)
	_, err = decodeDeleteResult(errReader{}, nil)
	require.Error(t, err)
	assert.NotErrorIs(t, err, pfc.ErrInvalidResponse)
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestJobStatusTerminal(t *testing.T) {
	t.Parallel()
	for s, want := range map[JobStatus]bool{StatusQueued: false, StatusProcessing: false, StatusCompleted: true,
		StatusFailed: true, "Completed": true, "exploded": false, "": false} {
		assert.Equal(t, want, s.Terminal(), s)
	}
}
