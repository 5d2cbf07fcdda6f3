// Command quickstart corrects a photo through the hosted API v2 client.
//
// With PFC_API_KEY unset it starts the mock hosted API in-process (no keys,
// no network), corrects a bundled sample photo twice (AI preset selection;
// the background replaced by a colour, resized) and writes the results to
// ./quickstart-out/. With a path argument it corrects that file instead.
// With PFC_API_KEY and PFC_BASE_URL set it talks to that service (PFC_API_KEY
// alone is an error: the real service's address is not guessed).
//
//	go run ./examples/quickstart [photo.jpg]
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"log"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

//go:embed sample.jpg
var sample []byte

const outDir = "quickstart-out"

func main() {
	log.SetFlags(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		log.Fatalf("quickstart: %v", err)
	}
}

func run(ctx context.Context, args []string) error {
	client, where, shutdown, err := connect()
	if err != nil {
		return err
	}
	defer shutdown()
	fmt.Println("using", where)

	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	input := filepath.Join(outDir, "sample.jpg")
	switch {
	case len(args) > 1:
		return errors.New("usage: quickstart [photo.jpg|photo.png]")
	case len(args) == 1:
		input = args[0]
	default:
		if err := os.WriteFile(input, sample, 0o644); err != nil {
			return err
		}
	}
	base := strings.TrimSuffix(filepath.Base(input), filepath.Ext(input))

	jobs := []struct {
		name string
		out  string
		opts *hosted.CorrectionOptions
	}{
		{"AI preset", base + "-ai" + filepath.Ext(input),
			hosted.NewCorrection().WithDetectionData()},
		{"background to colour, resized", base + "-bg.png",
			hosted.NewCorrection().WithBackgroundColor("lightsteelblue").WithLong(384)},
	}
	for _, j := range jobs {
		out := filepath.Join(outDir, j.out)
		start := time.Now()
		progress := func(id, status string) { fmt.Printf("%s: job %s is %s\n", j.name, id, status) }
		job, err := client.CorrectFile(ctx, input, out, j.opts,
			&pfc.FlowOptions{Wait: &pfc.WaitOptions{OnProgress: progress}})
		if err != nil {
			return fmt.Errorf("%s: %w", j.name, err)
		}
		record, _ := json.MarshalIndent(job, "", "  ")
		fmt.Printf("\n%s job record:\n%s\n", j.name, record)
		fmt.Println(summary(j.name, job, out, time.Since(start)))
	}
	return nil
}

// connect returns a client for the service named by PFC_API_KEY and
// PFC_BASE_URL, or for an in-process mock when PFC_API_KEY is unset.
func connect() (*hosted.Client, string, func(), error) {
	if key := os.Getenv("PFC_API_KEY"); key != "" {
		base := os.Getenv("PFC_BASE_URL")
		if base == "" {
			return nil, "", nil, errors.New("PFC_API_KEY is set but PFC_BASE_URL is not (the API's base URL, ending in /v2)")
		}
		c, err := hosted.NewClient(key, pfc.WithBaseURL(base))
		return c, base, func() {}, err
	}
	mock, err := hostedmock.New(hostedmock.Options{})
	if err != nil {
		return nil, "", nil, err
	}
	srv := httptest.NewServer(mock)
	shutdown := func() {
		srv.Close()
		mock.Close()
	}
	c, err := hosted.NewClient(hostedmock.DefaultAPIKey, pfc.WithBaseURL(srv.URL+"/v2"),
		hosted.WithPolling(pfc.WaitOptions{MinDelay: 50 * time.Millisecond, MaxDelay: time.Second}))
	if err != nil {
		shutdown()
		return nil, "", nil, err
	}
	return c, "the in-process mock at " + srv.URL + "/v2", shutdown, nil
}

func summary(name string, job *hosted.Job, out string, took time.Duration) string {
	size := "?"
	if f, err := os.Open(out); err == nil {
		if cfg, format, err := image.DecodeConfig(f); err == nil {
			size = fmt.Sprintf("%dx%d %s", cfg.Width, cfg.Height, format)
		}
		f.Close()
	}
	from := "?"
	if d := job.OriginalDimensions; d != nil {
		from = fmt.Sprintf("%dx%d", d.Width, d.Height)
	}
	line := fmt.Sprintf("%s: job %s %s in %s, %s -> %s, written to %s", name, job.ID, job.Status, took.Round(time.Millisecond), from, size, out)
	if dd := job.DetectionData; dd != nil {
		line += fmt.Sprintf(" (scene %d, %d face(s))", dd.Scene, dd.FacesCount)
	}
	return line
}
