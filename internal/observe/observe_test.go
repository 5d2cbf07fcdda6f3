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
