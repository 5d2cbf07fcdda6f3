package bulk

import (
	"context"
	"sync/atomic"

	"github.com/pfcsdk/pfc-go/internal/observe"
	"github.com/pfcsdk/pfc-go/pfc"
)

// observeRun starts the run's operation for o.Observer and returns the
// run's context, the work with each item reported as an operation under
// the run's, and the function that ends the run's. Without an observer
// it returns ctx and work as they are.
func observeRun[R any](ctx context.Context, o *Options[R], work func(context.Context, Item) (R, error)) (context.Context, func(context.Context, Item) (R, error), func(error)) {
	obs := o.Observer
	if obs == nil {
		return ctx, work, func(error) {}
	}
	ctx, run := observe.Start(ctx, obs, false, observe.KindBulk, o.Name)
	var n atomic.Int64
	items := func(ctx context.Context, it Item) (v R, err error) {
		ctx, op := observe.StartOp(ctx, obs, &pfc.Operation{Kind: observe.KindItem, Name: o.Name, Item: int(n.Add(1))})
		defer func() { observe.End(ctx, obs, op, err) }()
		return work(ctx, it)
	}
	return ctx, items, func(err error) { observe.End(ctx, obs, run, err) }
}
