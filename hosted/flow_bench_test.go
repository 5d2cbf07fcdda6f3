package hosted_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// benchPoll is the polling of both flows: the job completes at once, and a
// status that is not terminal yet is asked again after 1 µs, so the
// figures measure requests, not sleeps.
const benchPoll = time.Microsecond

// startBenchMock starts the hosted mock with instant processing.
func startBenchMock(b *testing.B) *hostedmock.TestServer {
	b.Helper()
	return hostedmock.Start(b, &hostedmock.Options{Processor: instantProcessor},
		hosted.WithPolling(pfc.WaitOptions{MinDelay: benchPoll, MaxDelay: benchPoll}))
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
	c, err := hosted.NewClient(srv.APIKey, pfc.WithBaseURL(srv.URL), pfc.WithHTTPClient(&http.Client{Transport: sdkCount}),
		hosted.WithPolling(pfc.WaitOptions{MinDelay: benchPoll, MaxDelay: benchPoll}))
	if err != nil {
		b.Fatal(err)
	}
	plainCount := &countingTransport{next: srv.Server.Client().Transport}
	hc := &http.Client{Transport: plainCount}

	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		before := sdkCount.count("status")
		for b.Loop() {
			if _, err := c.Correct(ctx, bytes.NewReader(img), int64(len(img)), opts, io.Discard, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(sdkCount.count("status")-before)/float64(b.N), "status/op")
	})
	b.Run("nethttp", func(b *testing.B) {
		b.ReportAllocs()
		before := plainCount.count("status")
		for b.Loop() {
			if err := plainFlow(ctx, hc, srv.URL, srv.APIKey, img, "false"); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(plainCount.count("status")-before)/float64(b.N), "status/op")
	})
	// paired: each iteration runs both flows, in alternating order, and
	// times each, so both see the same load (the figures of a shared
	// machine drift between sub-benchmarks); sdk/nethttp is the ratio of
	// the sums, median-sdk/nethttp that of the medians (robust to spikes).
	// paired-cached starts every job with cache=true on an image the mock
	// has corrected before: the job completes within /pfc, so both flows
	// make exactly five requests and the ratio is the client's alone.
	for _, cached := range []bool{false, true} {
		name := "paired"
		o, plainCache := opts, "false"
		if cached {
			name, o, plainCache = "paired-cached", hosted.NewCorrection(), "true"
			if _, err := c.Correct(ctx, bytes.NewReader(img), int64(len(img)), o, io.Discard, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(name, func(b *testing.B) {
			var sdk, plain time.Duration
			var sdkRuns, plainRuns []time.Duration
			sdkStatus, plainStatus := sdkCount.count("status"), plainCount.count("status")
			i := 0
			for b.Loop() {
				for k := range 2 {
					t0 := time.Now()
					if (i+k)%2 == 0 {
						if _, err := c.Correct(ctx, bytes.NewReader(img), int64(len(img)), o, io.Discard, nil); err != nil {
							b.Fatal(err)
						}
						d := time.Since(t0)
						sdk += d
						sdkRuns = append(sdkRuns, d)
					} else {
						if err := plainFlow(ctx, hc, srv.URL, srv.APIKey, img, plainCache); err != nil {
							b.Fatal(err)
						}
						d := time.Since(t0)
						plain += d
						plainRuns = append(plainRuns, d)
					}
				}
				i++
			}
			b.ReportMetric(float64(sdk.Nanoseconds())/float64(b.N), "sdk-ns/op")
			b.ReportMetric(float64(plain.Nanoseconds())/float64(b.N), "nethttp-ns/op")
			b.ReportMetric(float64(sdk)/float64(plain), "sdk/nethttp")
			b.ReportMetric(float64(median(sdkRuns))/float64(median(plainRuns)), "median-sdk/nethttp")
			b.ReportMetric(float64(sdkCount.count("status")-sdkStatus)/float64(b.N), "sdk-status/op")
			b.ReportMetric(float64(plainCount.count("status")-plainStatus)/float64(b.N), "nethttp-status/op")
		})
	}
}

// plainFlow is the hosted flow written against net/http alone.
func plainFlow(ctx context.Context, hc *http.Client, base, key string, img []byte, cache string) error {
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
	if err := getJSON(ctx, hc, base+"/pfc?cache="+cache+"&fileKey="+url.QueryEscape(ticket.FileKey), key, &started); err != nil {
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

// median returns the median of d (which it sorts).
func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}
