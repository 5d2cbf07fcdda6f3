package main

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/mockserver/hostedmock"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

// runHosted corrects cfg.in with the hosted API (the mock unless -url).
func runHosted(ctx context.Context, cfg config, onProgress func(progress)) (summary, error) {
	url, key := cfg.url, cfg.apiKey
	if url == "" {
		mock, err := hostedmock.New(hostedmock.Options{})
		if err != nil {
			return summary{}, err
		}
		defer mock.Close()
		base, stop, err := serveMock(mock)
		if err != nil {
			return summary{}, err
		}
		defer stop() // runs before mock.Close
		url, key = base+"/v2", hostedmock.DefaultAPIKey
	} else if key == "" {
		return summary{}, errors.New("-url needs -api-key (or $PFC_API_KEY)")
	}
	c, err := hosted.NewClient(key, append([]hosted.Option{pfc.WithBaseURL(url), withHTTP()}, hostedOpts...)...)
	if err != nil {
		return summary{}, err
	}
	rep, err := c.CorrectDir(ctx, cfg.in, cfg.out, hosted.NewCorrection(), &pfc.BulkOptions[*hosted.Job]{
		Concurrency: cfg.concurrency,
		RateLimit:   cfg.rate,
		Shard:       cfg.shard,
		MaxStarts:   cfg.maxStarts,
		DryRun:      cfg.dryRun,
		OnProgress: func(p pfc.BulkProgress) {
			onProgress(progress{total: p.Total, finished: p.Done + p.Failed + p.Skipped})
		},
	})
	if rep == nil {
		return summary{}, err
	}
	return summarize(rep, nil), err
}

// runContainer corrects cfg.in with the correction container (the mock
// unless -url), over HTTP or, with -direct, in direct file mode.
func runContainer(ctx context.Context, cfg config, onProgress func(progress)) (summary, error) {
	url, input, output := cfg.url, cfg.input, cfg.output
	if url == "" {
		// The mock's PFC_SITE_URL must be its own address, known once it
		// listens: serve through a handler set afterwards.
		var h forward
		base, stop, err := serveMock(&h)
		if err != nil {
			return summary{}, err
		}
		defer stop()
		mock, err := pfcmock.New(pfcmock.Options{SiteURL: base})
		if err != nil {
			return summary{}, err
		}
		defer mock.Close()
		h.set(mock)
		url, input, output = base, mock.InputDir(), mock.OutputDir()
	} else if cfg.direct && (input == "" || output == "") {
		return summary{}, errors.New("-direct with -url needs -input and -output (the host directories mounted as /input and /output)")
	}
	urls := strings.Split(url, ",")
	if cfg.direct && len(urls) > 1 {
		return summary{}, errors.New("-direct needs one -url: the mounted directories are one container's")
	}
	c, err := pfccontainer.NewClient(pfc.WithReplicas(urls...), withHTTP())
	if err != nil {
		return summary{}, err
	}
	defer c.CloseIdleConnections()
	c = c.RebaseCorrectedURLs()
	var lost lostReplicas
	b := &pfc.BulkOptions[*pfccontainer.Correction]{
		Concurrency: cfg.concurrency,
		RateLimit:   cfg.rate,
		Shard:       cfg.shard,
		MaxStarts:   cfg.maxStarts,
		DryRun:      cfg.dryRun,
		OnProgress: func(p pfc.BulkProgress) {
			onProgress(progress{total: p.Total, finished: p.Done + p.Failed + p.Skipped})
		},
		OnResult: func(r pfc.BulkResult[*pfccontainer.Correction]) {
			if corr := r.Result; corr != nil {
				lost.add(corr.LostReplicas)
			}
		},
	}
	var rep *pfc.BulkReport[*pfccontainer.Correction]
	if cfg.direct {
		rep, err = c.Direct(input, output).CorrectDir(ctx, cfg.in, cfg.out, nil, b)
	} else {
		rep, err = c.CorrectDir(ctx, cfg.in, cfg.out, nil, b)
	}
	if rep == nil {
		return summary{}, err
	}
	return summarize(rep, lost.list()), err
}

// lostReplicas collects the replicas a run found down, in order.
type lostReplicas struct {
	mu   sync.Mutex
	urls []string
}

