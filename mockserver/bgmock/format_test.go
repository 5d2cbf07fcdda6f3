package bgmock

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pfcsdk/pfc-go/internal/redact/redacttest"
)

// TestKeyHoldersPrintRedacted: every type of the package that holds a
// licence key prints (any verb, pointer or value) and logs with it
// REDACTED. They printed it.
func TestKeyHoldersPrintRedacted(t *testing.T) {
	t.Parallel()
	const licence = "bg-licence-0123456789"
	opts := &Options{LicenseKey: licence, remover: testRemover{}}
	srv := Start(t, opts)
	redacttest.AssertHidden(t, licence, opts, *opts, srv, *srv, srv.Mock, *srv.Mock)

	assert.Contains(t, fmt.Sprintf("%+v", opts), "LicenseKey:REDACTED")
	assert.Contains(t, fmt.Sprintf("%+v", srv), "LicenseKey:REDACTED")
	assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", *opts), "bgmock.Options{"), fmt.Sprintf("%#v", *opts))
	var none *Server
	assert.Equal(t, "<nil>", fmt.Sprint(none))
	assert.Equal(t, "<nil>", none.LogValue().String())
}
