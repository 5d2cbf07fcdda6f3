// Command container corrects a folder of photos with the locally deployed
// correction container, twice: through the HTTP API (upload, correct,
// download) and through direct file mode (copy into the mounted /input,
// correct by file name, read from the mounted /output).
//
// With no flags it starts the container mock in-process (no licence file
// to provide, no network), corrects a few generated sample photos and
// exits 0:
//
//	go run ./examples/container
//
// Against a real container, give its URL, and for direct file mode the
// host directories mounted as its /input and /output (omit them to skip
// direct file mode):
//
//	go run ./examples/container -url http://localhost:80 -src ./photos -dst ./corrected \
//	    -input /srv/pfc/input -output /srv/pfc/output
//
// corrected_url is built on the container's PFC_SITE_URL, which defaults
// to http://localhost; -rebase (on by default) downloads from -url instead,
// which is what a client on another host needs.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

func main() {
	log.SetFlags(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		log.Fatalf("container: %v", err)
	}
}

// config is the command line.
type config struct {
	url, src, dst, input, output string
	rebase                       bool
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("container", flag.ContinueOnError)
	fs.StringVar(&cfg.url, "url", "", "base URL of a running correction container (default: the in-process mock)")
	fs.StringVar(&cfg.src, "src", "", "folder of JPEG/PNG photos to correct (default: generated samples)")
	fs.StringVar(&cfg.dst, "dst", "", "folder for the corrected photos (default: a temporary folder)")
	fs.StringVar(&cfg.input, "input", "", "host directory mounted as the container's /input (direct file mode)")
	fs.StringVar(&cfg.output, "output", "", "host directory mounted as the container's /output (direct file mode)")
	fs.BoolVar(&cfg.rebase, "rebase", true, "download corrected files from -url instead of the container's PFC_SITE_URL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if (cfg.input == "") != (cfg.output == "") {
		return errors.New("-input and -output go together")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()

	if cfg.url == "" {
		mock, err := startMock()
		if err != nil {
			return err
		}
		defer mock.close()
		cfg.url, cfg.input, cfg.output = mock.url, mock.container.InputDir(), mock.container.OutputDir()
		fmt.Fprintln(stdout, "using the in-process container mock")
	}
	if cfg.src == "" {
		dir, err := os.MkdirTemp("", "pfc-container-src-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if err := writeSamples(dir); err != nil {
			return err
		}
		cfg.src = dir
	}
	if cfg.dst == "" {
		dir, err := os.MkdirTemp("", "pfc-container-out-*")
		if err != nil {
			return err
		}
		cfg.dst = dir
	}
	c, err := pfccontainer.NewClient(pfc.WithBaseURL(cfg.url))
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	if cfg.rebase {
		c = c.RebaseCorrectedURLs()
	}
	v, err := c.Version(ctx)
	if err != nil {
		return fmt.Errorf("the container at %s does not answer /version: %w", cfg.url, err)
	}
	fmt.Fprintf(stdout, "container SDK %s, features %s\n", v.SDKVersion, strings.Join(v.Features, ", "))

	photos, err := listPhotos(cfg.src)
	if err != nil {
		return err
	}
	opts := pfccontainer.NewCorrection().WithOutput(pfc.OutputJPEG, 90).WithLong(1600)
	if err := correctOverHTTP(ctx, c, photos, filepath.Join(cfg.dst, "api"), opts, stdout); err != nil {
		return err
	}
	if cfg.input == "" {
		fmt.Fprintln(stdout, "direct file mode skipped (no -input/-output)")
		return nil
	}
	return correctDirect(ctx, c.Direct(cfg.input, cfg.output), photos, filepath.Join(cfg.dst, "direct"), opts, stdout)
}

// correctOverHTTP uploads, corrects and downloads each photo.
func correctOverHTTP(ctx context.Context, c *pfccontainer.Client, photos []string, dst string, o *pfccontainer.CorrectionOptions, stdout io.Writer) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, p := range photos {
		out := filepath.Join(dst, strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))+".jpg")
		corr, err := c.CorrectFile(ctx, p, out, o, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(p), err)
		}
		fmt.Fprintf(stdout, "api:    %s -> %s (scene %d)\n", filepath.Base(p), out, corr.Scene)
	}
	return nil
}

// correctDirect copies each photo into the mounted input directory,
// corrects it by name and copies the result out of the output directory,
// as <name>.jpg (o asks for JPEG, whatever the input's format).
func correctDirect(ctx context.Context, d *pfccontainer.Direct, photos []string, dst string, o *pfccontainer.CorrectionOptions, stdout io.Writer) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, p := range photos {
		out := filepath.Join(dst, strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))+".jpg")
		corr, err := d.CorrectFile(ctx, p, out, o, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(p), err)
		}
		fmt.Fprintf(stdout, "direct: %s -> %s (scene %d)\n", filepath.Base(p), out, corr.Scene)
	}
	return nil
}

// listPhotos returns the .jpg, .jpeg and .png files of dir.
func listPhotos(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".jpg", ".jpeg", ".png":
			if e.Type().IsRegular() {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no JPEG or PNG file in %s", dir)
	}
	return out, nil
}

// mock is the in-process container mock on a loopback port.
type mock struct {
	url       string
	container *pfcmock.Server
	srv       *http.Server
}

// startMock serves a container mock whose PFC_SITE_URL is its own
// address, so corrected_url works as it is.
func startMock() (*mock, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	url := "http://" + ln.Addr().String()
	c, err := pfcmock.New(pfcmock.Options{SiteURL: url})
	if err != nil {
		ln.Close()
		return nil, err
	}
	m := &mock{url: url, container: c, srv: &http.Server{Handler: c, ReadHeaderTimeout: 30 * time.Second}}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

func (m *mock) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = m.srv.Shutdown(ctx)
	_ = m.container.Close()
}

// writeSamples writes three generated photos into dir.
func writeSamples(dir string) error {
	for i, name := range []string{"beach.jpg", "portrait.jpg", "street.jpg"} {
		img := image.NewNRGBA(image.Rect(0, 0, 320+40*i, 240))
		b := img.Bounds()
		for y := range b.Dy() {
			for x := range b.Dx() {
				img.Set(x, y, color.NRGBA{R: uint8(40 + 150*x/b.Dx()), G: uint8(60 + 120*y/b.Dy() + 10*i), B: uint8(90 + (x+y)%7), A: 255})
			}
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
