package bgcontainer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const secretKey = "LIC-9f8e7d6c5b4a"

func TestClientNeverPrintsTheLicenceKey(t *testing.T) {
	t.Parallel()
	c := &Client{baseURL: "http://gpu-box:8000", licenseKey: &secret{secretKey}}
	type holder struct{ c Client } // an unexported field: fmt cannot call Format
	//lint:ignore SA9005 marshalling a Client is the case under test
	js, err := json.Marshal(*c)
	require.NoError(t, err)
	outs := []string{string(js),
		fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s %q %d", c, c, c, c, c, c), c.String(),
		fmt.Sprintf("%v", *c), fmt.Sprintf("%+v", struct{ C *Client }{c}),
		fmt.Sprintf("%v %+v %#v", holder{*c}, holder{*c}, holder{*c}),
		fmt.Sprintf("%v", errors.New("wrapped: "+fmt.Sprint(c))),
	}
	var logs bytes.Buffer
	l := slog.New(slog.NewTextHandler(&logs, nil))
	l.Info("client", "c", c)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("client", "c", c)
	outs = append(outs, logs.String())
	for _, s := range outs {
		assert.NotContains(t, s, secretKey)
		assert.NotContains(t, s, "9f8e7d6c5b4a")
	}
	assert.Equal(t, "bgcontainer.Client(http://gpu-box:8000, license key REDACTED)", c.String())
	assert.Contains(t, logs.String(), "REDACTED")
	assert.Equal(t, "bgcontainer.Client(http://gpu-box:8000, no license key)", (&Client{baseURL: "http://gpu-box:8000"}).String())
	var nilClient *Client
	assert.Equal(t, "<nil>", fmt.Sprint(nilClient))
}

// TestKeyFormsCoverJSONEscapes: a container echoing the key in a JSON
// error body escapes it as its encoder does; every such spelling is
// redacted from the body kept in pfc.APIError.Body.
