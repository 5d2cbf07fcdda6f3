package hosted_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// BenchmarkMockStatus measures the hosted mock's GET /v2/status/{id}
// (noRedirect=true, a COMPLETED job) with plain net/http clients, 8
// requests in flight over kept-alive connections. Client and server share
// the machine's cores, so the server alone does more. Goal: at least 5,000
// requests per second on 2 cores.
//
//	go test ./hosted -run '^$' -bench BenchmarkMockStatus -benchtime 20000x
func BenchmarkMockStatus(b *testing.B) {
	srv := hostedmock.Start(b, &hostedmock.Options{Processor: instantProcessor})
	img := smallJPEG(b, 1, 48, 40)
	job, err := srv.Client.Correct(context.Background(), bytes.NewReader(img), int64(len(img)), nil, io.Discard, nil)
	if err != nil {
		b.Fatal(err)
	}
	tr := srv.Server.Client().Transport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	u := srv.URL + "/status/" + job.ID + "?noRedirect=true"
	b.SetParallelism(4) // 4 × GOMAXPROCS (2) = 8 in flight
	b.ReportAllocs()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodGet, u, nil)
			req.Header.Set("X-API-KEY", srv.APIKey)
			resp, err := hc.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "COMPLETED") {
				b.Errorf("%s: %s", resp.Status, body)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}

// BenchmarkMockJobs measures jobs per second end to end with instant
// processing: the whole hosted flow (ticket, upload, /pfc with
// cache=false, status, download) through the SDK, 8 flows at once, client
// and mock in one process.
//
//	go test ./hosted -run '^$' -bench BenchmarkMockJobs -benchtime 2000x
func BenchmarkMockJobs(b *testing.B) {
	srv := hostedmock.Start(b, &hostedmock.Options{Processor: instantProcessor},
		hosted.WithPolling(pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}))
	img := smallJPEG(b, 7, 48, 40)
	opts := hosted.NewCorrection().WithCache(false)
	b.SetParallelism(4)
	b.ReportAllocs()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := srv.Client.Correct(context.Background(), bytes.NewReader(img), int64(len(img)), opts, io.Discard, nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "jobs/s")
}
