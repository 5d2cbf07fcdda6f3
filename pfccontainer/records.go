package pfccontainer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/pfcsdk/pfc-go/pfc"
)

// UploadResponse is the answer of PUT /pfc.
type UploadResponse struct {
	// ImageKey names the uploaded image on GET /pfc/{imageKey}.
	ImageKey string `json:"imageKey"`
}

// Scene is a detected scene category. The container does not publish its
// list; SceneUnknown (-1) means not detected or unknown. The mock's
// categories are listed in the package documentation.
type Scene int

// SceneUnknown is reported when no scene was detected.
const SceneUnknown Scene = -1

// Known reports whether a scene was detected.
func (s Scene) Known() bool { return s >= 0 }

// Correction is the answer of GET /pfc/{imageKey}.
type Correction struct {
	// CorrectedURL is the download URL of the corrected image: the
	// container's PFC_SITE_URL plus /output/ and the file name. It may
	// name a host the client cannot reach (see the package documentation
	// on rebasing).
	CorrectedURL string `json:"corrected_url"`
	// Scene is the detected scene category, SceneUnknown when none.
	Scene Scene `json:"scene"`
	// ReportedURL is corrected_url as the container answered it; it
	// differs from CorrectedURL only on a client made with
	// RebaseCorrectedURLs.
	ReportedURL string `json:"-"`
	// Replica is the base URL of the replica that corrected the image,
	// set by CorrectFile on a client of several replicas (pfc.WithReplicas).
	Replica string `json:"-"`
	// LostReplicas are the replicas CorrectFile found down or not
	// answering within the response header timeout (the image was done
	// again on another one).
	LostReplicas []string `json:"-"`
	// Path is where the corrected file is on this host, set in direct
	// file mode (Direct): the result in OutputDir, or the dstPath it was
	// copied to.
	Path string `json:"-"`
}

// FileName returns the last path segment of CorrectedURL, unescaped: the
// file's name in the container's /output directory (the input's name
// with preserveInputFileName).
func (c *Correction) FileName() string {
	u := c.CorrectedURL
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	name := u[strings.LastIndex(u, "/")+1:]
	if un, err := url.PathUnescape(name); err == nil {
		return un
	}
	return name
}

// Version is the /version document. The container documents only the SDK
// version and the supported features; Raw keeps the whole document for
// everything else.
type Version struct {
	// SDKVersion is the engine's SDK version, e.g. "10.7.2.1269".
	SDKVersion string
	// Features lists the supported features, as the container names them.
	Features []string
	// Raw is the document as received.
	Raw json.RawMessage
}

// Format prints v as fmt prints a struct, but Raw as the JSON text it is
// (compacted), not as a list of bytes: %+v gives {SDKVersion:10.7.2.1269
// ... Raw:{"version":"10.7.2.1269",...}}. %#v is Go syntax, as without
// this method.
func (v Version) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		type version Version // without this method
		fmt.Fprint(f, "pfccontainer.Version"+strings.TrimPrefix(fmt.Sprintf("%#v", version(v)), "pfccontainer.version"))
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), struct {
		SDKVersion string
		Features   []string
		Raw        string
	}{v.SDKVersion, v.Features, jsonText(v.Raw)})
}

// jsonText returns raw as text on one line: compacted, or as it is when
// it is not JSON.
func jsonText(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// HasFeature reports whether name is among Features (case insensitive).
func (v *Version) HasFeature(name string) bool {
	return slices.ContainsFunc(v.Features, func(f string) bool { return strings.EqualFold(f, name) })
}

// decodeVersion reads a /version document. Since its shape is not
// published, it accepts the SDK version under "version", "sdkVersion",
// "sdk_version" or "build", and features as an array of names or an
// object of name: bool (true ones kept, sorted). A document of another
// shape is a *pfc.ResponseError.
func decodeVersion(b []byte) (*Version, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, &pfc.ResponseError{Endpoint: string(epVersion), Reason: "not a JSON object"}
	}
	v := &Version{Raw: append(json.RawMessage(nil), b...)}
	for _, k := range []string{"sdkVersion", "sdk_version", "version", "build"} {
		raw, ok := doc[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			v.SDKVersion = s
			break
		}
	}
	if raw, ok := doc["features"]; ok {
		var list []string
		var set map[string]bool
		switch {
		case json.Unmarshal(raw, &list) == nil:
			v.Features = list
		case json.Unmarshal(raw, &set) == nil:
			for name, on := range set {
				if on {
					v.Features = append(v.Features, name)
				}
			}
			slices.Sort(v.Features)
		default:
			return nil, &pfc.ResponseError{Endpoint: string(epVersion), Field: "features", Reason: "is neither a list of names nor an object of name: bool"}
		}
	}
	return v, nil
}
