// Package pfcotel reports what the pfc-go clients do to OpenTelemetry:
// traces and metrics that follow the semantic conventions for HTTP
// clients. It is a pfc.Observer; pass it to any client with
// pfc.WithObserver:
//
//	obs, err := pfcotel.New(pfcotel.Options{TracerProvider: tp, MeterProvider: mp})
//	client, err := hosted.NewClient(key, pfc.WithBaseURL(url), pfc.WithObserver(obs))
//
// # Traces
//
// Each flow (hosted.CorrectFile, bgcontainer.RemoveBackground, ...) is a
// span; each HTTP attempt is a client span under it, named
// "{method} {url.template}" ("GET /status/{jobID}"; "PUT" alone for a
// pre-signed storage URL, which has no template), with
// http.request.method, url.template, server.address, server.port,
// http.request.resend_count (retries only), http.response.status_code
// and error.type; each wait before a retry is a "pfc.retry_wait" span
// beside the attempts, with its reason. A bulk run is a span
// ("hosted.bulk") and each of its items a span under it, the item's flow
// under that. A job's status changes are events ("pfc.job.status") of
// the span under way.
//
// The W3C trace context (the Options.Propagator's headers) is sent to the
// service's own endpoints only: never to a pre-signed storage URL, nor to
// a redirect that leaves the service's origin. A storage provider has no
// use for it, and the API documentation does not ask for it there.
//
// # Metrics
//
//   - http.client.request.duration (s): per attempt, by
//     http.request.method, url.template, http.response.status_code,
//     error.type, server.address, server.port and
//     http.request.resend_count (an attempt to a URL the service gave,
//     a pre-signed storage URL or a corrected file's, has no
//     url.template, and no server.address or server.port: the service
//     picks that host, per job if it likes; its span has them);
//   - pfc.jobs.started, pfc.jobs.finished, pfc.jobs.failed ({job}): by
//     pfc.api and pfc.job.status;
//   - pfc.job.processing.duration (s): the processing time the service
//     reports, by pfc.api;
//   - pfc.bulk.items.done, pfc.bulk.items.failed and
//     pfc.bulk.items.in_flight ({item}): by pfc.operation (the run's
//     name); an item cancelled with its run is neither done nor failed,
//     and one skipped as done by an earlier run is not counted.
//
// No metric attribute holds a job id, an image key, a file name or a URL:
// every value comes from a short fixed set. No attribute, span name or
// event holds a credential: the clients redact what they report.
//
// # Logs
//
// LogHandler wraps a slog.Handler so that each record made with a context
// carrying a span gets its trace_id and span_id; give the wrapped logger
// to pfc.WithLogger, whose request records already name the operation
// ("op") and its duration.
package pfcotel

import (
	"context"
	"errors"
	"net"
	"strconv"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/pfcsdk/pfc-go/pfc"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/pfcsdk/pfc-go/contrib/pfcotel"

// Options are the providers the Observer reports to; a nil one is
// OpenTelemetry's global one (otel.GetTracerProvider, ...).
type Options struct {
	// TracerProvider makes the spans.
	TracerProvider trace.TracerProvider
	// MeterProvider makes the metrics.
	MeterProvider metric.MeterProvider
	// Propagator writes the trace context into the requests to the
	// service (propagation.TraceContext{} for W3C trace context).
	Propagator propagation.TextMapPropagator
}

// Observer is a pfc.Observer that makes spans and metrics; it is safe
// for concurrent use by any number of clients. Make it with New: one
// that New did not make (the zero value, a nil pointer) reports nothing.
type Observer struct {
	pfc.NopObserver
	tracer trace.Tracer
	prop   propagation.TextMapPropagator

	requestDuration                       metric.Float64Histogram
	jobsStarted, jobsFinished, jobsFailed metric.Int64Counter
	jobProcessing                         metric.Float64Histogram
	itemsDone, itemsFailed                metric.Int64Counter
	itemsInFlight                         metric.Int64UpDownCounter
}

// New returns an Observer reporting to o's providers. It fails only when
// the meter refuses an instrument.
func New(o Options) (*Observer, error) {
	tp, mp, prop := o.TracerProvider, o.MeterProvider, o.Propagator
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	if prop == nil {
		prop = otel.GetTextMapPropagator()
	}
	ob := &Observer{
		tracer: tp.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL)),
		prop:   prop,
	}
	m := mp.Meter(ScopeName, metric.WithSchemaURL(semconv.SchemaURL))
	var errs []error
	var err error
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	ob.requestDuration, err = m.Float64Histogram("http.client.request.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of HTTP client requests."),
		metric.WithExplicitBucketBoundaries(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10))
	errs = append(errs, err)
	ob.jobsStarted = counter("pfc.jobs.started", "{job}", "Jobs submitted to the service.")
	ob.jobsFinished = counter("pfc.jobs.finished", "{job}", "Jobs seen to end with success.")
	ob.jobsFailed = counter("pfc.jobs.failed", "{job}", "Jobs seen to end with a failure.")
	ob.jobProcessing, err = m.Float64Histogram("pfc.job.processing.duration", metric.WithUnit("s"),
		metric.WithDescription("Processing time of finished jobs, as the service reports it."))
	errs = append(errs, err)
	ob.itemsDone = counter("pfc.bulk.items.done", "{item}", "Bulk run items done.")
	ob.itemsFailed = counter("pfc.bulk.items.failed", "{item}", "Bulk run items failed.")
	ob.itemsInFlight, err = m.Int64UpDownCounter("pfc.bulk.items.in_flight", metric.WithUnit("{item}"), metric.WithDescription("Bulk run items under way."))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return ob, nil
}

