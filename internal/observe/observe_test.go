package observe

import (
	"context"
	"testing"

	"github.com/pfcsdk/pfc-go/pfc"
)

type ptrObserver struct{ pfc.NopObserver }

// TestOfNilPointer: a nil pointer given as the observer is no observer,
// not one whose methods panic.
func TestOfNilPointer(t *testing.T) {
	t.Parallel()
	if o := Of((*ptrObserver)(nil)); o != nil {
		t.Fatalf("Of((*T)(nil)) = %v, want nil", o)
	}
	if Of(nil) != nil || Of("not an observer") != nil {
		t.Fatal("Of of no observer is not nil")
	}
	if Of(&ptrObserver{}) == nil {
		t.Fatal("Of lost an observer")
	}
}

// TestStartNested: a flow inside a flow is not reported again; a flow
// inside an item is, and the name is found for logs.
func TestStartNested(t *testing.T) {
	t.Parallel()
	var names []string
	o := &nameLog{names: &names}
	ctx, outer := Start(context.Background(), o, false, KindFlow, "hosted.CorrectFile")
	if _, inner := Start(ctx, o, false, KindFlow, "hosted.Correct"); inner != nil {
		t.Fatal("a nested flow was started")
	}
	if Name(ctx) != "hosted.CorrectFile" {
		t.Fatalf("Name = %q", Name(ctx))
	}
	End(ctx, o, outer, nil)
	ictx, item := StartOp(context.Background(), o, &pfc.Operation{Kind: KindItem, Name: "hosted.bulk", Item: 1})
	if _, f := Start(ictx, o, false, KindFlow, "hosted.CorrectFile"); f == nil {
		t.Fatal("the flow of an item was not started")
	}
	End(ictx, o, item, nil)
	//lint:ignore SA1012 a nil ctx on purpose: the flow reports it, Start must not panic
	if ctx, op := Start(nil, o, true, KindFlow, "x"); ctx != nil || op != nil {
		t.Fatal("a nil ctx started an operation")
	}
	want := []string{"hosted.CorrectFile", "hosted.bulk", "hosted.CorrectFile"}
	if len(names) != len(want) {
		t.Fatalf("started %v, want %v", names, want)
	}
}

type nameLog struct {
	pfc.NopObserver
	names *[]string
}

func (n *nameLog) StartOperation(ctx context.Context, op *pfc.Operation) context.Context {
	*n.names = append(*n.names, op.Name)
	return ctx
}

type nilCtxObserver struct{ pfc.NopObserver }

func (nilCtxObserver) StartOperation(context.Context, *pfc.Operation) context.Context { return nil }

// TestStartKeepsContext: an observer that returns a nil context does not
// take the flow's away.
func TestStartKeepsContext(t *testing.T) {
	t.Parallel()
	ctx, op := Start(context.Background(), nilCtxObserver{}, false, KindFlow, "hosted.Correct")
	if ctx == nil || op == nil {
		t.Fatalf("Start = %v, %v", ctx, op)
	}
	if Name(ctx) != "hosted.Correct" {
		t.Fatalf("Name = %q", Name(ctx))
	}
}

type spanKey struct{}

// detachingObserver returns a context of its own, not derived from the
// flow's: it carries its span but neither the caller's cancellation nor
// the operation.
type detachingObserver struct{ pfc.NopObserver }

func (detachingObserver) StartOperation(context.Context, *pfc.Operation) context.Context {
	return context.WithValue(context.Background(), spanKey{}, "span")
}

// TestStartKeepsCancellation: an observer that returns a context cut off
// from the flow's (built on context.Background) does not take away the
// caller's cancellation, deadline or the operation's name; its own
// values stay.
func TestStartKeepsCancellation(t *testing.T) {
	t.Parallel()
	parent, cancel := context.WithCancel(context.Background())
	ctx, _ := Start(parent, detachingObserver{}, false, KindFlow, "hosted.Correct")
	cancel()
	select {
	case <-ctx.Done():
	default:
		t.Fatal("the flow's context is not cancelled with the caller's")
	}
	if ctx.Err() != context.Canceled {
		t.Fatalf("Err = %v", ctx.Err())
	}
	if Name(ctx) != "hosted.Correct" {
		t.Fatalf("Name = %q", Name(ctx))
	}
	if ctx.Value(spanKey{}) != "span" {
		t.Fatal("the observer's value is lost")
	}
}
