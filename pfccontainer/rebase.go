package pfccontainer

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/pfcsdk/pfc-go/pfc"
)

// outputSegment is where the container serves corrected files.
const outputSegment = "/output/"

// errNotOutputURL says a corrected_url does not point into /output/.
var errNotOutputURL = errors.New("pfc: corrected_url is not an absolute URL under /output/")

// rebaseURL moves correctedURL onto baseURL: the scheme, host and any path
// before /output/ are replaced by baseURL's (whose own path, e.g. a
// reverse-proxy prefix, is kept), the /output/... tail and query stay. A
// tail with dot segments (escaped or not) or backslashes is refused.
// This is what the rebase option does when PFC_SITE_URL names a host the
// client cannot reach (the default http://localhost seen from another
// machine or container).
func rebaseURL(correctedURL, baseURL string) (string, error) {
	cu, err := url.Parse(correctedURL)
	if err != nil || !cu.IsAbs() {
		return "", errNotOutputURL
	}
	ep := cu.EscapedPath()
	i := strings.LastIndex(ep, outputSegment)
	if i < 0 || i+len(outputSegment) == len(ep) || !plainTail(ep[i+len(outputSegment):]) {
		return "", errNotOutputURL
	}
	bu, err := url.Parse(baseURL)
	if err != nil || !bu.IsAbs() || bu.Host == "" {
		return "", fmt.Errorf("pfc: base URL is not absolute")
	}
	out := *bu
	out.RawQuery, out.Fragment = cu.RawQuery, ""
	newPath := strings.TrimRight(bu.EscapedPath(), "/") + ep[i:]
	p, err := url.PathUnescape(newPath)
	if err != nil {
		return "", errNotOutputURL
	}
	out.Path, out.RawPath = p, newPath
	return out.String(), nil
}

// plainTail reports whether the escaped path after /output/ has no dot
// segments, escaped or not: rebased, it is requested from the client's
// base URL, and "/output/../../x" would walk out of /output/ (and out of a
// reverse proxy's prefix, to whatever else that proxy serves).
func plainTail(escaped string) bool {
	for _, seg := range strings.Split(escaped, "/") {
		un, err := url.PathUnescape(seg)
		if err != nil || un == "." || un == ".." || strings.Contains(un, "..") || strings.Contains(un, `\`) {
			return false
		}
	}
	return true
}

// outputFile returns the path of c's corrected file inside the mounted
// output directory dir (direct file mode). The name comes from the server,
// so it must be a plain file name: nothing the container answers can make
// the client read or write outside dir.
func outputFile(dir string, c *Correction) (string, error) {
	name := c.FileName()
	if !plainFileName(name) {
		return "", &pfc.ResponseError{Endpoint: string(epCorrect), Field: "corrected_url",
			Reason: fmt.Sprintf("does not name a plain file in /output (got %q)", name)}
	}
	return filepath.Join(dir, name), nil
}