// off reports whether o was not made by New, and reports nothing.
func (o *Observer) off() bool { return o == nil || o.tracer == nil }

// Attribute keys of this package's own attributes.
const (
	keyAPI       = attribute.Key("pfc.api")
	keyJobStatus = attribute.Key("pfc.job.status")
	keyPrevious  = attribute.Key("pfc.job.previous_status")
	keyOp        = attribute.Key("pfc.operation")
	keyKind      = attribute.Key("pfc.operation.kind")
	keyItem      = attribute.Key("pfc.bulk.item")
	keyReason    = attribute.Key("pfc.retry.reason")
	keyAfter     = attribute.Key("pfc.retry.retry_after")
	keyAttempt   = attribute.Key("pfc.retry.attempt")
	keyRequestID = attribute.Key("pfc.request_id")
)

// StartOperation starts the span of a flow, a bulk run or a bulk item.
func (o *Observer) StartOperation(ctx context.Context, op *pfc.Operation) context.Context {
	if o.off() {
		return ctx
	}
	name := op.Name
	attrs := []attribute.KeyValue{keyKind.String(op.Kind)}
	if op.Kind == "item" {
		name += " item"
		attrs = append(attrs, keyItem.Int(op.Item))
		o.itemsInFlight.Add(ctx, 1, metric.WithAttributes(keyOp.String(op.Name)))
	}
	ctx, _ = o.tracer.Start(ctx, name, trace.WithTimestamp(op.Start), trace.WithAttributes(attrs...))
	return ctx
}

// EndOperation ends the span StartOperation started.
func (o *Observer) EndOperation(ctx context.Context, op *pfc.Operation) {
	if o.off() {
		return
	}
	span := trace.SpanFromContext(ctx)
	if op.Kind == "item" {
		set := metric.WithAttributes(keyOp.String(op.Name))
		o.itemsInFlight.Add(ctx, -1, set)
		switch {
		case op.Err == nil:
			o.itemsDone.Add(ctx, 1, set)
		case !errors.Is(op.Err, context.Canceled):
			// An item cancelled with its run is neither: a rerun does it.
			o.itemsFailed.Add(ctx, 1, set)
		}
	}
	if op.Err != nil {
		span.SetAttributes(semconv.ErrorTypeKey.String(errorType(0, op.Err)))
		span.SetStatus(codes.Error, op.Err.Error())
	}
	span.End(trace.WithTimestamp(op.Start.Add(op.Duration)))
}

// StartAttempt starts an attempt's client span and, for the service's own
// endpoints, sends the trace context with the request.
func (o *Observer) StartAttempt(ctx context.Context, a *pfc.Attempt) context.Context {
	if o.off() {
		return ctx
	}
	name := a.Method
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, semconv.HTTPRequestMethodKey.String(a.Method))
	if a.Route != "" {
		name += " " + a.Route
		attrs = append(attrs, semconv.URLTemplateKey.String(a.Route))
	}
	attrs = appendServer(attrs, a.Server)
	if a.Number > 1 {
		attrs = append(attrs, semconv.HTTPRequestResendCountKey.Int(a.Number-1))
	}
	ctx, _ = o.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(a.Start), trace.WithAttributes(attrs...))
	if a.Header != nil {
		o.prop.Inject(ctx, propagation.HeaderCarrier(a.Header))
	}
	return ctx
}

