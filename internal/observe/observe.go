// Package observe runs the clients' pfc.Observer hooks around flows, bulk
// runs and bulk items, and keeps the name of the flow under way in the
// context, for the transport's log records ("op"). It is trace context,
// not request policy: nothing reads it but logs and observers.
package observe

import (
	"context"
	"reflect"
	"time"

	"github.com/pfcsdk/pfc-go/pfc"
)

// opKey carries the *pfc.Operation under way.
type opKey struct{}

// Kinds of operation (pfc.Operation.Kind).
const (
	KindFlow = "flow"
	KindBulk = "bulk"
	KindItem = "item"
)

// Start begins the operation name of kind when o is set or logging is
// on, and returns the context of its work and the operation to pass to
// End; with neither, or for a flow inside another flow, it returns ctx
// and nil, at no cost.
func Start(ctx context.Context, o pfc.Observer, logging bool, kind, name string) (context.Context, *pfc.Operation) {
	if ctx == nil || (o == nil && !logging) {
		return ctx, nil // a nil ctx is the flow's own error to report
	}
	if kind == KindFlow {
		if outer, ok := ctx.Value(opKey{}).(*pfc.Operation); ok && outer.Kind == KindFlow {
			return ctx, nil
		}
	}
	return StartOp(ctx, o, &pfc.Operation{Kind: kind, Name: name})
}

// StartOp is Start for an Operation already filled (an item's number).
func StartOp(ctx context.Context, o pfc.Observer, op *pfc.Operation) (context.Context, *pfc.Operation) {
	op.Start = time.Now()
	ctx = context.WithValue(ctx, opKey{}, op)
	if o != nil {
		if octx := o.StartOperation(ctx, op); octx != nil { // a nil one would end the flow
			if octx.Done() == nil && ctx.Done() != nil {
				// Not derived from ctx (built on context.Background):
				// the flow would outlive its caller.
				octx = detached{Context: octx, caller: ctx}
			}
			ctx = octx
		}
	}
	return ctx, op
}

// detached is the context an observer returned cut off from the caller's:
// its values, then the caller's, with the caller's cancellation.
type detached struct {
	context.Context
	caller context.Context
}

func (d detached) Deadline() (time.Time, bool) { return d.caller.Deadline() }
func (d detached) Done() <-chan struct{}       { return d.caller.Done() }
func (d detached) Err() error                  { return d.caller.Err() }
func (d detached) Value(key any) any {
	if v := d.Context.Value(key); v != nil {
		return v
	}
	return d.caller.Value(key)
}

// End reports op (nil: nothing) as ended with err.
func End(ctx context.Context, o pfc.Observer, op *pfc.Operation, err error) {
	if op == nil || o == nil {
		return
	}
	op.Duration, op.Err = time.Since(op.Start), err
	o.EndOperation(ctx, op)
}

// Name is the name of the operation ctx runs in; "" outside one.
func Name(ctx context.Context) string {
	if op, ok := ctx.Value(opKey{}).(*pfc.Operation); ok {
		return op.Name
	}
	return ""
}

// Of is the Observer a client's config holds (config.Config.Observer);
// nil when none is set, also for a nil pointer, map or func in the
// interface (WithObserver((*T)(nil))), whose methods would panic.
func Of(v any) pfc.Observer {
	o, _ := v.(pfc.Observer)
	if o == nil {
		return nil
	}
	switch rv := reflect.ValueOf(o); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Slice, reflect.Chan, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
	}
	return o
}
