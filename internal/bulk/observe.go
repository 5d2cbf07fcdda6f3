package bulk

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/pfcsdk/pfc-go/internal/observe"
	"github.com/pfcsdk/pfc-go/pfc"
)

// observeRun starts the run's operation for o.Observer and returns the
// run's context and the function that ends the run's operation; it wraps
// o.Start and o.Collect so that each item is reported as an operation
// under the run's. Without an observer it changes nothing.
func observeRun[R any](ctx context.Context, o *Options[R]) (context.Context, func(error)) {
	obs := o.Observer
	if obs == nil {
		return ctx, func(error) {}
	}
	ctx, run := observe.Start(ctx, obs, false, observe.KindBulk, o.Name)
	var n atomic.Int64
	item := func(ctx context.Context) (context.Context, *pfc.Operation) {
		return observe.StartOp(ctx, obs, &pfc.Operation{Kind: observe.KindItem, Name: o.Name, Item: int(n.Add(1))})
	}
	if start := o.Start; start != nil {
		o.Start = func(ctx context.Context, it Item, started Started) (v R, err error) {
			ctx, op := item(ctx)
			defer func() { observe.End(ctx, obs, op, err) }()
			return start(ctx, it, started)
		}
	}
	if collect := o.Collect; collect != nil {
		o.Collect = func(ctx context.Context, it Item, job json.RawMessage) (v R, err error) {
			ctx, op := item(ctx)
			defer func() { observe.End(ctx, obs, op, err) }()
			return collect(ctx, it, job)
		}
	}
	return ctx, func(err error) { observe.End(ctx, obs, run, err) }
}
