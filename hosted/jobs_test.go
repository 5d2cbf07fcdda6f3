package hosted

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

func TestStartJobQuery(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	var gotQuery string
	mt.RegisterResponder("GET", `=~^https://api\.example\.test/v2/pfc\?`, func(r *http.Request) (*http.Response, error) {
		assert.Equal(t, testKey, r.Header.Get("X-API-KEY"))
		gotQuery = r.URL.RawQuery
		return httpmock.NewJsonResponse(200, map[string]string{"statusEndpoint": "https://api.example.test/v2/status/job-42"})
	})
	opts := NewCorrection().WithFileKey("fk 1").WithPreset(PresetSchoolAndSports).WithLong(1200).WithCache(false)
	ref, err := c.StartJob(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, "job-42", ref.ID)
	want, err := opts.Query()
	require.NoError(t, err)
	assert.Equal(t, want, gotQuery)
	assert.Contains(t, gotQuery, "preset=School%20and%20Sports")
	assert.Contains(t, gotQuery, "cache=false")
	assert.Contains(t, gotQuery, "fileKey=fk%201")
}

// A 5xx of GET /pfc is retried while the cache would make a second job
// reuse the first one's result; with cache=false it would be a second
// billed job, so only a 429 (refused unread) is retried.
func TestStartJobRetriesFollowTheCache(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	tests := []struct {
		name   string
		cache  *bool
		status int
		sent   int
	}{
		{"default cache, 500", nil, 500, 3},
		{"cache=true, 503", &yes, 503, 3},
		{"cache=false, 500", &no, 500, 1},
		{"cache=false, 429", &no, 429, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, mt := mockClient(t)
			expectAPI(t, mt, "GET", `=~/v2/pfc`, tt.status, map[string]any{"message": "busy"})
			opts := NewCorrection().WithFileKey("k")
			opts.Cache = tt.cache
			_, err := c.StartJob(context.Background(), opts)
			var apiErr *pfc.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tt.status, apiErr.StatusCode)
			assert.Equal(t, tt.sent, mt.GetTotalCallCount(), "requests sent")
		})
	}
}

func TestStartJobValidatesLocally(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	opts := &CorrectionOptions{FileKey: "k", Width: 5, OutputQuality: 101, WebhookURL: "http://plain.test/hook"}
	_, err := c.StartJob(context.Background(), opts)
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"width", "outputQuality", "webhookUrl"}, ve.Fields())
	assert.Zero(t, mt.GetTotalCallCount(), "nothing is sent for invalid options")

	_, err = c.StartJob(context.Background(), nil)
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
}

func TestStartJobBadEndpoint(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", `=~/v2/pfc`, 200, map[string]string{"statusEndpoint": ""})
	_, err := c.StartJob(context.Background(), NewCorrection().WithFileKey("k"))
	assert.ErrorContains(t, err, "statusEndpoint")
}

func TestGetJobAlwaysNoRedirect(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	created := time.Date(2026, 11, 22, 10, 4, 5, 123e6, time.UTC)
	expectAPI(t, mt, "GET", "https://api.example.test/v2/status/j%2F1?noRedirect=true", 200, map[string]any{
		"_id": "j/1", "status": "PROCESSING", "statusText": "", "code": 0,
		"createdAt": "2026-11-22T10:04:05.123Z", "updatedAt": "2026-11-22T10:04:06.000Z",
	})
	job, err := c.GetJob(context.Background(), "j/1")
	require.NoError(t, err)
	assert.Equal(t, StatusProcessing, job.Status)
	assert.True(t, job.CreatedAt.Equal(created))
	assert.False(t, job.Status.Terminal())
}

func TestGetJob302IsCompletionAndNotFollowed(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	mt.RegisterResponder("GET", "https://api.example.test/v2/status/j1?noRedirect=true", func(r *http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(302, "")
		resp.Header.Set("Location", "https://files.other.test/out/j1.jpg")
		return resp, nil
	})
	mt.RegisterResponder("GET", `=~^https://files\.other\.test/`, func(r *http.Request) (*http.Response, error) {
		t.Errorf("the redirect must not be followed (key %q)", r.Header.Get("X-API-KEY"))
		return httpmock.NewStringResponse(200, ""), nil
	})
	job, err := c.GetJob(context.Background(), "j1")
	require.NoError(t, err)
	assert.Equal(t, &Job{ID: "j1", Status: StatusCompleted, CorrectedFile: "https://files.other.test/out/j1.jpg"}, job)
}

// Only 302 (and 303) mark completion: another redirect, such as a gateway
// moving the API, is an *pfc.APIError with its status, never a finished job.
func TestGetJobOtherRedirectIsAnError(t *testing.T) {
	t.Parallel()
	for _, status := range []int{301, 307, 308} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			c, mt := mockClient(t)
			mt.RegisterResponder("GET", "https://api.example.test/v2/status/j1?noRedirect=true", func(r *http.Request) (*http.Response, error) {
				resp := httpmock.NewStringResponse(status, "")
				resp.Header.Set("Location", "https://api.example.test/v3/status/j1")
				return resp, nil
			})
			job, err := c.GetJob(context.Background(), "j1")
			assert.Nil(t, job)
			var apiErr *pfc.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, status, apiErr.StatusCode)
			assert.NotContains(t, err.Error(), testKey)
			assert.Equal(t, 1, mt.GetTotalCallCount())
		})
	}
}

