package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// BenchmarkRequestOverhead compares one request through the Client with
// the same request made with net/http alone, over the same connection
// pool, against a loopback server that answers a small JSON object: an API
// GET decoded as JSON (with a query and the credential header), and a PUT
// of 4 KiB to a pre-signed-looking external URL (four long query values).
// The difference per request, in time and allocations, is the transport's
// own cost.
//
//	go test ./internal/transport -run '^$' -bench BenchmarkRequestOverhead -benchmem
func BenchmarkRequestOverhead(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"fileKey":"0123456789abcdef","uploadUrl":"https://example.com/u"}`)
	}))
	b.Cleanup(srv.Close)
	hc := srv.Client()
	b.Cleanup(hc.CloseIdleConnections)
	c, err := New(Options{BaseURL: srv.URL + "/v2", AuthHeader: "X-API-KEY", AuthValue: "k-0123456789abcdef", HTTPClient: hc})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	payload := bytes.Repeat([]byte{0xAB}, 4096)
	signed := srv.URL + "/bucket/obj.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256" +
		"&X-Amz-Credential=AKIAEXAMPLE%2F20261123%2Fus-east-1%2Fs3%2Faws4_request" +
		"&X-Amz-Date=20261123T180000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host" +
		"&X-Amz-Signature=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	type ticket struct {
		FileKey   string `json:"fileKey"`
		UploadURL string `json:"uploadUrl"`
	}

	b.Run("api-json/sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var t ticket
			if err := c.DoJSON(ctx, &Request{Path: "upload", Query: url.Values{"fileType": {"image"}}}, &t); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("api-json/nethttp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v2/upload?fileType=image", nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("X-API-KEY", "k-0123456789abcdef")
			req.Header.Set("Accept", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var t ticket
			err = json.NewDecoder(resp.Body).Decode(&t)
			resp.Body.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("external-put/sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resp, err := c.DoExternal(ctx, http.MethodPut, signed, nil, BytesBody(payload, "image/jpeg"))
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	b.Run("external-put/nethttp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req, err := http.NewRequestWithContext(ctx, http.MethodPut, signed, bytes.NewReader(payload))
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Content-Type", "image/jpeg")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}
