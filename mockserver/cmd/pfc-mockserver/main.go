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
//	-license-key     licence key of the background-removal container mock (default
//	                 test-license-key); the correction container's licence is the
//	                 file in its sdk_license mount, not a key
//	-data-dir        directory for uploaded and corrected files (default: a temporary
//	                 directory); each backend creates a private subdirectory, removed on exit
//	-time-scale      factor applied to every simulated duration (default 1; 0.001
//	                 runs the 48-minute webhook retry schedule in under 3 seconds);
//	                 timestamps (job records, webhook-timestamp) stay wall-clock, and
//	                 the 30 s webhook attempt timeout, which bounds a real network
//	                 exchange, is not scaled
//	-webhook-ca      PEM file of CAs trusted for webhook delivery, besides the system roots
//	-memory-budget   memory of the images processed at once by each backend: a size
//	                 with a unit, B, KB, MB, GB, TB (powers of 1000) or KiB, MiB,
//	                 GiB, TiB (powers of 1024), such as 2GiB or 500MB; a bare number
//	                 is bytes (default 1200MB of live heap, about 2 GB of heap with
//	                 the collector's headroom). Each image counts what decoding and
//	                 processing it hold (a 400×300 JPEG's background removal about
//	                 70 MB); the container mocks refuse an image over the whole
//	                 budget, naming this flag, the hosted mock runs it alone
//	-pixel-budget    deprecated: the same budget in units of 6 bytes, what the engine
//	                 holds a pixel of an ordinary 8-bit image; -pixel-budget N is
//	                 -memory-budget of N×6 bytes, and a warning on stderr says so.
//	                 It cannot be combined with -memory-budget
//	-body-timeout    how long a request body may stall without a byte before the
//	                 connection is cut off (default 1m)
//	-rate-limit      requests per second each API key (hosted API requests only, not
//	                 its pre-signed uploads and result files) or each client address
//	                 (containers) may send, one second's worth at once; above it
//	                 the answer is 429 rate_limited with a Retry-After in whole
//	                 seconds (default 0: no limit). Every replica of a fleet counts
//	                 on its own
//	-faults          fault-injection spec, e.g. "rate=0.2,kinds=503|429|reset|latency,seed=7"
//	                 or per backend "rate=0.1;bg:kinds=102|503" (default: none); see
//	                 "Fault injection" in package mockserver for the grammar, the kinds
//	                 and the routes
//	-bg-processing-delay  how long each background-removal job stays processing
//	                 after its engine returned (default 0; scaled by -time-scale),
//	                 keeping its place in -memory-budget as a slower engine would
//	-bg-engine       background-removal engine of the hosted mock (its background
//	                 option) and the background-removal container, one engine
//	                 shared by both: cpu, cuda or auto (default auto in
//	                 a build with -tags cuda, cpu otherwise); cuda fails at startup
//	                 where it cannot run (a build without the tag, no CUDA driver
//	                 or device), auto falls back to cpu and logs why; the log's
//	                 "background-removal engine" line says which one runs
//	-container-root  directory holding the correction container's mount points
//	                 (sdk_license, presets, addons, input, output, scene), kept on
//	                 exit; default: a private tree under -data-dir (or the system's
//	                 temporary directory), removed on exit
//	-bg-replicas, -container-replicas  how many independent replicas of that
//	                 container to serve (default 1), a fleet standing in for
//	                 several hosts: each has its own state, data directory (with
//	                 -container-root, its subdirectory replica-<i>) and licence
//	                 activation, listens on the address's port plus its index
//	                 (port 0: a free port each), and tags its JSON log lines with
//	                 "replica": <i>
//
// The correction container mock reads the container's environment
// variables (PFC_SITE_URL, PFC_LOG_LEVEL, PFC_IMG_CACHE_TTL, PFC_AVX,
// PFC_USE_FASTFAE, PFC_SKIP_MODE, PFC_SKIP_EXIF_SOFTWARE,
// PFC_PRESERVE_INPUT_FILENAME, PFC_ENABLE_COMPOSITE, PFC_USE_AI_SERVER)
// with the container's defaults and writes its JSON log lines (message
// ids) to stderr. Like the container, it builds corrected_url on
// PFC_SITE_URL; unset, it is the mock's own URL (the printed one), not the
// container's default http://localhost, so corrected URLs open as
// printed. A root the command creates
// gets a valid mock licence, so the mock corrects out of the box.
//
// An empty address disables that backend; port 0 picks a free port. When
// ready, the command prints one line per backend on stdout, in this
// order, once its listener is open:
//
//	hosted: http://127.0.0.1:8080/v2
//	container: http://127.0.0.1:8081
//	bg: http://127.0.0.1:8000
//
// and logs JSON to stderr (one key once per line; levels debug, info,
// warning and error, as the container spells them); a listener on every interface (":8080") is
// printed as 127.0.0.1. A fleet prints one line per replica, in replica
// order ("bg: http://127.0.0.1:8000", "bg: http://127.0.0.1:8001", ...).
//
// Timeouts: request headers must arrive within 30 seconds, and an idle
// keep-alive connection is closed after 2 minutes. There is deliberately
// no overall read timeout, which would cut off a legitimate multi-GB
// upload on a slow link; instead a request body that stalls for
// -body-timeout without a single byte is cut off (answered 400
// invalid_body). Responses have no write timeout either (downloads of
// large results), but a client that stops reading is dropped by the
// operating system's TCP timeouts.
//
// SIGINT or SIGTERM shut it down cleanly (exit status 0): requests in
// flight get 10 seconds to finish, then their connections are closed
// (exit status 1), and the data directories are removed once nothing
// writes to them any more.
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
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
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