func (l *lostReplicas) add(urls []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, u := range urls {
		if !slices.Contains(l.urls, u) {
			l.urls = append(l.urls, u)
		}
	}
}

func (l *lostReplicas) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.urls)
}

// runBG removes the backgrounds of cfg.in with the background-removal
// container (the mock unless -url) with the licence key cfg.licenseKey.
func runBG(ctx context.Context, cfg config, onProgress func(progress)) (summary, error) {
	url, key := cfg.url, cfg.licenseKey
	if url == "" {
		mock, err := bgmock.New(bgmock.Options{})
		if err != nil {
			return summary{}, err
		}
		defer mock.Close()
		base, stop, err := serveMock(mock)
		if err != nil {
			return summary{}, err
		}
		defer stop()
		url, key = base, bgmock.DefaultLicenseKey
	} else if key == "" {
		return summary{}, errors.New("-api bg with -url needs the licence key in -license-key (or $PFC_BG_LICENSE_KEY)")
	}
	c, err := bgcontainer.NewClient(key, append([]bgcontainer.Option{pfc.WithReplicas(strings.Split(url, ",")...), withHTTP()}, bgOpts...)...)
	if err != nil {
		return summary{}, err
	}
	defer c.CloseIdleConnections()
	var lost lostReplicas
	rep, err := c.RemoveDir(ctx, cfg.in, cfg.out, nil, &pfc.BulkOptions[*bgcontainer.Result]{
		Concurrency: cfg.concurrency,
		RateLimit:   cfg.rate,
		Shard:       cfg.shard,
		MaxStarts:   cfg.maxStarts,
		DryRun:      cfg.dryRun,
		Flow:        &pfc.FlowOptions{CleanupTimeout: cfg.cleanup},
		OnProgress: func(p pfc.BulkProgress) {
			onProgress(progress{total: p.Total, finished: p.Done + p.Failed + p.Skipped})
		},
		OnResult: func(r pfc.BulkResult[*bgcontainer.Result]) {
			if res := r.Result; res != nil {
				lost.add(res.LostReplicas)
			}
		},
	})
	if rep == nil {
		return summary{}, err
	}
	return summarize(rep, lost.list()), err
}

// forward serves through a handler set once it exists (503 before).
type forward struct{ h atomic.Pointer[http.Handler] }

// set makes h the handler.
func (f *forward) set(h http.Handler) { f.h.Store(&h) }

// ServeHTTP passes the request on, or answers 503 until set was called.
func (f *forward) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := f.h.Load(); h != nil {
		(*h).ServeHTTP(w, r)
		return
	}
	http.Error(w, "starting", http.StatusServiceUnavailable)
}

// summarize is what the report of a run says, for printing; lost are the
// replicas it found down.
func summarize[T any](rep *pfc.BulkReport[T], lost []string) summary {
	s := summary{done: rep.Done, failed: rep.Failed, skipped: rep.Skipped, interrupted: rep.Interrupted, elapsed: rep.Elapsed,
		lost: lost, started: rep.Started, collected: rep.Collected, redone: rep.Redone, notStarted: rep.NotStarted, usage: rep.Usage}
	for _, f := range rep.Failures {
		s.failures = append(s.failures, failure{f.Item.ID, f.Kind, f.Err.Error()})
	}
	if p := rep.Plan; p != nil {
		s.plan = &pfc.BulkPlan[any]{Process: p.Process, Done: p.Done, Collect: p.Collect}
		for _, r := range p.Refused {
			s.plan.Refused = append(s.plan.Refused, pfc.BulkResult[any]{Item: r.Item, Err: r.Err, Kind: r.Kind})
		}
	}
	return s
}

// httpClient, when set (by the crash test's child process), is the HTTP
// client of every API's client; hostedOpts and bgOpts are more options
// of the hosted and background-removal clients (its fast polling).
var (
	httpClient *http.Client
	hostedOpts []hosted.Option
	bgOpts     []bgcontainer.Option
)

// withHTTP is pfc.WithHTTPClient(httpClient): nil keeps the default.
func withHTTP() pfc.Option { return pfc.WithHTTPClient(httpClient) }
