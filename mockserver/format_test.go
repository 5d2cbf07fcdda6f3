package mockserver

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shown returns v as every fmt verb and both slog handlers show it.
func shown(v any) map[string]string {
	out := map[string]string{}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		out[verb] = fmt.Sprintf(verb, v)
	}
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("m", "value", v)
	slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "value", v)
	out["slog text"], out["slog JSON"] = text.String(), js.String()
	return out
}

// assertHidden checks that no printing of any of values shows secret, in
// any case or hex.
func assertHidden(t *testing.T, secret string, values ...any) {
	t.Helper()
	for i, v := range values {
		for how, s := range shown(v) {
			low := strings.ToLower(s)
			assert.NotContains(t, low, strings.ToLower(secret), "value %d (%T), %s", i, v, how)
			assert.NotContains(t, low, fmt.Sprintf("%x", secret), "value %d (%T), %s", i, v, how)
		}
	}
}

// TestKeyHoldersPrintRedacted: every type of the package that holds an
// API key, a licence key or a pre-signed URL prints (any verb, pointer or
// value) and logs with them REDACTED. They printed them, the test servers
// as key bytes too.
func TestKeyHoldersPrintRedacted(t *testing.T) {
	t.Parallel()
	const apiKey, licence, sig = "hosted-key-0123456789", "bg-licence-0123456789", "sig0123456789abcdef"
	hOpts := &HostedOptions{APIKeys: []string{apiKey, "second-key-987654"}, remover: testRemover{}}
	hs := StartHosted(t, hOpts)
	assertHidden(t, apiKey, hOpts, *hOpts, hs, *hs, hs.Hosted)
	assertHidden(t, "second-key-987654", hOpts, hs)

	bOpts := &BGContainerOptions{LicenseKey: licence, remover: testRemover{}}
	bs := StartBGContainer(t, bOpts)
	assertHidden(t, licence, bOpts, *bOpts, bs, *bs, bs.BGContainer, *bs.BGContainer)

	rec := HostedPresetRecord{PresetID: "p1", UploadURL: "https://mock/storage/p1?expires=1&sig=" + sig}
	list := HostedPresetList{Presets: []HostedPresetRecord{rec}, Total: 1}
	u, err := url.Parse("/Authorize/" + licence + "?sig=" + sig)
	require.NoError(t, err)
	ev := FaultEvent{Backend: "bg", Route: "authorize", Method: "GET", URL: u}
	assertHidden(t, sig, rec, &rec, list, ev, &ev)
	assertHidden(t, licence, ev)

	assert.Contains(t, fmt.Sprintf("%+v", hOpts), "APIKeys:[REDACTED REDACTED]")
	assert.Contains(t, fmt.Sprintf("%+v", bOpts), "LicenseKey:REDACTED")
	assert.Contains(t, fmt.Sprintf("%+v", bs), "LicenseKey:REDACTED")
	assert.Contains(t, fmt.Sprintf("%+v", rec), "UploadURL:https://mock/storage/p1?expires=REDACTED&sig=REDACTED")
	assert.Contains(t, fmt.Sprintf("%v", ev), "/Authorize/REDACTED?sig=REDACTED")
	assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", *bOpts), "mockserver.BGContainerOptions{"), fmt.Sprintf("%#v", *bOpts))
	assert.Equal(t, "/Authorize/"+licence, ev.URL.Path, "the event itself is unchanged")
	var none *BGContainer
	assert.Equal(t, "<nil>", fmt.Sprint(none))
	assert.Equal(t, "<nil>", none.LogValue().String())
}
