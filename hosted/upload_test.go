package hosted

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

func TestRequestUpload(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", "https://api.example.test/v2/upload?fileType=video", 200,
		map[string]string{"fileKey": "fk1", "uploadUrl": "https://store.test/u/fk1?sig=abc"})
	tk, err := c.RequestUpload(context.Background(), FileTypeVideo)
	require.NoError(t, err)
	assert.Equal(t, &UploadTicket{FileKey: "fk1", UploadURL: "https://store.test/u/fk1?sig=abc"}, tk)

	// Default file type: no query parameter at all.
	expectAPI(t, mt, "GET", "https://api.example.test/v2/upload", 200,
		map[string]string{"fileKey": "fk2", "uploadUrl": "https://store.test/u/fk2"})
	tk, err = c.RequestUpload(context.Background(), "")
	require.NoError(t, err)
	assert.Equal(t, "fk2", tk.FileKey)

	_, err = c.RequestUpload(context.Background(), "gif")
	assert.ErrorIs(t, err, pfc.ErrInvalidParameter)
	assert.Equal(t, 2, mt.GetTotalCallCount(), "an invalid fileType sends nothing")
}

func TestUploadToSendsNoKeyAndExactLength(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	payload := bytes.Repeat([]byte("pixel"), 1000)
	expectExternal(t, mt, "PUT", "https://store.test/u/fk1?sig=abc", func(r *http.Request) (*http.Response, error) {
		assert.Equal(t, int64(len(payload)), r.ContentLength)
		assert.Equal(t, "image/jpeg", r.Header.Get("Content-Type"))
		got, _ := io.ReadAll(r.Body)
		assert.Equal(t, payload, got)
		return httpmock.NewStringResponse(200, ""), nil
	})
	err := c.UploadTo(context.Background(), &UploadTicket{FileKey: "fk1", UploadURL: "https://store.test/u/fk1?sig=abc"},
		bytes.NewReader(payload), int64(len(payload)), "image/jpeg")
	require.NoError(t, err)

	var ve *pfc.ValidationError
	err = c.UploadTo(context.Background(), &UploadTicket{}, nil, -1, "")
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"uploadUrl", "src", "size"}, ve.Fields())
	err = c.UploadTo(context.Background(), &UploadTicket{FileKey: "fk1", UploadURL: "https://store.test/u/fk1?sig=abc"}, (*bytes.Reader)(nil), 5, "")
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"src"}, ve.Fields())
}

func TestUploadErrorRedactsSignature(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	expectExternal(t, mt, "PUT", `=~^https://store\.test/`, func(r *http.Request) (*http.Response, error) {
		return httpmock.NewStringResponse(403, "<Error><Code>SignatureDoesNotMatch</Code><Message>bad signature</Message></Error>"), nil
	})
	err := c.UploadTo(context.Background(), &UploadTicket{UploadURL: "https://store.test/u/k?X-Signature=topsecretsignature99"},
		strings.NewReader("abc"), 3, "")
	var apiErr *pfc.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 403, apiErr.StatusCode)
	assert.ErrorIs(t, err, pfc.ErrUnauthorized)
	assert.NotContains(t, err.Error(), "topsecretsignature99")
	assert.NotContains(t, apiErr.URL, "topsecretsignature99")
}

func TestFileTypeAndContentType(t *testing.T) {
	t.Parallel()
	assert.Equal(t, FileTypeVideo, fileTypeOf("a/b.MOV"))
	assert.Equal(t, FileTypeImage, fileTypeOf("a/b.jpeg"))
	assert.Equal(t, "image/png", contentTypeOf("x.PNG"))
	assert.Equal(t, "video/mp4", contentTypeOf("x.mp4"))
}
