// Command bgremove removes the background of an image, or of every JPEG
// and PNG in a folder, with the background-removal container: each
// result is a PNG of the subject on transparency, named after its input.
//
// With no flags it starts the container mock in-process (no licence key
// to provide, no GPU, no network), cuts out a few generated sample images
// and exits 0:
//
//	go run ./examples/bgremove
//
// Against a real container, give its URL and licence key (the key can
// also come from the environment variable PFC_BG_LICENSE_KEY, which keeps
// it out of the process list):
//
//	PFC_BG_LICENSE_KEY=... go run ./examples/bgremove -url http://gpu-box:8000 -src ./photos -dst ./cutouts
//
// The client activates the container with the key when it answers that
// it is not activated yet, and removes every job from the container
// afterwards, also when a job fails or the command is interrupted.
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
	"image/png"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

func main() {
	log.SetFlags(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		log.Fatalf("bgremove: %v", err)
	}
}

// config is the command line.
type config struct {
	url, key, src, dst, mode string
	post                     bool
	timeout                  time.Duration
}

// run is the command; the usage and flag errors go to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("bgremove", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.url, "url", "", "base URL of a running background-removal container (default: the in-process mock)")
	// The key's default stays empty, read from the environment after
	// Parse: a flag's default is printed by -h.
	fs.StringVar(&cfg.key, "license-key", "", "licence key of the container (default: $PFC_BG_LICENSE_KEY; the mock's own with no -url)")
	fs.StringVar(&cfg.src, "src", "", "an image, or a folder of JPEG/PNG images (default: generated samples)")
	fs.StringVar(&cfg.dst, "dst", "", "folder for the cut-outs (default: a temporary folder)")
	fs.StringVar(&cfg.mode, "mode", "general", "segmentation mode: general or portrait")
	fs.BoolVar(&cfg.post, "postprocessing", true, "reduce colour spill on the subject's edges")
	fs.DurationVar(&cfg.timeout, "timeout", 5*time.Minute, "bound on the wait for each image")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !flagSet(fs, "license-key") {
		cfg.key = os.Getenv("PFC_BG_LICENSE_KEY")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if cfg.url == "" {
		mock, err := startMock()
		if err != nil {
			return err
		}
		defer mock.close()
		cfg.url, cfg.key = mock.url, bgmock.DefaultLicenseKey
		fmt.Fprintln(stdout, "using the in-process background-removal mock")
	}
	if cfg.key == "" {
		return errors.New("-license-key (or PFC_BG_LICENSE_KEY) is required with -url")
	}
	if cfg.src == "" {
		dir, err := os.MkdirTemp("", "pfc-bgremove-src-*")
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
		dir, err := os.MkdirTemp("", "pfc-bgremove-out-*")
		if err != nil {
			return err
		}
		cfg.dst = dir
	} else if err := os.MkdirAll(cfg.dst, 0o755); err != nil {
		return err
	}
	images, err := listImages(cfg.src)
	if err != nil {
		return err
	}

	c, err := bgcontainer.NewClient(cfg.key, pfc.WithBaseURL(cfg.url))
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	st, err := c.Status(ctx)
	if err != nil {
		return fmt.Errorf("the container at %s does not answer /Status: %w", cfg.url, err)
	}
	fmt.Fprintf(stdout, "container model %s, licence %s\n", st.ModelVersion, st.Status)

	opts := &bgcontainer.SubmitOptions{Mode: bgcontainer.Mode(cfg.mode), Postprocessing: bgcontainer.Bool(cfg.post)}
	flow := &pfc.FlowOptions{Wait: &pfc.WaitOptions{MaxWait: cfg.timeout}}
	failed := 0
	for _, in := range images {
		out := filepath.Join(cfg.dst, strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))+".png")
		res, err := c.RemoveBackgroundFile(ctx, in, out, opts, flow)
		switch {
		case errors.Is(err, pfc.ErrInvalidParameter):
			return err // a bad flag: every image would fail the same way
		case errors.Is(err, context.Canceled):
			return err
		case err != nil:
			failed++
			fmt.Fprintf(stdout, "%s: %v\n", filepath.Base(in), err)
			continue
		}
		if res.Activated {
			fmt.Fprintln(stdout, "activated the container with the licence key")
		}
		fmt.Fprintf(stdout, "%s -> %s (%d bytes, %s processing)\n", filepath.Base(in), out, res.Bytes, res.Check.ProcessingTime.Round(time.Millisecond))
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d images failed", failed, len(images))
	}
	return nil
}

// flagSet reports whether the command line set the flag name (to any
// value, "" included).
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// listImages returns src if it is a file, else the JPEG and PNG files in
// the folder src (not its subfolders).
func listImages(src string) ([]string, error) {
	st, err := os.Stat(src)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{src}, nil
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".jpg", ".jpeg", ".png":
			if e.Type().IsRegular() {
				out = append(out, filepath.Join(src, e.Name()))
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no JPEG or PNG images in %s", src)
	}
	return out, nil
}

// mock is the in-process container mock on a local listener.
type mock struct {
	url string
	bg  *bgmock.Server
	srv *http.Server
}

// startMock serves a bgmock.Server on a free local port. It starts
// unactivated, like a real container: the client applies the key.
func startMock() (*mock, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b, err := bgmock.New(bgmock.Options{})
	if err != nil {
		ln.Close()
		return nil, err
	}
	m := &mock{url: "http://" + ln.Addr().String(), bg: b, srv: &http.Server{Handler: b, ReadHeaderTimeout: 30 * time.Second}}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

func (m *mock) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = m.srv.Shutdown(ctx)
	_ = m.bg.Close()
}

// writeSamples writes three generated images into dir: a coloured subject
// on a light backdrop.
func writeSamples(dir string) error {
	subjects := []color.NRGBA{{R: 150, G: 20, B: 30, A: 255}, {R: 20, G: 40, B: 140, A: 255}, {R: 30, G: 110, B: 40, A: 255}}
	for i, name := range []string{"mug.png", "shoe.jpg", "plant.png"} {
		w, h := 240+40*i, 180
		img := image.NewNRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				c := color.NRGBA{R: 228, G: 230, B: 232, A: 255}
				if x > w/3 && x < 2*w/3 && y > h/5 && y < 4*h/5 {
					c = subjects[i]
				}
				img.SetNRGBA(x, y, c)
			}
		}
		var buf bytes.Buffer
		var err error
		if strings.HasSuffix(name, ".jpg") {
			err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92})
		} else {
			err = png.Encode(&buf, img)
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
