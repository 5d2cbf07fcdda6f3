package bgmock

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pfcsdk/pfc-go/internal/redact/redacttest"
	"github.com/pfcsdk/pfc-go/mockserver/internal/bgsvc"
)

// TestKeyHoldersPrintRedacted: every type of the package that holds a
// licence key prints (any verb, pointer or value) and logs with it
// REDACTED. They printed it.
func TestKeyHoldersPrintRedacted(t *testing.T) {
	t.Parallel()
	const licence = "bg-licence-0123456789"
	opts := &Options{LicenseKey: licence}
	srv := start(t, opts, hooks{remover: testRemover{}})
	redacttest.AssertHidden(t, licence, opts, *opts, srv, *srv, srv.Mock, *srv.Mock)

	assert.Contains(t, fmt.Sprintf("%+v", opts), "LicenseKey:REDACTED")
	assert.Contains(t, fmt.Sprintf("%+v", srv), "LicenseKey:REDACTED")
	assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", *opts), "bgmock.Options{"), fmt.Sprintf("%#v", *opts))
	var none *Server
	assert.Equal(t, "<nil>", fmt.Sprint(none))
	assert.Equal(t, "<nil>", none.LogValue().String())
}

// TestOptionsIsTheServiceConfig: Options is the service core's own
// configuration, not a copy of its fields kept in step by hand; it prints
// under its public name with the licence key REDACTED. It was a copy.
func TestOptionsIsTheServiceConfig(t *testing.T) {
	t.Parallel()
	assert.Equal(t, reflect.TypeFor[bgsvc.Config]().String(), reflect.TypeFor[Options]().String())
	const licence = "bg-licence-9876543210"
	o := Options{LicenseKey: licence, Organization: "Acme"}
	assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", o), "bgmock.Options{LicenseKey:"), fmt.Sprintf("%#v", o))
	redacttest.AssertHidden(t, licence, o, &o)
	logged := redacttest.Printings(o)["slog text"]
	assert.Contains(t, logged, "LicenseKey:REDACTED")
	assert.NotContains(t, logged, licence)
}
