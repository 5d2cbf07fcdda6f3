package hosted_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// startMock runs the hosted API mock in-process, as a test would with
// hostedmock.Start, and returns a client for it.
func startMock() (*hosted.Client, func()) {
	mock, err := hostedmock.New(hostedmock.Options{})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(mock)
	client, err := hosted.NewClient(hostedmock.DefaultAPIKey,
		pfc.WithBaseURL(srv.URL+"/v2"),
		hosted.WithPolling(pfc.WaitOptions{MinDelay: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond}))
	if err != nil {
		log.Fatal(err)
	}
	return client, func() { srv.Close(); mock.Close() }
}

// photo returns a small PNG with a warm colour cast.
func photo() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 320, 240))
	for y := range 240 {
		for x := range 320 {
			v := uint8(40 + x/2)
			img.SetNRGBA(x, y, color.NRGBA{R: v + 50, G: v + uint8(y/8), B: v / 2, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		log.Fatal(err)
	}
	return b.Bytes()
}

// Upload a photo, correct it with a preset and a resize, and download the
// result: one call.
func ExampleClient_Correct() {
	client, stop := startMock()
	defer stop()
	ctx := context.Background()

	src := photo()
	var out bytes.Buffer
	opts := hosted.NewCorrection().WithPreset(hosted.PresetPro).WithLong(160)
	job, err := client.Correct(ctx, bytes.NewReader(src), int64(len(src)), opts, &out, nil)
	if err != nil {
		log.Fatal(err)
	}
	cfg, _ := png.DecodeConfig(&out)
	fmt.Println(job.Status, job.OriginalDimensions.Width, "x", job.OriginalDimensions.Height, "->", cfg.Width, "x", cfg.Height)
	fmt.Println("corrections:", job.Usage.ImageCorrectionCount, "classic resizes:", job.Usage.ClassicResizeCount)
	// Output:
	// COMPLETED 320 x 240 -> 160 x 120
	// corrections: 1 classic resizes: 1
}

// Run the steps one by one and watch the job while waiting for it.
func ExampleClient_Wait() {
	client, stop := startMock()
	defer stop()
	ctx := context.Background()

	src := photo()
	fileKey, err := client.Upload(ctx, hosted.FileTypeImage, bytes.NewReader(src), int64(len(src)), "image/png")
	if err != nil {
		log.Fatal(err)
	}
	ref, err := client.StartJob(ctx, hosted.NewCorrection().WithFileKey(fileKey).WithDetectionData())
	if err != nil {
		log.Fatal(err)
	}
	polls := 0
	job, err := client.Wait(ctx, ref.ID, &pfc.WaitOptions{
		MinDelay:   10 * time.Millisecond,
		MaxDelay:   200 * time.Millisecond,
		MaxWait:    time.Minute,
		OnProgress: func(jobID, status string) { polls++ },
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.Status, "after at least one poll:", polls >= 1)
	fmt.Println("detection data:", job.DetectionData != nil)
	// Output:
	// COMPLETED after at least one poll: true
	// detection data: true
}

// Create a preset from a file, use it by name, list presets, delete it.
func ExamplePresetsService() {
	client, stop := startMock()
	defer stop()
	ctx := context.Background()

	file := "group = Universal\ncontrast = 0.4\nvibrance = 0.5\n"
	p, err := client.Presets.Create(ctx, hosted.CreatePresetRequest{
		Name: "Punchy", Description: "more contrast", FileName: "punchy.preset",
	}, strings.NewReader(file), int64(len(file)))
	if err != nil {
		log.Fatal(err)
	}

	src := photo()
	job, err := client.Correct(ctx, bytes.NewReader(src), int64(len(src)), hosted.NewCorrection().WithPreset("Punchy"), &bytes.Buffer{}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("corrected with Punchy:", job.Status)

	for preset, err := range client.Presets.All(ctx, 10) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("preset:", preset.Name, "-", preset.Description)
	}
	if err := client.Presets.Delete(ctx, p.ID); err != nil {
		log.Fatal(err)
	}
	// Output:
	// corrected with Punchy: COMPLETED
	// preset: Punchy - more contrast
}
