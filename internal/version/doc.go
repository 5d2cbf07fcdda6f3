// Package version holds the SDK version and the User-Agent it sends.
//
// Every request made by the SDK's clients carries the User-Agent
// "pfc-go/<Version>" (optionally followed by a caller-supplied product token),
// so operators of the hosted API and of the containers can tell SDK versions
// apart in their logs.
package version