// EndAttempt ends the attempt's span and records its duration.
func (o *Observer) EndAttempt(ctx context.Context, a *pfc.Attempt) {
	if o.off() {
		return
	}
	span := trace.SpanFromContext(ctx)
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs, semconv.HTTPRequestMethodKey.String(a.Method))
	if a.Route != "" {
		attrs = append(attrs, semconv.URLTemplateKey.String(a.Route))
		// Not a pre-signed storage URL's host: the service picks it,
		// one per job if it likes, and the series would grow with them.
		attrs = appendServer(attrs, a.Server)
	}
	attrs = append(attrs, semconv.HTTPRequestResendCountKey.Int(a.Number-1))
	if a.Status != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCodeKey.Int(a.Status))
	}
	failed := a.Err != nil || a.Status >= 400
	if failed {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errorType(a.Status, a.Err)))
	}
	o.requestDuration.Record(ctx, a.Duration.Seconds(), metric.WithAttributes(attrs...))

	if a.Status != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCodeKey.Int(a.Status))
	}
	if a.RequestID != "" {
		span.SetAttributes(keyRequestID.String(a.RequestID))
	}
	if failed {
		span.SetAttributes(semconv.ErrorTypeKey.String(errorType(a.Status, a.Err)))
		if a.Err != nil {
			span.SetStatus(codes.Error, a.Err.Error())
		} else {
			span.SetStatus(codes.Error, "")
		}
	}
	span.End(trace.WithTimestamp(a.Start.Add(a.Duration)))
}

// RetryWait records the wait before a retry as a span of its own.
func (o *Observer) RetryWait(ctx context.Context, w *pfc.RetryWait) {
	if o.off() {
		return
	}
	attrs := []attribute.KeyValue{keyReason.String(w.Reason), keyAttempt.Int(w.Attempt), keyAfter.Bool(w.RetryAfter)}
	if w.Status != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCodeKey.Int(w.Status))
	}
	_, span := o.tracer.Start(ctx, "pfc.retry_wait", trace.WithTimestamp(w.Start), trace.WithAttributes(attrs...))
	span.End(trace.WithTimestamp(w.Start.Add(w.Duration)))
}

// JobUpdate counts jobs and adds a "pfc.job.status" event to the span
// under way.
func (o *Observer) JobUpdate(ctx context.Context, j *pfc.JobUpdate) {
	if o.off() {
		return
	}
	set := metric.WithAttributes(keyAPI.String(j.API), keyJobStatus.String(j.Status))
	switch {
	case j.Submitted:
		o.jobsStarted.Add(ctx, 1, set)
	case j.Terminal && j.Failed:
		o.jobsFailed.Add(ctx, 1, set)
	case j.Terminal:
		o.jobsFinished.Add(ctx, 1, set)
	}
	if j.ProcessingTime > 0 {
		o.jobProcessing.Record(ctx, j.ProcessingTime.Seconds(), metric.WithAttributes(keyAPI.String(j.API)))
	}
	attrs := []attribute.KeyValue{keyAPI.String(j.API), keyJobStatus.String(j.Status)}
	if j.Previous != "" {
		attrs = append(attrs, keyPrevious.String(j.Previous))
	}
	trace.SpanFromContext(ctx).AddEvent("pfc.job.status", trace.WithAttributes(attrs...))
}

// appendServer adds server.address and server.port of hostport.
func appendServer(attrs []attribute.KeyValue, hostport string) []attribute.KeyValue {
	if hostport == "" {
		return attrs
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return append(attrs, semconv.ServerAddressKey.String(hostport))
	}
	attrs = append(attrs, semconv.ServerAddressKey.String(host))
	if p, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, semconv.ServerPortKey.Int(p))
	}
	return attrs
}

// errorClasses are the words of errorType for the errors that match
// their sentinel, the first that matches.
var errorClasses = []struct {
	err  error
	word string
}{
	{context.Canceled, "canceled"},
	{context.DeadlineExceeded, "deadline_exceeded"},
	{pfc.ErrResponseHeaderTimeout, "timeout"},
	{pfc.ErrTruncatedResponse, "truncated_response"},
	{pfc.ErrUnreachable, "unreachable"},
	{pfc.ErrJobFailed, "job_failed"},
	{pfc.ErrWaitTimeout, "wait_timeout"},
	{pfc.ErrInvalidParameter, "invalid_parameter"},
	{pfc.ErrDownloadTooLarge, "download_too_large"},
	{pfc.ErrInvalidResponse, "invalid_response"},
}

// errorType is error.type: the status code for an error status, else one
// of a fixed set of words for err's class (never its text).
func errorType(status int, err error) string {
	if status >= 400 {
		return strconv.Itoa(status)
	}
	var apiErr *pfc.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode != 0 {
		return strconv.Itoa(apiErr.StatusCode)
	}
	for _, c := range errorClasses {
		if errors.Is(err, c.err) {
			return c.word
		}
	}
	return "_OTHER"
}