// Server timeouts (see the command documentation).
const (
	readHeaderTimeout  = 30 * time.Second
	idleTimeout        = 2 * time.Minute
	defaultBodyTimeout = time.Minute
)

// env is what every backend's constructor gets: the values of the shared
// flags.
type env struct {
	apiKey       string
	licenseKey   string
	dataDir      string
	clock        clock.Clock
	webhookCAs   *x509.CertPool
	memoryBudget int64
	faults       *mockserver.FaultSpec // nil: none
	// rateLimit is -rate-limit: requests per second per API key or
	// client address, 0 for none.
	rateLimit float64
	// bgEngine is the background-removal engine of the hosted mock and
	// the background-removal container.
	bgEngine mockserver.BGEngine
	log      *slog.Logger
	// url is the backend's listener as clients dial it ("http://host:port",
	// no path); the listener is open before the backend is constructed.
	url string
	// stderr receives the container mock's own JSON log lines.
	stderr io.Writer
	// replica is the index of the replica being built, and replicas how
	// many of its backend are served (1: no fleet).
	replica, replicas int
}

// served is a constructed backend.
type served struct {
	handler http.Handler
	// path is appended to the listener's URL in the printed line ("/v2"
	// for the hosted API).
	path string
	// close releases the backend after its http.Server has shut down;
	// nil if there is nothing to release.
	close func() error
}

// backend is one entry of the list of mocks the command serves. To add a
// backend, add an entry to backends: its name (the stdout line's prefix),
// its address flag and default, and a setup function that registers the
// backend's own flags (if any) and returns its constructor, which run
// calls after the flags are parsed and only if the address is not empty.
type backend struct {
	name        string
	addrFlag    string
	defaultAddr string
	usage       string
	// replicasFlag, when set, names the flag giving how many independent
	// replicas of the backend to serve (default 1).
	replicasFlag string
	setup        func(fs *flag.FlagSet) func(env) (*served, error)
}

// backends are served in this order; each prints "<name>: <URL>".
var backends = []backend{
	{name: "hosted", addrFlag: "hosted-addr", defaultAddr: "127.0.0.1:8080",
		usage: "listen address of the hosted API v2 mock", setup: setupHosted},
	{name: "container", addrFlag: "container-addr", defaultAddr: "127.0.0.1:8081",
		usage: "listen address of the correction container mock", setup: setupContainer, replicasFlag: "container-replicas"},
	{name: "bg", addrFlag: "bg-addr", defaultAddr: "127.0.0.1:8000",
		usage: "listen address of the background-removal container mock", setup: setupBG, replicasFlag: "bg-replicas"},
}

