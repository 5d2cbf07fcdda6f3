package pfccontainer

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/pfcsdk/pfc-go/internal/transport"
)

// maxVersionDoc bounds the /version document read (a few hundred bytes
// in practice).
const maxVersionDoc = 1 << 20

// Version reads GET /version: the SDK version and the supported features,
// with the whole document kept in Version.Raw (its other fields are not
// published).
func (c *Client) Version(ctx context.Context) (_ *Version, err error) {
	defer exportTo(&err)
	resp, err := c.http.Do(ctx, &transport.Request{Method: http.MethodGet, Path: "version",
		Header: http.Header{"Accept": {"application/json"}}, Permanent: permanent})
	if err != nil {
		return nil, apiError(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxVersionDoc+1))
	if err != nil {
		return nil, fmt.Errorf("pfc: reading /version: %w", err)
	}
	if len(b) > maxVersionDoc {
		return nil, fmt.Errorf("pfc: /version document larger than %d bytes", maxVersionDoc)
	}
	return decodeVersion(b)
}

// Health reports whether the container answers GET /version with a
// version document: nil when it does, else the error (a connection error
// after the client's retries, an *APIError, a malformed document). Use a
// context deadline to bound it, and WithRetries(-1, 0, 0) on a client made
// for probing when the probe must not wait for retries.
func (c *Client) Health(ctx context.Context) (err error) {
	defer exportTo(&err)
	v, err := c.Version(ctx)
	if err != nil {
		return err
	}
	if v.SDKVersion == "" {
		return fmt.Errorf("pfc: /version names no SDK version")
	}
	return nil
}
