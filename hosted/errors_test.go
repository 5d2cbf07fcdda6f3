package hosted

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"

	"github.com/pfcsdk/pfc-go/pfc"
)

// The error types users handle are this package's own structs, so that
// go doc shows their fields: not aliases of internal types.
// Every exported call returns service errors as *pfc.APIError and bad input as
// *pfc.ValidationError, also when the error is wrapped with context.
func TestEveryCallReturnsPublicErrorTypes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, mt := mockClient(t)
	mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		return httpmock.NewJsonResponse(404, map[string]string{"message": "nothing here", "parameter": "fileKey"})
	})
	// The preset create call needs its first step to succeed so that the
	// failing upload is wrapped by the cleanup message.
	expectAPI(t, mt, "POST", "https://api.example.test/v2/presets/", 200, map[string]string{"presetId": "p9", "uploadUrl": "https://store.test/p9"})
	job := &Job{ID: "j1", Status: StatusCompleted, CorrectedFile: "https://files.test/j1.jpg"}
	src := strings.NewReader("abc")

	apiCalls := map[string]func() error{
		"RequestUpload": func() error { _, err := c.RequestUpload(ctx, FileTypeImage); return err },
		"UploadTo": func() error {
			return c.UploadTo(ctx, &UploadTicket{FileKey: "k", UploadURL: "https://store.test/k"}, src, 3, "")
		},
		"Upload":   func() error { _, err := c.Upload(ctx, FileTypeImage, src, 3, ""); return err },
		"StartJob": func() error { _, err := c.StartJob(ctx, NewCorrection().WithFileKey("k")); return err },
		"GetJob":   func() error { _, err := c.GetJob(ctx, "j1"); return err },
		"Wait":     func() error { _, err := c.Wait(ctx, "j1", nil); return err },
		"Download": func() error { _, err := c.Download(ctx, job, &strings.Builder{}); return err },
		"Correct":  func() error { _, err := c.Correct(ctx, src, 3, nil, &strings.Builder{}, nil); return err },
		"Presets.List": func() error {
			_, err := c.Presets.List(ctx, nil)
			return err
		},
		"Presets.Get":    func() error { _, err := c.Presets.Get(ctx, "p1"); return err },
		"Presets.Delete": func() error { return c.Presets.Delete(ctx, "p1") },
		"Presets.Create (wrapped)": func() error {
			_, err := c.Presets.Create(ctx, CreatePresetRequest{Name: "n", FileName: "n.pcp"}, src, 3)
			return err
		},
	}
	for name, call := range apiCalls {
		err := call()
		var ae *pfc.APIError
		if assert.ErrorAs(t, err, &ae, name) {
			assert.Equal(t, 404, ae.StatusCode, name)
			assert.Equal(t, "fileKey", ae.Parameter, name)
		}
		assert.ErrorIs(t, err, pfc.ErrNotFound, name)
	}

	badInput := map[string]func() error{
		"NewClient": func() error { _, err := NewClient(""); return err },
		"Validate":  func() error { return (&CorrectionOptions{}).Validate() },
		"Query":     func() error { _, err := (&CorrectionOptions{}).Query(); return err },
		"Values":    func() error { _, err := (&CorrectionOptions{}).Values(); return err },
		"Wait": func() error {
			_, err := c.Wait(ctx, "j", &pfc.WaitOptions{MinDelay: 2, MaxDelay: 1})
			return err
		},
		"CorrectFile": func() error { _, err := c.CorrectFile(ctx, "in.jpg", "", nil, nil); return err },
		"Presets.CreateFromFile": func() error {
			_, err := c.Presets.CreateFromFile(ctx, "", "", "x.txt")
			return err
		},
	}
	for name, call := range badInput {
		err := call()
		var ve *pfc.ValidationError
		if assert.ErrorAs(t, err, &ve, name) {
			assert.NotEmpty(t, ve.Fields(), name)
		}
		assert.ErrorIs(t, err, pfc.ErrInvalidParameter, name)
	}
}

func TestContextErrorsStayInTheChain(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		return nil, r.Context().Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.GetJob(ctx, "j1")
	assert.ErrorIs(t, err, context.Canceled)
	var ae *pfc.APIError
	assert.False(t, errors.As(err, &ae))
}