func setupHosted(*flag.FlagSet) func(env) (*served, error) {
	return func(e env) (*served, error) {
		h, err := hostedmock.New(hostedmock.Options{
			APIKeys:      []string{e.apiKey},
			Clock:        e.clock,
			DataDir:      e.dataDir,
			WebhookCAs:   e.webhookCAs,
			MemoryBudget: e.memoryBudget,
			Faults:       e.faults,
			RateLimit:    e.rateLimit,
			Logger:       e.log.With("backend", "hosted"),
			BGEngine:     e.bgEngine,
		})
		if err != nil {
			return nil, err
		}
		return &served{handler: h, path: "/v2", close: h.Close}, nil
	}
}

// setupContainer registers -container-root and returns the correction
// container mock's constructor: its PFC_* settings come from the
// environment, as the real container's do, and its mount points are
// directories under the root (default: a private tree, removed on exit,
// under -data-dir or the system's temporary directory). A root the command
// creates gets a valid mock licence in sdk_license; an existing one given
// with -container-root is used as it is, and kept (no licence there:
// corrected images equal the originals).
// Its JSON log lines go to stderr, filtered by PFC_LOG_LEVEL.
func setupContainer(flags *flag.FlagSet) func(env) (*served, error) {
	root := flags.String("container-root", "", "directory holding the correction container's mount points (sdk_license, presets, addons, input, output, scene), kept on exit; default: a private tree under -data-dir, removed on exit")
	return func(e env) (*served, error) {
		o, err := pfcmock.OptionsFromEnv(os.Getenv)
		if err != nil {
			return nil, err
		}
		o.Root = *root
		if o.Root != "" && e.replicas > 1 {
			o.Root = filepath.Join(o.Root, fmt.Sprintf("replica-%d", e.replica))
		}
		if os.Getenv("PFC_SITE_URL") == "" {
			// corrected_url opens as printed: on the listener's own URL
			// rather than the container's default, http://localhost.
			o.SiteURL = e.url
		}
		// Under -data-dir the tree is the run's own, like the other
		// backends' data: a private subdirectory, removed on exit. (A fixed
		// <data-dir>/container was shared by two runs on one data
		// directory, and the first to exit removed it under the other.)
		private := ""
		if o.Root == "" && e.dataDir != "" {
			if private, err = os.MkdirTemp(e.dataDir, "container-*"); err != nil {
				return nil, err
			}
			// Not there yet, so the mock creates it with a licence.
			o.Root = filepath.Join(private, "container")
		}
		o.Clock, o.LogWriter, o.Faults, o.MemoryBudget, o.RateLimit = e.clock, e.stderr, e.faults, e.memoryBudget, e.rateLimit
		c, err := pfcmock.New(o)
		if err != nil {
			if private != "" {
				_ = os.RemoveAll(private)
			}
			return nil, err
		}
		e.log.Info("correction container mock", "root", c.Root(), "site_url", c.SiteURL())
		closeFn := c.Close
		if private != "" {
			closeFn = func() error { return errors.Join(c.Close(), os.RemoveAll(private)) }
		}
		return &served{handler: c, close: closeFn}, nil
	}
}

// listener is a backend being served.
type listener struct {
	name   string
	srv    *http.Server
	served *served
}

// stop is a server's Serve returning: on shutdown, or on a failure.
type stop struct {
	name string
	err  error
}