func TestGetJobNotFound(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", `=~/v2/status/nope`, 404, map[string]any{"message": "no such job", "code": "not_found"})
	_, err := c.GetJob(context.Background(), "nope")
	assert.ErrorIs(t, err, pfc.ErrNotFound)
	var apiErr *pfc.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "no such job", apiErr.Message)
	assert.NotContains(t, err.Error(), testKey)

	_, err = c.GetJob(context.Background(), "")
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
}

func TestDownloadSendsNoKey(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	expectExternal(t, mt, "GET", "https://files.test/j1.jpg", func(r *http.Request) (*http.Response, error) {
		return httpmock.NewStringResponse(200, "corrected-bytes"), nil
	})
	var buf bytes.Buffer
	n, err := c.Download(context.Background(), &Job{ID: "j1", Status: StatusCompleted, CorrectedFile: "https://files.test/j1.jpg"}, &buf)
	require.NoError(t, err)
	assert.Equal(t, int64(15), n)
	assert.Equal(t, "corrected-bytes", buf.String())

	_, err = c.Download(context.Background(), &Job{ID: "j2", Status: StatusProcessing}, &buf)
	assert.ErrorContains(t, err, "no correctedFile")
	_, err = c.Download(context.Background(), nil, &buf)
	assert.Error(t, err)
}

func TestTimestampJSON(t *testing.T) {
	t.Parallel()
	ts := Timestamp{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600))}
	b, err := json.Marshal(ts)
	require.NoError(t, err)
	assert.Equal(t, `"2026-01-02T02:04:05.000Z"`, string(b))
	var back Timestamp
	require.NoError(t, json.Unmarshal([]byte(`"2026-01-02T02:04:05Z"`), &back))
	assert.True(t, back.Equal(ts.Time))
	require.NoError(t, json.Unmarshal([]byte(`""`), &back))
	assert.True(t, back.IsZero())
	assert.Error(t, json.Unmarshal([]byte(`"yesterday"`), &back))
	assert.Error(t, json.Unmarshal([]byte(`12`), &back))
}

func TestStartJobRedactsWebhookToken(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", `=~/v2/pfc`, 500, map[string]any{"message": "boom"})
	_, err := c.StartJob(context.Background(), NewCorrection().WithFileKey("k").WithWebhook("https://hooks.test/h?token=very-secret-token"))
	var apiErr *pfc.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.NotContains(t, err.Error(), "very-secret-token")
	assert.NotContains(t, apiErr.URL, "very-secret-token")
}

// TestGetJobRefusesAnotherJobsRecord: a record whose _id is another job's,
// in a 200 or as the body of a 302, is an *pfc.ResponseError
// naming _id, with no record; the id it quotes is redacted. A record
// without _id, or a redirect's body that is this job's record or no
// record at all, is accepted.
func TestGetJobRefusesAnotherJobsRecord(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		status     int
		refused    bool
	}{
		{"200 for another job", `{"_id":"j2","status":"COMPLETED","correctedFile":"https://files.test/j2.jpg"}`, 200, true},
		{"302 body for another job", `{"_id":"j2","status":"COMPLETED","correctedFile":"https://files.test/j2.jpg"}`, 302, true},
		{"200 echoing the key", `{"_id":"` + testKey + `","status":"PROCESSING"}`, 200, true},
		{"200 without _id", `{"status":"PROCESSING"}`, 200, false},
		{"302 body of this job", `{"_id":"j1","status":"COMPLETED"}`, 302, false},
		{"302 body not a record", `<a href="https://files.test/j1.jpg">Found</a>`, 302, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := mockClient(t)
			mt.RegisterResponder("GET", "https://api.example.test/v2/status/j1?noRedirect=true", func(r *http.Request) (*http.Response, error) {
				resp := httpmock.NewStringResponse(tc.status, tc.body)
				resp.Header.Set("Content-Type", "application/json")
				if tc.status == 302 {
					resp.Header.Set("Location", "https://files.test/j2.jpg")
				}
				return resp, nil
			})
			job, err := c.GetJob(context.Background(), "j1")
			if !tc.refused {
				require.NoError(t, err)
				assert.Equal(t, "j1", job.ID)
				return
			}
			assert.Nil(t, job)
			require.ErrorIs(t, err, pfc.ErrInvalidResponse)
			var ie *pfc.ResponseError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, "_id", ie.Field)
			assert.Contains(t, err.Error(), "j1")
			assert.NotContains(t, err.Error(), testKey)
			assert.NotContains(t, err.Error(), testKey[:len(testKey)-1])
		})
	}
}
