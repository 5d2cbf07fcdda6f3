// Package webhooksend delivers the hosted mock's webhooks: an HTTPS POST of
// the exact job-record bytes with the signature headers, retried on a
// fixed schedule on the server's clock when the receiver fails.
package webhooksend