// run is the whole command; it returns the exit status. It serves until
// ctx is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pfc-mockserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addrs := make([]*string, len(backends))
	counts := make([]*int, len(backends))
	ctors := make([]func(env) (*served, error), len(backends))
	for i, b := range backends {
		addrs[i] = fs.String(b.addrFlag, b.defaultAddr, b.usage+"; empty disables it")
		counts[i] = new(int)
		*counts[i] = 1
		if b.replicasFlag != "" {
			fs.IntVar(counts[i], b.replicasFlag, 1, "how many independent replicas of the "+b.name+" backend to serve, on consecutive ports (own state, data and licence activation)")
		}
		ctors[i] = b.setup(fs)
	}
	apiKey := fs.String("api-key", hostedmock.DefaultAPIKey, "API key of the hosted mock")
	licenseKey := fs.String("license-key", "test-license-key", "licence key of the background-removal container mock")
	dataDir := fs.String("data-dir", "", "directory for uploaded and corrected files (default: a temporary directory)")
	timeScale := fs.Float64("time-scale", 1, "factor applied to every simulated duration (0.001 = a thousand times faster)")
	webhookCA := fs.String("webhook-ca", "", "PEM file of CAs trusted for webhook delivery, besides the system roots")
	memBudget := byteSize(mockserver.DefaultMemoryBudget)
	fs.Var(&memBudget, "memory-budget", "memory the images processed at once by each backend may hold, a `size` such as 2GiB or 500MB: B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), a bare number is bytes; the container mocks refuse an image over it, naming this flag, the hosted mock runs it alone")
	pixelBudget := fs.Int64("pixel-budget", 0, fmt.Sprintf("deprecated: use -memory-budget; `N` pixels are N×%d bytes of -memory-budget", pixelBytes))
	faultSpec := fs.String("faults", "", `fault-injection spec, e.g. "rate=0.2,kinds=503|429|reset|latency,seed=7" (default: none)`)
	rateLimit := fs.Float64("rate-limit", 0, "requests per second each API key (hosted) or client address (containers) may send; above it the answer is 429 with Retry-After (default 0: no limit)")
	bodyTimeout := fs.Duration("body-timeout", defaultBodyTimeout, "how long a request body may stall without a byte before the connection is cut off")
	bgEngine := fs.String("bg-engine", defaultBGEngine(),
		"background-removal engine shared by the hosted mock and the background-removal container: cpu, cuda (the GPU; needs a build with -tags cuda, a CUDA driver and device) or auto (the GPU where it can run, else cpu)")
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
	log := newLogger(stderr)
	fail := func(format string, args ...any) int {
		log.Error(fmt.Sprintf(format, args...))
		return 2
	}
	if *apiKey == "" {
		return fail("-api-key must not be empty")
	}
	if *licenseKey == "" {
		return fail("-license-key must not be empty")
	}
	budget, deprecated, err := memoryBudget(fs, memBudget, *pixelBudget)
	if err != nil {
		return fail("%v", err)
	}
	if deprecated != "" {
		log.Warn(deprecated)
	}
	if *rateLimit < 0 || math.IsNaN(*rateLimit) || math.IsInf(*rateLimit, 0) {
		return fail("-rate-limit must be a positive, finite number of requests per second (0: no limit), got %v", *rateLimit)
	}
	if *bodyTimeout <= 0 {
		return fail("-body-timeout must be positive, got %v", *bodyTimeout)
	}
	total := 0
	for i, b := range backends {
		if n := *counts[i]; n < 1 || n > maxReplicas {
			return fail("-%s must be between 1 and %d, got %d", b.replicasFlag, maxReplicas, n)
		}
		total += *counts[i]
	}
	e := env{apiKey: *apiKey, licenseKey: *licenseKey, dataDir: *dataDir, clock: clock.Real(), memoryBudget: budget, rateLimit: *rateLimit, bgEngine: mockserver.BGEngine(*bgEngine), log: log, stderr: stderr}
	if *faultSpec != "" {
		spec, err := mockserver.ParseFaults(*faultSpec)
		if err != nil {
			return fail("-faults: %v", err)
		}
		e.faults = spec
		log.Warn("fault injection on", "faults", spec.String())
	}
	if *timeScale != 1 {
		scaled, err := clock.NewScaled(*timeScale)
		if err != nil {
			return fail("-time-scale: %v", err)
		}
		e.clock = scaled
	}
	if *webhookCA != "" {
		pem, err := os.ReadFile(*webhookCA)
		if err != nil {
			return fail("-webhook-ca: %v", err)
		}
		cas, err := x509.SystemCertPool()
		if err != nil || cas == nil {
			cas = x509.NewCertPool()
		}
		if !cas.AppendCertsFromPEM(pem) {
			return fail("-webhook-ca: no PEM certificate found in %s", *webhookCA)
		}
		e.webhookCAs = cas
	}
	if *dataDir != "" {
		if err := os.MkdirAll(*dataDir, 0o700); err != nil {
			return fail("-data-dir: %v", err)
		}
	}
	enabled := 0
	for _, a := range addrs {
		if *a != "" {
			enabled++
		}
	}
	if enabled == 0 {
		return fail("nothing to serve: every listen address is empty")
	}

	var running []*listener
	stopped := make(chan stop, total)
	// Shut down in reverse order of start: each http.Server first, so no
	// request is in flight, then its backend (which removes its data).
	defer func() {
		for i := len(running) - 1; i >= 0; i-- {
			if c := running[i].served.close; c != nil {
				if err := c(); err != nil {
					log.Error("closing a backend", "backend", running[i].name, "error", err)
				}
			}
		}
	}()
	for i, b := range backends {
		if *addrs[i] == "" {
			continue
		}
		n := *counts[i]
		for r := range n {
			er := e
			er.replica, er.replicas = r, n
			attrs := []any{"backend", b.name}
			if n > 1 {
				er.log = e.log.With("replica", r)
				er.stderr = httpx.ReplicaLogWriter(e.stderr, r)
				attrs = append(attrs, "replica", r)
			}
			addr, err := replicaAddr(*addrs[i], r)
			if err != nil {
				shutdown(running, log)
				return fail("-%s: %v", b.addrFlag, err)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				shutdown(running, log)
				return fail("-%s: %v", b.addrFlag, err)
			}
			er.url = "http://" + dialAddr(ln.Addr())
			s, err := ctors[i](er)
			if err != nil {
				_ = ln.Close()
				shutdown(running, log)
				return fail("%s: %v", b.name, err)
			}
			l := &listener{name: b.name, served: s, srv: &http.Server{
				Handler:           httpx.BodyProgressTimeout(*bodyTimeout, s.handler),
				ReadHeaderTimeout: readHeaderTimeout,
				IdleTimeout:       idleTimeout,
				ErrorLog:          slog.NewLogLogger(er.log.Handler(), slog.LevelWarn),
			}}
			running = append(running, l)
			go func() { stopped <- stop{b.name, l.srv.Serve(ln)} }()
			base := er.url + s.path
			fmt.Fprintf(stdout, "%s: %s\n", b.name, base)
			log.Info("serving", append(attrs, "url", base, "time_scale", *timeScale)...)
		}
	}

	code := 0
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case st := <-stopped:
		log.Error("a server stopped", "backend", st.name, "error", st.err)
		code = 1
	}
	if !shutdown(running, log) {
		code = 1
	}
	return code
}

// shutdown stops every server, giving the requests in flight
// shutdownTimeout to finish, then closing the connections still busy (a
// stalled upload): their handlers fail fast, and the backends' Close
// (deferred in run) waits for them before removing the data directories.
// It reports whether everything finished in time.
func shutdown(running []*listener, log *slog.Logger) bool {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	ok := true
	for _, l := range running {
		if err := l.srv.Shutdown(ctx); err != nil {
			log.Error("shutdown", "backend", l.name, "error", err)
			ok = false
			_ = l.srv.Close()
		}
	}
	return ok
}

// maxReplicas bounds -bg-replicas and -container-replicas.
const maxReplicas = 64

// replicaAddr is the listen address of replica r of a backend listening on
// addr: the same host, the port plus r (port 0: each a free port).
func replicaAddr(addr string, r int) (string, error) {
	if r == 0 {
		return addr, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return "", fmt.Errorf("replica %d needs a numeric port in %q", r, addr)
	}
	if p == 0 {
		return addr, nil // each a free port
	}
	if p+r > 65535 {
		return "", fmt.Errorf("port %d of replica %d is out of range", p+r, r)
	}
	return net.JoinHostPort(host, strconv.Itoa(p+r)), nil
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
