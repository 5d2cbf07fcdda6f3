package pfccontainer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/pfcsdk/pfc-go/internal/streamtest"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// BenchmarkContainerFlow runs the container flow for one small JPEG (PUT
// /pfc, GET /pfc/{imageKey}, download of corrected_url) against the
// in-process mock, unlicensed (the "corrected" file is the original, so
// processing is instant), through the SDK (Upload, Correct, Download) and
// through hand-written net/http calls making the same requests; "paired"
// runs both in each iteration, in alternating order, and reports their
// ratio.
//
//	go test ./pfccontainer -run '^$' -bench BenchmarkContainerFlow -benchmem -benchtime 2000x
func BenchmarkContainerFlow(b *testing.B) {
	ts := pfcmock.Start(b, &pfcmock.Options{Unlicensed: true, LogWriter: io.Discard})
	var buf bytes.Buffer
	buf.Write(jpegOf(b, 48, 40, 7))
	img := buf.Bytes()
	ctx := context.Background()
	c, hc := ts.Client, ts.Server.Client()
	sdk := func() error {
		key, err := c.Upload(ctx, bytes.NewReader(img), int64(len(img)), "")
		if err != nil {
			return err
		}
		corr, err := c.GetCorrection(ctx, key, nil)
		if err != nil {
			return err
		}
		_, err = c.Download(ctx, corr, io.Discard)
		return err
	}
	plain := func() error { return plainContainerFlow(ctx, hc, ts.URL, img) }
	for _, f := range []struct {
		name string
		fn   func() error
	}{{"sdk", sdk}, {"nethttp", plain}} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := f.fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("paired", func(b *testing.B) {
		var ts, tp time.Duration
		var sdkRuns, plainRuns []time.Duration
		i := 0
		for b.Loop() {
			for k := range 2 {
				t0 := time.Now()
				if (i+k)%2 == 0 {
					if err := sdk(); err != nil {
						b.Fatal(err)
					}
					ts += time.Since(t0)
					sdkRuns = append(sdkRuns, time.Since(t0))
				} else {
					if err := plain(); err != nil {
						b.Fatal(err)
					}
					tp += time.Since(t0)
					plainRuns = append(plainRuns, time.Since(t0))
				}
			}
			i++
		}
		b.ReportMetric(float64(ts.Nanoseconds())/float64(b.N), "sdk-ns/op")
		b.ReportMetric(float64(tp.Nanoseconds())/float64(b.N), "nethttp-ns/op")
		b.ReportMetric(float64(ts)/float64(tp), "sdk/nethttp")
		b.ReportMetric(float64(median(sdkRuns))/float64(median(plainRuns)), "median-sdk/nethttp")
	})
}

// plainContainerFlow is the container flow written against net/http.
func plainContainerFlow(ctx context.Context, hc *http.Client, base string, img []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, base+"/pfc", bytes.NewReader(img))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "image/jpeg")
	var up struct {
		ImageKey string `json:"imageKey"`
	}
	if err := doJSON(hc, req, &up); err != nil {
		return err
	}
	req, err = http.NewRequestWithContext(ctx, http.MethodGet, base+"/pfc/"+up.ImageKey, nil)
	if err != nil {
		return err
	}
	var corr struct {
		CorrectedURL string `json:"corrected_url"`
	}
	if err := doJSON(hc, req, &corr); err != nil {
		return err
	}
	req, err = http.NewRequestWithContext(ctx, http.MethodGet, corr.CorrectedURL, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("download: %s", resp.Status)
	}
	return err
}

func doJSON(hc *http.Client, req *http.Request, v any) error {
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", req.Method, req.URL.Path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// BenchmarkContainerUpload1GiB uploads a generated 1 GiB JPEG-looking
// stream with Upload (PUT /pfc) to an in-process server that discards it,
// and reports the peak heap growth (client and server in one process).
// Goal: at most 8 MiB.
//
//	go test ./pfccontainer -run '^$' -bench BenchmarkContainerUpload1GiB -benchtime 1x
func BenchmarkContainerUpload1GiB(b *testing.B) {
	const size = 1 << 30
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"imageKey":"k1.jpg"}`)
	}))
	defer srv.Close()
	c, err := pfccontainer.NewClient(pfc.WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	defer c.CloseIdleConnections()
	b.SetBytes(size)
	var worst int64
	for b.Loop() {
		growth := streamtest.PeakGrowth(func() {
			if _, err := c.Upload(context.Background(), streamtest.JPEG{Size: size}, size, ""); err != nil {
				b.Error(err)
			}
		})
		worst = max(worst, growth)
	}
	b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MiB")
}

// median returns the median of d (which it sorts).
func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}
