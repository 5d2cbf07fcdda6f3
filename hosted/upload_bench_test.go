package hosted

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/pfcsdk/pfc-go/internal/streamtest"
	"github.com/pfcsdk/pfc-go/pfc"
)

// BenchmarkUpload1GiB uploads a generated 1 GiB file through Upload
// (upload ticket, then the pre-signed PUT) to an in-process server that
// discards it, and reports the peak heap growth (client and server in the
// same process) and the throughput. Goal: at most 8 MiB.
//
//	go test ./hosted -run '^$' -bench BenchmarkUpload1GiB -benchtime 1x
func BenchmarkUpload1GiB(b *testing.B) {
	const size = 1 << 30
	var srvURL string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"fileKey":"k1","uploadUrl":"`+srvURL+`/store/k1?sig=x"}`)
		case http.MethodPut:
			_, _ = io.Copy(io.Discard, r.Body)
		}
	}))
	defer srv.Close()
	srvURL = srv.URL
	c, err := NewClient(testKey, pfc.WithBaseURL(srv.URL+"/v2"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	var worst int64
	for b.Loop() {
		growth := streamtest.PeakGrowth(func() {
			if _, err := c.Upload(context.Background(), FileTypeVideo, streamtest.Pattern{Size: size}, size, "video/mp4"); err != nil {
				b.Error(err)
			}
		})
		worst = max(worst, growth)
	}
	b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MiB")
}
