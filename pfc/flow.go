package pfc

import "time"

// FlowOptions are the client-side controls of a one-call flow, the same for
// every client: Correct and CorrectFile of hosted and pfccontainer (and
// pfccontainer's Direct.CorrectFile), bgcontainer RemoveBackground and RemoveBackgroundFile (and each file of
// a bulk run, through BulkOptions.Flow). nil or the zero value keeps the
// client's settings. A field the flow cannot honour is refused with a
// *ValidationError naming it, never ignored.
type FlowOptions struct {
	// Wait replaces the client's WithPolling for this call: delays,
	// MaxWait and OnProgress (the progress callback). Not for
	// pfccontainer, whose correction is one synchronous request.
	Wait *WaitOptions
	// MaxDownloadSize bounds this call's download instead of the client's
	// WithMaxDownloadSize; 0 keeps the client's bound.
	MaxDownloadSize int64
	// KeepJob leaves the job on the background-removal container instead
	// of removing it (bgcontainer only).
	KeepJob bool
	// CleanupTimeout bounds the removal of the job that ends a bgcontainer
	// flow, on a context of its own so that it also runs after the call's
	// context ended; 0 means 10 s (bgcontainer only).
	CleanupTimeout time.Duration
}
