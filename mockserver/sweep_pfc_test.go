package mockserver_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// sweepUploadLimit is the sweep servers' upload bound, small so that an
// oversized body costs little.
const sweepUploadLimit = 64 << 10

// TestPFCContainerBadInputSweep sends malformed requests to every route
// of the correction container mock: each gets its documented status (the
// seed documents 503 bodyRequestMessage for an upload body that breaks off
// and 503 processingPFCErrorMessage for an image the engine rejects; no
// other 5xx), nothing panics, and the mock still corrects an image exactly
// as a fresh one does afterwards.
func TestPFCContainerBadInputSweep(t *testing.T) {
	t.Parallel()
	s := newSweepServer(t)
	c, err := pfcmock.New(pfcmock.Options{SiteURL: s.URL(), MaxUploadBytes: sweepUploadLimit})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	s.start(c)
	client, err := pfccontainer.NewClient(pfc.WithBaseURL(s.URL()), pfc.WithHTTPClient(s.srv.Client()))
	require.NoError(t, err)
	ctx := context.Background()
	img := chaosInput(t, 7)
	key, err := client.Upload(ctx, bytes.NewReader(img), int64(len(img)), "image/jpeg")
	require.NoError(t, err)
	corr, err := client.GetCorrection(ctx, key, nil)
	require.NoError(t, err)
	output := corr.CorrectedURL[strings.LastIndex(corr.CorrectedURL, "/")+1:]
	// Uploads whose content only the correction looks at.
	upload := func(body string) string {
		k, err := client.Upload(ctx, strings.NewReader(body), int64(len(body)), "image/png")
		require.NoError(t, err)
		return k
	}
	notImage, bomb, jpegBomb := upload("not an image at all"), upload(bombPNG(100000, 100000)), upload(bombJPEG(65000, 65000))
	tiny := upload(bombPNG(8, 8))

	jpg := []string{"Content-Type: image/jpeg"}
	q := func(query string) string { return "/pfc/" + key + "?" + query }
	const (
		bad     = 400
		invalid = "invalid_parameter"
	)
	cases := []sweepCase{
		// Wrong methods and routes.
		{name: "POST /pfc", method: "POST", target: "/pfc", header: jpg, body: "x", status: 405, code: "method_not_allowed"},
		{name: "DELETE /pfc", method: "DELETE", target: "/pfc", status: 405},
		{name: "PATCH /pfc/key", method: "PATCH", target: "/pfc/" + key, status: 405},
		{name: "PUT /pfc/key", method: "PUT", target: "/pfc/" + key, header: jpg, body: "x", status: 405},
		{name: "POST /version", method: "POST", target: "/version", status: 405},
		{name: "DELETE /output", method: "DELETE", target: "/output/" + output, status: 405},
		{name: "unknown route", method: "GET", target: "/nope", status: 404, code: "not_found"},
		{name: "root", method: "GET", target: "/", status: 404},
		{name: "route case", method: "GET", target: "/PFC/" + key, status: 404},
		{name: "OPTIONS", method: "OPTIONS", target: "/pfc", status: 405},
		// Uploads: content types, sizes, bodies.
		{name: "no content type", method: "PUT", target: "/pfc", body: "x", status: bad, code: "noContentTypeRequestMessage"},
		{name: "text/plain", method: "PUT", target: "/pfc", header: []string{"Content-Type: text/plain"}, body: "x", status: bad, code: "noContentTypeRequestMessage"},
		{name: "application/json", method: "PUT", target: "/pfc", header: []string{"Content-Type: application/json"}, body: "{}", status: bad, code: "noContentTypeRequestMessage"},
		{name: "image/gif", method: "PUT", target: "/pfc", header: []string{"Content-Type: image/gif"}, body: "GIF89a", status: bad, code: "noContentTypeRequestMessage"},
		{name: "multipart", method: "PUT", target: "/pfc", header: []string{"Content-Type: multipart/form-data; boundary=x"}, body: "--x--", status: bad, code: "noContentTypeRequestMessage"},
		{name: "malformed content type", method: "PUT", target: "/pfc", header: []string{"Content-Type: ;;;"}, body: "x", status: bad, code: "noContentTypeRequestMessage"},
		{name: "content type with bad parameter", method: "PUT", target: "/pfc", header: []string{"Content-Type: image/jpeg; ="}, body: "x", status: bad, code: "noContentTypeRequestMessage"},
		{name: "empty body", method: "PUT", target: "/pfc", header: jpg, status: bad, code: "emptyBodyMessage"},
		{name: "empty chunked body", method: "PUT", target: "/pfc", header: jpg, declare: -1, status: bad, code: "emptyBodyMessage"},
		{name: "declared too large", method: "PUT", target: "/pfc", header: append(jpg, "Content-Length: 999999999999"), status: 413, code: "bodyTooLargeMessage"},
		{name: "chunked too large", method: "PUT", target: "/pfc", header: jpg, body: strings.Repeat("j", sweepUploadLimit+1000), declare: -1, status: 413, code: "bodyTooLargeMessage"},
		{name: "truncated body", method: "PUT", target: "/pfc", header: jpg, body: "\xff\xd8 only ten", declare: 1000, status: 503, code: "bodyRequestMessage"},
		// Keys.
		{name: "no key", method: "GET", target: "/pfc", status: bad, code: "noIdMessage"},
		{name: "empty key", method: "GET", target: "/pfc/", status: bad, code: "noIdMessage"},
		{name: "dot-dot key", method: "GET", target: "/pfc/..", status: bad, code: "invalidIdMessage"},
		{name: "traversal", method: "GET", target: "/pfc/../sdk_license/license", status: bad, code: "invalidIdMessage"},
		{name: "escaped traversal", method: "GET", target: "/pfc/%2e%2e%2fsdk_license", status: bad, code: "invalidIdMessage"},
		{name: "escaped slash", method: "GET", target: "/pfc/a%2Fb", status: bad, code: "invalidIdMessage"},
		{name: "backslash", method: "GET", target: "/pfc/a%5Cb", status: bad, code: "invalidIdMessage"},
		{name: "hidden file", method: "GET", target: "/pfc/.upload-1", status: bad, code: "invalidIdMessage"},
		{name: "control character", method: "GET", target: "/pfc/a%00b", status: bad, code: "invalidIdMessage"},
		{name: "invalid UTF-8", method: "GET", target: "/pfc/%ff%fe", status: bad, code: "invalidIdMessage"},
		{name: "key too long", method: "GET", target: "/pfc/" + strings.Repeat("k", 256), status: bad, code: "invalidIdMessage"},
		{name: "unknown key", method: "GET", target: "/pfc/0123456789abcdef0123456789abcdef.jpg", status: bad, code: "unknownImageIdMessage"},
		{name: "not a key", method: "GET", target: "/pfc/zzz", status: bad, code: "unknownImageIdMessage"},
		// Query parameters.
		{name: "unknown parameter", method: "GET", target: q("foo=1"), status: bad, code: "unknown_parameter"},
		{name: "version with a query", method: "GET", target: "/version?verbose=1", status: bad, code: "unknown_parameter"},
		{name: "version with a malformed query", method: "GET", target: "/version?%zz", status: bad, code: invalid},
		{name: "duplicated width", method: "GET", target: q("width=100&width=200"), status: bad, code: invalid},
		{name: "duplicated preset", method: "GET", target: q("preset=Pro&preset=Pro"), status: bad, code: invalid},
		{name: "width not a number", method: "GET", target: q("width=abc"), status: bad, code: invalid},
		{name: "width too small", method: "GET", target: q("width=31"), status: bad, code: invalid},
		{name: "width too large", method: "GET", target: q("width=10001"), status: bad, code: invalid},
		{name: "width negative", method: "GET", target: q("width=-5"), status: bad, code: invalid},
		{name: "width exponent", method: "GET", target: q("width=1e3"), status: bad, code: invalid},
		{name: "width empty", method: "GET", target: q("width="), status: bad, code: invalid},
		{name: "height zero", method: "GET", target: q("height=0"), status: bad, code: invalid},
		{name: "long fraction", method: "GET", target: q("long=100.5"), status: bad, code: invalid},
		{name: "short overflow", method: "GET", target: q("short=99999999999999999999"), status: bad, code: invalid},
		{name: "scale zero", method: "GET", target: q("scale=0"), status: bad, code: invalid},
		{name: "scale too large", method: "GET", target: q("scale=62501"), status: bad, code: invalid},
		{name: "quality too low", method: "GET", target: q("outputQuality=39"), status: bad, code: invalid},
		{name: "quality too high", method: "GET", target: q("outputQuality=101"), status: bad, code: invalid},
		{name: "quality not a number", method: "GET", target: q("outputQuality=high"), status: bad, code: invalid},
		{name: "output type gif", method: "GET", target: q("outputType=gif"), status: bad, code: "unknownOutputTypeMessage"},
		{name: "output type empty", method: "GET", target: q("outputType="), status: bad, code: "unknownOutputTypeMessage"},
		{name: "autocrop yes", method: "GET", target: q("autocrop=yes"), status: bad, code: invalid},
		{name: "skip photos", method: "GET", target: q("skip=photos"), status: bad, code: invalid},
		{name: "unknown preset", method: "GET", target: q("preset=NoSuchPreset"), status: bad, code: "unknownPresetMessage"},
		{name: "colour space traversal", method: "GET", target: q("outputColorSpace=../x.icc"), status: bad, code: invalid},
		{name: "colour space missing", method: "GET", target: q("outputColorSpace=missing.icc"), status: bad, code: invalid},
		{name: "preserveInputFileName maybe", method: "GET", target: q("preserveInputFileName=maybe"), status: bad, code: invalid},
		{name: "enableComposite 2", method: "GET", target: q("enableComposite=2"), status: bad, code: invalid},
		{name: "malformed escape", method: "GET", target: q("width=%zz"), status: bad, code: invalid},
		{name: "semicolon", method: "GET", target: q("width=100;height=100"), status: bad, code: invalid},
		// Outputs.
		{name: "missing output", method: "GET", target: "/output/missing.jpg", status: 404, code: "not_found"},
		{name: "output traversal", method: "GET", target: "/output/../sdk_license/license", status: 404},
		{name: "output escaped traversal", method: "GET", target: "/output/%2e%2e%2finput%2f" + key, status: 404},
		{name: "output directory", method: "GET", target: "/output/", status: 404},
		{name: "HEAD missing output", method: "HEAD", target: "/output/missing.png", status: 404},
		{name: "range past the end", method: "GET", target: "/output/" + output, header: []string{"Range: bytes=99999999-"}, status: 416},
		// Huge headers and request lines (net/http answers 431).
		{name: "huge header", method: "GET", target: "/version", header: []string{hugeHeader(1<<20 + 8192)}, status: 431},
		{name: "huge query", method: "GET", target: q("preset=" + strings.Repeat("p", 1<<20+8192)), status: 431},
		// Images the engine refuses, decompression bombs included: the
		// header is read, nothing of the declared size is allocated.
		{name: "not an image", method: "GET", target: "/pfc/" + notImage, status: 503, code: "processingPFCErrorMessage"},
		{name: "PNG bomb 100000x100000", method: "GET", target: "/pfc/" + bomb, status: 503, code: "processingPFCErrorMessage"},
		{name: "JPEG bomb 65000x65000", method: "GET", target: "/pfc/" + jpegBomb, status: 503, code: "processingPFCErrorMessage"},
		{name: "image too small", method: "GET", target: "/pfc/" + tiny, status: 503, code: "processingPFCErrorMessage"},
	}
	require.GreaterOrEqual(t, len(cases), 60)
	s.run(t, cases, func(c sweepCase) bool {
		return c.code == "bodyRequestMessage" || c.code == "processingPFCErrorMessage"
	})

	// Still correct: the same image corrects to the same bytes as on a
	// fresh container.
	ref := pfcmock.Start(t, nil)
	correct := func(cl *pfccontainer.Client) []byte {
		k, err := cl.Upload(ctx, bytes.NewReader(img), int64(len(img)), "image/jpeg")
		require.NoError(t, err)
		co, err := cl.GetCorrection(ctx, k, &pfccontainer.CorrectionOptions{Width: 64})
		require.NoError(t, err)
		var buf bytes.Buffer
		_, err = cl.Download(ctx, co, &buf)
		require.NoError(t, err)
		return buf.Bytes()
	}
	assert.Equal(t, correct(ref.Client), correct(client))
	client.CloseIdleConnections()
}
