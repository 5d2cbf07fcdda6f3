// Command pfc-mockserver serves mocks of the correction APIs for
// integration tests and local development, each on its own listener:
//
//	go run ./mockserver/cmd/pfc-mockserver [flags]
//
// Flags:
//
//	-hosted-addr     listen address of the hosted API v2 mock (default 127.0.0.1:8080)
//	-container-addr  listen address of the correction container mock (default 127.0.0.1:8081)
//	-bg-addr         listen address of the background-removal container mock (default 127.0.0.1:8000)
//	-api-key         API key of the hosted mock (default test-api-key)
//	-license-key     license key of the container mocks (default test-license-key)
//	-data-dir        directory for uploaded and corrected files (default: a temporary
//	                 directory); a private subdirectory is created and removed on exit
//	-time-scale      factor applied to every simulated duration (default 1; 0.001
//	                 runs the 48-minute webhook retry schedule in under 3 seconds);
//	                 timestamps (job records, webhook-timestamp) stay wall-clock
//	-webhook-ca      PEM file of CAs trusted for webhook delivery, besides the system roots
//
// An empty address disables that backend; port 0 picks a free port. When
// ready, the command prints one line per backend on stdout, e.g.
//
//	hosted: http://127.0.0.1:8080/v2
//
// and logs JSON to stderr; a listener on every interface (":8080") is
// printed as 127.0.0.1. SIGINT or SIGTERM shut it down cleanly (exit
// status 0): requests in flight get 10 seconds to finish, then their
// connections are closed (exit status 1), and the data directory is
// removed once nothing writes to it any more. The container and
// background-removal mocks are not implemented yet: their flags are
// accepted, a note is logged, and no line is printed for them.
//
// See package mockserver for the mocks' behaviour.
package main

import (
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// shutdownTimeout bounds the wait for in-flight requests on shutdown; the
// connections still busy then are closed. A variable for the tests.
var shutdownTimeout = 10 * time.Second

// run is the whole command; it returns the exit status. It serves until
// ctx is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pfc-mockserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hostedAddr := fs.String("hosted-addr", "127.0.0.1:8080", "listen address of the hosted API v2 mock; empty disables it")
	containerAddr := fs.String("container-addr", "127.0.0.1:8081", "listen address of the correction container mock (not implemented yet); empty disables it")
	bgAddr := fs.String("bg-addr", "127.0.0.1:8000", "listen address of the background-removal container mock (not implemented yet); empty disables it")
	apiKey := fs.String("api-key", mockserver.DefaultAPIKey, "API key of the hosted mock")
	licenseKey := fs.String("license-key", "test-license-key", "license key of the container mocks")
	dataDir := fs.String("data-dir", "", "directory for uploaded and corrected files (default: a temporary directory)")
	timeScale := fs.Float64("time-scale", 1, "factor applied to every simulated duration (0.001 = a thousand times faster)")
	webhookCA := fs.String("webhook-ca", "", "PEM file of CAs trusted for webhook delivery, besides the system roots")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pfc-mockserver: unexpected arguments: %v\n", fs.Args())
		return 2
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	fail := func(format string, args ...any) int {
		log.Error(fmt.Sprintf(format, args...))
		return 2
	}
	if *apiKey == "" {
		return fail("-api-key must not be empty")
	}
	_ = *licenseKey // used by the container mocks once they exist

	clk := clock.Real()
	if *timeScale != 1 {
		scaled, err := clock.NewScaled(*timeScale)
		if err != nil {
			return fail("-time-scale: %v", err)
		}
		clk = scaled
	}
	var cas *x509.CertPool
	if *webhookCA != "" {
		pem, err := os.ReadFile(*webhookCA)
		if err != nil {
			return fail("-webhook-ca: %v", err)
		}
		if cas, err = x509.SystemCertPool(); err != nil || cas == nil {
			cas = x509.NewCertPool()
		}
		if !cas.AppendCertsFromPEM(pem) {
			return fail("-webhook-ca: no PEM certificate found in %s", *webhookCA)
		}
	}
	if *dataDir != "" {
		if err := os.MkdirAll(*dataDir, 0o700); err != nil {
			return fail("-data-dir: %v", err)
		}
	}
	for _, b := range []struct{ flag, addr string }{{"-container-addr", *containerAddr}, {"-bg-addr", *bgAddr}} {
		if b.addr != "" {
			log.Warn("backend not implemented yet; flag ignored", "flag", b.flag, "addr", b.addr)
		}
	}
	if *hostedAddr == "" {
		return fail("nothing to serve: -hosted-addr is empty and the other backends are not implemented yet")
	}

	h, err := mockserver.NewHosted(mockserver.HostedOptions{
		APIKeys:    []string{*apiKey},
		Clock:      clk,
		DataDir:    *dataDir,
		WebhookCAs: cas,
		Logger:     log,
	})
	if err != nil {
		return fail("%v", err)
	}
	defer func() {
		if err := h.Close(); err != nil {
			log.Error("closing the hosted mock", "error", err)
		}
	}()
	ln, err := net.Listen("tcp", *hostedAddr)
	if err != nil {
		return fail("-hosted-addr: %v", err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	base := "http://" + dialAddr(ln.Addr()) + "/v2"
	fmt.Fprintf(stdout, "hosted: %s\n", base)
	log.Info("serving", "backend", "hosted", "url", base, "time_scale", *timeScale)

	code := 0
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err := <-served:
		log.Error("hosted server stopped", "error", err)
		code = 1
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		log.Error("shutdown", "error", err)
		code = 1
		// Drop the connections still busy (a stalled upload): their
		// handlers fail fast, and the deferred h.Close waits for them
		// before it removes the data directory.
		_ = srv.Close()
	}
	return code
}

// dialAddr is addr as a client can dial it: a listener on every interface
// (":8080", "0.0.0.0:8080", "[::]:8080", which Go opens dual-stack) is
// reached on 127.0.0.1; "[::]" or "0.0.0.0" in a URL is not portable.
func dialAddr(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return addr.String()
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
}
