package pfccontainer

import (
	"context"
	"fmt"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// GetCorrection is the single step GET /pfc/{imageKey}: it corrects the
// image imageKey with o (nil: the container's defaults) and returns the
// corrected file's URL and the detected scene. imageKey is an upload's key or, in direct file mode, a
// file name in /input. The key and o are checked first, all problems at
// once. The call is synchronous: the container answers once the file is
// written, which can take a while (see pfc.WithResponseHeaderTimeout).
// With RebaseCorrectedURLs, CorrectedURL is moved onto the base URL and
// ReportedURL keeps the container's answer.
func (c *Client) GetCorrection(ctx context.Context, imageKey string, o *CorrectionOptions) (_ *Correction, err error) {
	var fe fieldErrors
	if err := ValidateImageKey(imageKey); err != nil {
		fe = append(fe, err.(*pfc.ValidationError).Errors...)
	}
	if err := o.Validate(); err != nil {
		fe = append(fe, err.(*pfc.ValidationError).Errors...)
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	q, err := o.Query()
	if err != nil {
		return nil, err
	}
	// An answer without scene reads as "not detected", not as scene 0.
	res := Correction{Scene: SceneUnknown}
	where, err := c.getJSON(ctx, epCorrect, imageKey, &transport.Request{Params: []string{imageKey}, RawQuery: q}, &res)
	if err != nil {
		return nil, err
	}
	if res.CorrectedURL == "" {
		return nil, &pfc.ResponseError{Endpoint: string(epCorrect), Field: "corrected_url", Reason: "is missing"}
	}
	res.ReportedURL = res.CorrectedURL
	if c.rebase {
		base := c.base
		if where != nil {
			base = where.URL // the replica that corrected it
		}
		u, err := rebaseURL(res.CorrectedURL, base)
		if err != nil {
			return nil, &pfc.ResponseError{Endpoint: string(epCorrect), Field: "corrected_url",
				Reason: c.http.Redact(fmt.Sprintf("cannot be rebased (%q): an absolute URL under /output/ without dot segments is expected",
					c.quote(res.CorrectedURL, apierr.MaxQuotedMessage)))}
		}
		res.CorrectedURL = u
	}
	return &res, nil
}
