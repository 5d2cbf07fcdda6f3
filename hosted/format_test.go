package hosted

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/redact/redacttest"
	"github.com/pfcsdk/pfc-go/pfc"
)

const (
	testSignature  = "7c1e5b0f9d2a4e8b6c3d1f0a9b8e7d6c"
	testCredential = "AKIAEXAMPLE0123456789"
)

// TestUploadTicketPrintsWithoutItsSignature: the ticket RequestUpload
// returns holds a pre-signed URL; printed with any verb or logged, its
// query values (signature, credential) are REDACTED. It printed them.
func TestUploadTicketPrintsWithoutItsSignature(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	signed := "https://store.example/up/fk1?X-Amz-Credential=" + testCredential + "&X-Amz-Signature=" + testSignature + "#frag"
	expectAPI(t, mt, "GET", `=~/v2/upload`, 200, map[string]string{"fileKey": "fk1", "uploadUrl": signed})
	ticket, err := c.RequestUpload(context.Background(), FileTypeImage)
	require.NoError(t, err)
	require.Equal(t, signed, ticket.UploadURL, "the URL itself stays usable")
	for how, s := range redacttest.Printings(ticket) {
		assert.NotContains(t, s, testSignature, how)
		assert.NotContains(t, s, testCredential, how)
		assert.NotContains(t, s, "frag", how)
	}
	for how, s := range redacttest.Printings(*ticket) {
		assert.NotContains(t, s, testSignature, how)
	}
	assert.Equal(t, "{FileKey:fk1 UploadURL:https://store.example/up/fk1?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED}", fmt.Sprintf("%+v", ticket))
	assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", *ticket), `hosted.UploadTicket{FileKey:"fk1"`), fmt.Sprintf("%#v", *ticket))
}

// TestPresetPrintsWithoutItsSignature: a preset holding a pre-signed
// upload URL prints and logs with its query values REDACTED.
func TestPresetPrintsWithoutItsSignature(t *testing.T) {
	t.Parallel()
	p := Preset{ID: "p1", Name: "Warm", UploadURL: "https://store.example/presets/p1?sig=" + testSignature}
	for how, s := range redacttest.Printings(p) {
		assert.NotContains(t, s, testSignature, how)
	}
	assert.Contains(t, fmt.Sprintf("%+v", p), "UploadURL:https://store.example/presets/p1?sig=REDACTED")
	assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", p), `hosted.Preset{ID:"p1"`), fmt.Sprintf("%#v", p))
}

// TestCorrectionOptionsPrintWithoutTheWebhookToken: the options print and
// log their webhook URL as the client redacts it (its path and query
// values REDACTED), and every other field as fmt prints it.
func TestCorrectionOptionsPrintWithoutTheWebhookToken(t *testing.T) {
	t.Parallel()
	const token = "XXXXXXXXXXXXXXXXXXXXXXXX"
	o := NewCorrection().WithFileKey("fk1").WithWebhook("https://hooks.example.com/services/T000/B000/" + token + "?k=" + testSignature)
	for how, s := range redacttest.Printings(o) {
		assert.NotContains(t, s, token, how)
		assert.NotContains(t, s, testSignature, how)
	}
	got := fmt.Sprintf("%+v", o)
	assert.Contains(t, got, "FileKey:fk1")
	assert.Contains(t, got, "WebhookURL:https://hooks.example.com/REDACTED?k=REDACTED")
	assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", *o), `hosted.CorrectionOptions{FileKey:"fk1"`), fmt.Sprintf("%#v", *o))
	assert.Contains(t, o.WebhookURL, token, "the options themselves are unchanged")
}

// TestClientPrintsWithoutTheAPIKey: the client holds the API key; printed
// with any verb or logged it shows its base URL only. %s and %q reached
// the key through the transport it points to.
func TestClientPrintsWithoutTheAPIKey(t *testing.T) {
	t.Parallel()
	c, err := NewClient(testKey, pfc.WithBaseURL("https://api.example.test/v2"))
	require.NoError(t, err)
	for how, s := range redacttest.Printings(c) {
		assert.NotContains(t, s, testKey, how)
	}
	assert.Equal(t, "hosted.Client(https://api.example.test/v2, API key REDACTED)", fmt.Sprintf("%s", c))
	var none *Client
	assert.Equal(t, "<nil>", fmt.Sprint(none))
	assert.Equal(t, "<nil>", none.LogValue().String())
}
