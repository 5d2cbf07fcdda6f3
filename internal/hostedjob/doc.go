// Package hostedjob defines the hosted correction job record: the body of
// GET /status/{jobID} and of every webhook delivery. The hosted client
// re-exports its types as aliases (hosted.Job is Job), and the webhook
// package decodes deliveries into them, so that a webhook receiver shares
// the client's type without compiling the hosted client.
package hostedjob
