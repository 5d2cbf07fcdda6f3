// Package replicas is the replica list of a container client
// (pfccontainer, bgcontainer): the several instances of one container
// that a user runs behind Kubernetes, Docker Swarm or a plain list of
// hosts. It discovers them, chooses one for new work, keeps each job on
// the replica that accepted it and sets aside the ones that fail. It has
// no scheduler: the orchestration is the user's, the client only uses the
// replicas. Its only goroutines are the re-resolutions and probes that
// Pick starts, each bounded by 10 s, so a client dropped by its user
// leaves nothing running past that and needs no Close.
//
// # Discovery
//
// A List is built from static base URLs (Options.Targets, each with an
// optional weight) or from one base URL whose host name resolves to
// several addresses (Options.Host: a Kubernetes headless Service). Each
// address gives one replica, the URL with the host replaced by the address
// (port, scheme and path kept). URLs are compared by Key: spellings of one
// URL ("HTTP://A.TEST.:1", "http://a.test:1/.", "[0:0:0:0:0:0:0:1]" and
// "[::1]") are one replica, and
// Weights and ByURL take any of them. The name is resolved when the list
// is made and again, in the background, once Options.ResolveEvery has passed
// (default 30s) when a replica is next chosen; a failed re-resolution keeps
// the current set. Replicas whose address disappeared take no new work but
// keep serving the jobs bound to them.
//
// # Choice
//
// Pick returns the replica with the fewest calls in flight relative to its
// weight (in-flight+1 over weight, smallest first; ties rotate), so a
// replica of weight 4 takes four times the work of one of weight 1 and N
// equal replicas are kept equally busy (a weight is at most MaxWeight and
// the products are taken in int64, so that this arithmetic cannot
// overflow, also where int has 32 bits). Set-aside replicas are skipped
// unless no other is left, so a list of one URL behaves as a single URL.
//
// # Health
//
// The client reports each call's outcome. Failure counts a call that
// never reached the replica (connection refused, dial or DNS failure), that
// got no answer within the response header timeout (a replica that accepts
// connections and hangs) or that was answered 5xx (as the Policy counts
// them); Options.Threshold consecutive failures (default 3)
// set the replica aside, as SetAside does at once. A replica set aside
// waits a backoff (Options.MinBackoff doubling to Options.MaxBackoff,
// defaults 1s and 1min), then the next Pick runs Options.Probe on it in
// the background (GET /Status for the background-removal container, GET
// /version for the correction container); a successful probe readmits it
// and resets its backoff, a failed one doubles the backoff.
//
// # Affinity
//
// Bind records which replica holds a job or image key, Lookup finds it
// again (a bounded map, oldest entries dropped first, Options.MaxBound,
// default 100,000), and ByURL finds a replica by its base URL (what a
// bulk manifest records). Send asks each replica in turn about a key bound
// to none (those taking work first, then those whose address vanished,
// then those set aside) and binds it only to one whose answer shows that
// it holds the key: a 2xx answer must also pass the Policy's Check (be of
// the documented shape). A replica whose call failed as above (no answer
// in time, a 5xx) or whose 2xx failed the Check (a proxy's HTML page,
// counted as a failure) is passed over, not taken as the answer; when no replica
// holds the key, the first such failure is returned rather than another
// replica's "not here". A call that every replica answers alike (GET
// /Status, GET /version: Endpoint.Move is transport.MoveAny) goes to the
// least busy one, and on to the next while calls fail as above; one that
// did not answer it in time is set aside at once. New work
// (transport.MoveUnsent) moves to the next replica only while it provably
// never reached one. A flow's calls pass their Flow, pinned to one replica
// (Flow.Pin); a flow that does its work again elsewhere when its replica
// is lost is Movable, and a call of it that never reaches the replica then
// ends at once instead of being retried there (SendOptions.FailOver, the
// router's state of one call, passed to the transport beside the Request).
// Such a flow also takes a call that got no answer within the response
// header timeout (Unanswered) as its replica lost: it sets it aside and
// does the work again elsewhere; and so, without setting it aside, a step
// that ended with a 5xx its Policy counts against the replica
// (Policy.Sick), once its retries are spent.
package replicas
