package pfccontainer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/pfcsdk/pfc-go/internal/apierr"
	"github.com/pfcsdk/pfc-go/internal/fileio"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Signatures of the files the container writes (outputType JPEG or PNG).
var (
	jpegMagic = []byte{0xff, 0xd8, 0xff}
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
)

// Download streams the corrected file of corr (GET on corr.CorrectedURL)
// to dst and returns the number of bytes written. It asks for the identity
// encoding, so the bytes written are the file's own; an answer in another
// encoding, or one that does not start like a JPEG or PNG file, is a
// *pfc.ResponseError (pfc.ErrInvalidResponse) and nothing is written. No credential or
// header of the caller is sent: the URL may name another host (a gateway
// set as PFC_SITE_URL). A URL that is not absolute http(s) is refused
// before any request; see RebaseCorrectedURLs for a PFC_SITE_URL this
// client cannot reach.
func (c *Client) Download(ctx context.Context, corr *Correction, dst io.Writer) (_ int64, err error) {
	var fe fieldErrors
	if corr == nil || corr.CorrectedURL == "" {
		fe.add("corrected_url", "is required (a Correction returned by GetCorrection)")
	}
	if dst == nil {
		fe.add("dst", "is required")
	}
	if err := fe.err(); err != nil {
		return 0, err
	}
	resp, err := c.http.DoExternal(ctx, http.MethodGet, corr.CorrectedURL,
		http.Header{"Accept-Encoding": {"identity"}}, transport.Body{})
	if err != nil {
		return 0, apiError(epDownload, err)
	}
	defer resp.Body.Close()
	// Nothing reaches dst unless the body is the image itself: not an
	// encoding the client did not ask for (a gzip stream written as the
	// file), not a proxy's or captive portal's HTML page.
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return 0, &pfc.ResponseError{Endpoint: string(epDownload),
			Reason: c.http.Redact(fmt.Sprintf("Content-Encoding %q, although the identity encoding was asked for", c.quote(ce, apierr.MaxQuotedID)))}
	}
	br := bufio.NewReader(resp.Body)
	head, err := br.Peek(len(pngMagic))
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, c.errorf("pfc: download of %s: %w", c.quote(corr.FileName(), apierr.MaxQuotedName), fileio.ShortBody(err, int64(len(head)), resp.ContentLength))
	}
	if !bytes.HasPrefix(head, jpegMagic) && !bytes.HasPrefix(head, pngMagic) {
		return 0, &pfc.ResponseError{Endpoint: string(epDownload), Reason: "the body is not a JPEG or PNG image"}
	}
	n, err := fileio.CopyLimited(dst, br, resp.ContentLength, c.maxDownload)
	switch {
	case errors.Is(err, pfc.ErrDownloadTooLarge):
		return n, &pfc.DownloadTooLargeError{Name: c.quote(corr.FileName(), apierr.MaxQuotedName), Limit: c.maxDownload, Written: n}
	case err != nil:
		return n, c.errorf("pfc: download of %s after %d bytes: %w", c.quote(corr.FileName(), apierr.MaxQuotedName), n, err)
	case resp.ContentLength >= 0 && n < resp.ContentLength:
		return n, c.errorf("pfc: download of %s: %w", c.quote(corr.FileName(), apierr.MaxQuotedName), fileio.ShortBody(nil, n, resp.ContentLength))
	}
	return n, nil
}

// DownloadFile writes the corrected file of corr to path atomically: the
// bytes go to a temporary file beside path, which is renamed over path
// only once complete and synced, so path is never half-written and is
// left untouched on failure. A new file gets mode 0644; an overwritten one
// keeps its mode.
func (c *Client) DownloadFile(ctx context.Context, corr *Correction, path string) (_ int64, err error) {
	return fileio.DownloadFile(nil, path, func(w io.Writer) (int64, error) { return c.Download(ctx, corr, w) })
}
