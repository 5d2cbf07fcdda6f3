package pfccontainer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// exampleContainer serves a container mock on a loopback port, with
// PFC_SITE_URL set to its own address, and returns its URL, the mock and
// a stop function. In a test, pfcmock.Start does all this.
func exampleContainer() (string, *pfcmock.Server, func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	mock, err := pfcmock.New(pfcmock.Options{SiteURL: url})
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mock}
	go func() { _ = srv.Serve(ln) }()
	return url, mock, func() { _ = srv.Close(); _ = mock.Close() }
}

// exampleJPEG writes a w x h photo to a temporary file and returns its path.
func exampleJPEG(dir string, w, h int) string {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, photo(w, h, 0), nil); err != nil {
		log.Fatal(err)
	}
	p := filepath.Join(dir, "photo.jpg")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	return p
}

func printImage(path string) {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	cfg, format, err := image.DecodeConfig(f)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %dx%d\n", format, cfg.Width, cfg.Height)
}

// One call: a file in, the corrected file out.
func ExampleClient_CorrectFile() {
	url, _, stop := exampleContainer()
	defer stop()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)

	c, err := pfccontainer.NewClient(pfc.WithBaseURL(url))
	if err != nil {
		log.Fatal(err)
	}
	defer c.CloseIdleConnections()
	dst := filepath.Join(dir, "corrected.png")
	_, err = c.CorrectFile(context.Background(), exampleJPEG(dir, 400, 300), dst,
		pfccontainer.NewCorrection().WithOutput(pfc.OutputPNG, 0).WithLong(200), nil)
	if err != nil {
		log.Fatal(err)
	}
	printImage(dst)
	// Output:
	// png 200x150
}

// Step by step: upload, correct, download; a corrected_url built on an
// unreachable PFC_SITE_URL is rebased onto the client's base URL.
func ExampleClient_Correct() {
	url, _, stop := exampleContainer()
	defer stop()
	ctx := context.Background()

	c, err := pfccontainer.NewClient(pfc.WithBaseURL(url))
	if err != nil {
		log.Fatal(err)
	}
	defer c.CloseIdleConnections()
	var img bytes.Buffer
	_ = jpeg.Encode(&img, photo(300, 200, 1), nil)
	key, err := c.Upload(ctx, bytes.NewReader(img.Bytes()), int64(img.Len()), "") // type sniffed: image/jpeg
	if err != nil {
		log.Fatal(err)
	}
	corr, err := c.RebaseCorrectedURLs().GetCorrection(ctx, key, pfccontainer.NewCorrection().WithWidth(150))
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := c.Download(ctx, corr, &out); err != nil {
		log.Fatal(err)
	}
	cfg, format, _ := image.DecodeConfig(&out)
	fmt.Printf("%s %dx%d\n", format, cfg.Width, cfg.Height)

	// Errors carry the container's message id and retry decision.
	_, err = c.GetCorrection(ctx, key, pfccontainer.NewCorrection().WithPreset("No Such Preset"))
	var e *pfccontainer.Error
	if errors.As(err, &e) {
		fmt.Println(e.StatusCode, e.MessageID, e.Retryable)
	}
	// Output:
	// jpeg 150x100
	// 400 unknownPresetMessage false
}

// Direct file mode: the container's /input and /output are directories
// this program can reach.
func ExampleDirect_CorrectFile() {
	url, mock, stop := exampleContainer()
	defer stop()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)

	c, err := pfccontainer.NewClient(pfc.WithBaseURL(url))
	if err != nil {
		log.Fatal(err)
	}
	defer c.CloseIdleConnections()
	d := c.Direct(mock.InputDir(), mock.OutputDir())
	corr, err := d.CorrectFile(context.Background(), exampleJPEG(dir, 320, 240), "", pfccontainer.NewCorrection().WithScale(50), nil)
	if err != nil {
		log.Fatal(err)
	}
	out := corr.Path
	// The result is in the output directory, named after the copy placed
	// in the input directory: "pfc-<token>-1-photo.jpg", unique to the call.
	fmt.Println(filepath.Dir(out) == mock.OutputDir(), strings.HasSuffix(corr.FileName(), "-photo.jpg"))
	printImage(out)
	// Output:
	// true true
	// jpeg 160x120
}
