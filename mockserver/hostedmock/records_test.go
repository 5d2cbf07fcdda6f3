package hostedmock_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedJob is a COMPLETED job record with detectionData, written out by
// hand from seed 000's "Correction job", "usage object" and "detectionData
// object" tables (not produced by any code of this module).
func seedJob(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/seed000_job.json")
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// shape reduces a decoded JSON value to its structure: objects keep their
// keys with the shapes of their values, arrays the shape of their first
// element ("[]" when empty), scalars their JSON type.
func shape(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = shape(e)
		}
		return out
	case []any:
		if len(v) == 0 {
			return "[]"
		}
		return []any{shape(v[0])}
	case nil:
		return "null"
	default:
		return fmt.Sprintf("%T", v) // string, float64, bool
	}
}

var millisUTC = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// TestJobRecordMatchesTheSeed decodes the mock's raw records (not through
// hosted.Job, which shares the mock's assumptions) and compares their
// wire names and JSON types with the record written out from the seed.
func TestJobRecordMatchesTheSeed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	seed := seedJob(t)

	key := f.upload(t, "", jpegBytes(t, 64, 48))
	id := f.start(t, "fileKey="+key+"&includeDetectionData=true&removeGlares=true")
	f.WaitIdle()
	_, raw := f.status(t, id)
	var got map[string]any
	require.NoError(t, json.Unmarshal(raw, &got))

	// Arrays whose first element the seed leaves open compare by kind.
	dd := got["detectionData"].(map[string]any)
	require.NotEmpty(t, dd["faces"], "the test processor reports a face")
	dd["warnings"] = []any{}
	assert.Equal(t, shape(seed), shape(got), "raw record: %s", raw)
	for _, k := range []string{"createdAt", "updatedAt"} {
		assert.Regexp(t, millisUTC, got[k], k)
	}

	// Records before completion and of failed jobs hold a subset of the
	// seed's fields, with the seed's types.
	gate := make(chan struct{})
	f.proc.mu.Lock()
	f.proc.gate = gate
	f.proc.mu.Unlock()
	pendingID := f.start(t, "fileKey="+key+"&cache=false")
	_, raw = f.status(t, pendingID)
	got = nil
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.ElementsMatch(t, []string{"_id", "status", "statusText", "code", "createdAt", "updatedAt"}, slices.Collect(maps.Keys(got)), string(raw))
	close(gate)
	f.WaitIdle()

	rejectedID := f.start(t, "fileKey="+f.upload(t, "", []byte("not an image")))
	f.WaitIdle()
	for _, id := range []string{pendingID, rejectedID} {
		resp, raw := f.api(t, http.MethodGet, "/status/"+id+"?noRedirect=true")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		got = nil
		require.NoError(t, json.Unmarshal(raw, &got))
		for k, v := range got {
			require.Contains(t, seed, k, "wire name %q is not in the seed's record", k)
			if k != "detectionData" {
				assert.Equal(t, shape(seed[k]), shape(v), k)
			}
		}
	}
}
