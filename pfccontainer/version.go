package pfccontainer

import (
	"context"
	"encoding/json"

	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Version reads GET /version: the SDK version and the supported features,
// with the whole document kept in Version.Raw (its other fields are not
// published). A client of several replicas asks the least busy one, and
// the next while one gives no answer or a 5xx.
func (c *Client) Version(ctx context.Context) (_ *Version, err error) {
	var raw json.RawMessage
	if _, err := c.getJSON(ctx, epVersion, "", &transport.Request{}, &raw); err != nil {
		return nil, err
	}
	return decodeVersion(raw)
}

// Health reports whether the container answers GET /version with a
// version document: nil when it does, else the error (a connection error
// after the client's retries, an *pfc.APIError, a malformed document). Use a
// context deadline to bound it, and pfc.WithRetries(-1, 0, 0) on a client made
// for probing when the probe must not wait for retries. A client of
// several replicas asks one that answers, like Version: nil means some
// replica is up, not all.
func (c *Client) Health(ctx context.Context) (err error) {
	v, err := c.Version(ctx)
	if err != nil {
		return err
	}
	if v.SDKVersion == "" {
		return &pfc.ResponseError{Endpoint: string(epVersion), Field: "version", Reason: "names no SDK version"}
	}
	return nil
}
