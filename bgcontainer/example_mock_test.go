package bgcontainer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http/httptest"
	"time"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// sample is a 64×48 PNG: a dark red box on a light grey backdrop.
func sample() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			c := color.NRGBA{R: 225, G: 228, B: 230, A: 255}
			if x > 21 && x < 42 && y > 12 && y < 36 {
				c = color.NRGBA{R: 150, G: 20, B: 30, A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// RemoveBackground does the whole job in one call, here against the
// in-process mock of the container: it activates the container with the
// client's licence key, submits the image, waits, downloads the PNG and
// removes the job from the container.
func ExampleClient_RemoveBackground() {
	bg, err := bgmock.New(bgmock.Options{})
	if err != nil {
		panic(err)
	}
	defer bg.Close()
	srv := httptest.NewServer(bg)
	defer srv.Close()

	c, err := bgcontainer.NewClient(bgmock.DefaultLicenseKey, pfc.WithBaseURL(srv.URL))
	if err != nil {
		panic(err)
	}
	defer c.CloseIdleConnections()
	in := sample()
	var out bytes.Buffer
	res, err := c.RemoveBackground(context.Background(), bytes.NewReader(in), int64(len(in)),
		&bgcontainer.SubmitOptions{Mode: bgcontainer.ModeGeneral}, &out, nil)
	if err != nil {
		panic(err)
	}
	img, err := png.Decode(&out)
	if err != nil {
		panic(err)
	}
	_, _, _, corner := img.At(0, 0).RGBA()
	_, _, _, centre := img.At(32, 24).RGBA()
	fmt.Println("activated:", res.Activated)
	fmt.Println("status:", res.Check.Status)
	fmt.Println("size:", img.Bounds().Size())
	fmt.Println("backdrop alpha:", corner>>8, "subject alpha:", centre>>8)
	fmt.Println("removed:", res.Removed.Status, res.Removed.FilesDeleted)
	fmt.Println("jobs left:", bg.JobCount())
	// Output:
	// activated: true
	// status: completed
	// size: (64,48)
	// backdrop alpha: 0 subject alpha: 255
	// removed: deleted 2
	// jobs left: 0
}

// A download of a job that is still queued or processing returns at once
// with ErrStillProcessing (the container answers a final HTTP 102).
func ExampleClient_DownloadImage_stillProcessing() {
	bg, err := bgmock.New(bgmock.Options{
		Activated:       true,
		Clock:           clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		ProcessingDelay: time.Second, // on a clock that never moves: processing for ever
	})
	if err != nil {
		panic(err)
	}
	defer bg.Close()
	srv := httptest.NewServer(bg)
	defer srv.Close()
	c, err := bgcontainer.NewClient(bgmock.DefaultLicenseKey, pfc.WithBaseURL(srv.URL))
	if err != nil {
		panic(err)
	}
	defer c.CloseIdleConnections()
	ctx := context.Background()
	in := sample()
	job, err := c.SubmitImage(ctx, bytes.NewReader(in), int64(len(in)), nil)
	if err != nil {
		panic(err)
	}
	_, err = c.DownloadImage(ctx, job.ProcessID, &bytes.Buffer{})
	fmt.Println(errors.Is(err, pfc.ErrStillProcessing))
	d, err := c.RemoveImage(ctx, job.ProcessID)
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Status)
	// Output:
	// true
	// deleted
}
