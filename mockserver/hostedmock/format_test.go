package hostedmock

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pfcsdk/pfc-go/internal/redact/redacttest"
	"github.com/pfcsdk/pfc-go/mockserver/internal/hostedsvc"
)

// TestKeyHoldersPrintRedacted: every type of the package that holds an
// API key or a pre-signed URL prints (any verb, pointer or value) and logs
// with them REDACTED. They printed them, the test server as key bytes too.
func TestKeyHoldersPrintRedacted(t *testing.T) {
	t.Parallel()
	const apiKey, sig = "hosted-key-0123456789", "sig0123456789abcdef"
	opts := &Options{APIKeys: []string{apiKey, "second-key-987654"}}
	srv := Start(t, opts)
	redacttest.AssertHidden(t, apiKey, opts, *opts, srv, *srv, srv.Mock)
	redacttest.AssertHidden(t, "second-key-987654", opts, srv)

	rec := PresetRecord{PresetID: "p1", UploadURL: "https://mock/storage/p1?expires=1&sig=" + sig}
	list := PresetList{Presets: []PresetRecord{rec}, Total: 1}
	redacttest.AssertHidden(t, sig, rec, &rec, list)

	assert.Contains(t, fmt.Sprintf("%+v", opts), "APIKeys:[REDACTED REDACTED]")
	assert.Contains(t, fmt.Sprintf("%+v", rec), "UploadURL:https://mock/storage/p1?expires=REDACTED&sig=REDACTED")
	assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", *opts), "hostedmock.Options{"), fmt.Sprintf("%#v", *opts))
	// The answer types are the service core's: they print under their
	// public names.
	for _, tc := range []struct {
		v    any
		name string
	}{
		{rec, "hostedmock.PresetRecord{"}, {&rec, "hostedmock.PresetRecord{"},
		{list, "hostedmock.PresetList{Presets:[]hostedmock.PresetRecord{hostedmock.PresetRecord{"}, {PresetDeleted{PresetID: "p1"}, "hostedmock.PresetDeleted{"},
	} {
		assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", tc.v), tc.name), fmt.Sprintf("%#v", tc.v))
	}
	var none *Server
	assert.Equal(t, "<nil>", fmt.Sprint(none))
	assert.Equal(t, "<nil>", none.LogValue().String())
}

// TestOptionsIsTheServiceConfig: Options is the service core's own
// configuration, not a copy of its fields kept in step by hand; it prints
// and logs under its public name with the API keys REDACTED. It was a
// copy.
func TestOptionsIsTheServiceConfig(t *testing.T) {
	t.Parallel()
	assert.Equal(t, reflect.TypeFor[hostedsvc.Config]().String(), reflect.TypeFor[Options]().String())
	const apiKey = "hosted-key-9876543210"
	o := Options{APIKeys: []string{apiKey}, MaxPresets: 3}
	assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", o), "hostedmock.Options{APIKeys:"), fmt.Sprintf("%#v", o))
	redacttest.AssertHidden(t, apiKey, o, &o)
	logged := redacttest.Printings(o)["slog text"]
	assert.Contains(t, logged, "APIKeys:[REDACTED]")
	assert.NotContains(t, logged, apiKey)
}
