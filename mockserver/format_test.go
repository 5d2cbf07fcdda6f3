package mockserver

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/redact/redacttest"
)

// TestFaultEventPrintsRedacted: a fault event's URL prints (any verb,
// pointer or value) and logs with its query values and what follows
// /Authorize/ REDACTED; the event itself is unchanged.
func TestFaultEventPrintsRedacted(t *testing.T) {
	t.Parallel()
	const licence, sig = "bg-licence-0123456789", "sig0123456789abcdef"
	u, err := url.Parse("/Authorize/" + licence + "?sig=" + sig)
	require.NoError(t, err)
	ev := FaultEvent{Backend: "bg", Route: "authorize", Method: "GET", URL: u}
	redacttest.AssertHidden(t, sig, ev, &ev)
	redacttest.AssertHidden(t, licence, ev)
	assert.Contains(t, fmt.Sprintf("%v", ev), "/Authorize/REDACTED?sig=REDACTED")
	assert.Equal(t, "/Authorize/"+licence, ev.URL.Path, "the event itself is unchanged")
}
