package hosted_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver"
)

// benchPoll is the polling of both flows: the job completes at once, and a
// status that is not terminal yet is asked again after 1 µs, so the
// figures measure requests, not sleeps.
const benchPoll = time.Microsecond

// startBenchMock starts the hosted mock with instant processing.
func startBenchMock(b *testing.B) *mockserver.HostedTestServer {
	b.Helper()
	return mockserver.StartHosted(b, &mockserver.HostedOptions{Processor: instantProcessor},
		hosted.WithPolling(hosted.WaitOptions{MinDelay: benchPoll, MaxDelay: benchPoll}))
}

// BenchmarkHostedFlow runs the whole hosted flow for one small JPEG
// (upload ticket, upload, start with cache=false, status until done,
// download) against the in-process mock with instant processing, through
// the SDK (Client.Correct) and through hand-written net/http calls making
// the same requests over the same connection pool. The ratio of the two
// is the SDK's overhead.
//
//	go test ./hosted -run '^$' -bench BenchmarkHostedFlow -benchmem
func BenchmarkHostedFlow(b *testing.B) {
	srv := startBenchMock(b)
	img := smallJPEG(b, 7, 48, 40)
	opts := hosted.NewCorrection().WithCache(false)
	ctx := context.Background()
	// Both flows count their requests through the same kind of transport.
	sdkCount := &countingTransport{next: srv.Server.Client().Transport}
	c, err := hosted.NewClient(srv.APIKey, hosted.WithBaseURL(srv.URL), hosted.WithHTTPClient(&http.Client{Transport: sdkCount}),
		hosted.WithPolling(hosted.WaitOptions{MinDelay: benchPoll, MaxDelay: benchPoll}))
	if err != nil {
		b.Fatal(err)
	}
	plainCount := &countingTransport{next: srv.Server.Client().Transport}
	hc := &http.Client{Transport: plainCount}

	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		before := sdkCount.count("status")
		for b.Loop() {
			if _, err := c.Correct(ctx, bytes.NewReader(img), int64(len(img)), opts, io.Discard); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(sdkCount.count("status")-before)/float64(b.N), "status/op")
	})
	b.Run("nethttp", func(b *testing.B) {
		b.ReportAllocs()
		before := plainCount.count("status")
		for b.Loop() {
			if err := plainFlow(ctx, hc, srv.URL, srv.APIKey, img); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(plainCount.count("status")-before)/float64(b.N), "status/op")
	})
	// paired: each iteration runs both flows, in alternating order, and
	// times each, so both see the same load (the figures of a shared
	// machine drift between sub-benchmarks); sdk/nethttp is the ratio.
	b.Run("paired", func(b *testing.B) {
		var sdk, plain time.Duration
		i := 0
		for b.Loop() {
			for k := range 2 {
				t0 := time.Now()
				if (i+k)%2 == 0 {
					if _, err := c.Correct(ctx, bytes.NewReader(img), int64(len(img)), opts, io.Discard); err != nil {
						b.Fatal(err)
					}
					sdk += time.Since(t0)
				} else {
					if err := plainFlow(ctx, hc, srv.URL, srv.APIKey, img); err != nil {
						b.Fatal(err)
					}
					plain += time.Since(t0)
				}
			}
			i++
		}
		b.ReportMetric(float64(sdk.Nanoseconds())/float64(b.N), "sdk-ns/op")
		b.ReportMetric(float64(plain.Nanoseconds())/float64(b.N), "nethttp-ns/op")
		b.ReportMetric(float64(sdk)/float64(plain), "sdk/nethttp")
	})
}

// plainFlow is the hosted flow written against net/http alone.
func plainFlow(ctx context.Context, hc *http.Client, base, key string, img []byte) error {
	var ticket struct {
		FileKey   string `json:"fileKey"`
		UploadURL string `json:"uploadUrl"`
	}
	if err := getJSON(ctx, hc, base+"/upload?fileType=image", key, &ticket); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, ticket.UploadURL, bytes.NewReader(img))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "image/jpeg")
	if err := drain(hc.Do(req)); err != nil {
		return err
	}
	var started struct {
		StatusEndpoint string `json:"statusEndpoint"`
	}
	if err := getJSON(ctx, hc, base+"/pfc?cache=false&fileKey="+url.QueryEscape(ticket.FileKey), key, &started); err != nil {
		return err
	}
	var job struct {
		Status        string `json:"status"`
		CorrectedFile string `json:"correctedFile"`
	}
	for {
		if err := getJSON(ctx, hc, started.StatusEndpoint+"?noRedirect=true", key, &job); err != nil {
			return err
		}
		if job.Status == "COMPLETED" {
			break
		}
		if job.Status != "PENDING" && job.Status != "PROCESSING" {
			return fmt.Errorf("job %s", job.Status)
		}
		time.Sleep(benchPoll)
	}
	req, err = http.NewRequestWithContext(ctx, http.MethodGet, job.CorrectedFile, nil)
	if err != nil {
		return err
	}
	return drain(hc.Do(req))
}

// getJSON GETs u with the API key and decodes the 200 answer into v.
func getJSON(ctx context.Context, hc *http.Client, u, key string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("X-API-KEY", key)
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// drain reads and closes a response, failing on a non-2xx status.
func drain(resp *http.Response, err error) error {
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s", resp.Request.Method, resp.Request.URL.Path, resp.Status)
	}
	return nil
}
