package blobstore

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// Query parameters of a signed URL.
const (
	ParamExpires   = "expires"
	ParamSignature = "signature"
)

// Sentinel errors of Verify.
var (
	// ErrBadSignature: the signature is missing, malformed, or does not
	// match the method, path and expiry (a tampered URL).
	ErrBadSignature = errors.New("blobstore: invalid URL signature")
	// ErrExpired: the signature is valid but the URL has expired.
	ErrExpired = errors.New("blobstore: URL expired")
)

// Signer signs and verifies URLs with HMAC-SHA256 over the HTTP method,
// the URL path and the expiry time (unix seconds).
type Signer struct {
	key []byte
}

// NewSigner returns a signer keyed with key; an empty key gets a random
// 32-byte key, so URLs are valid only for this process.
func NewSigner(key []byte) (*Signer, error) {
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("blobstore: signing key: %w", err)
		}
	}
	return &Signer{key: append([]byte(nil), key...)}, nil
}

func (s *Signer) mac(method, path string, expires int64) []byte {
	m := hmac.New(sha256.New, s.key)
	fmt.Fprintf(m, "%s\n%s\n%d", method, path, expires)
	return m.Sum(nil)
}

// Query returns the query string ("expires=...&signature=...") that
// authorises method on path until expires, in whole seconds: the URL is
// valid through the second expires falls in. expires and the now given to
// Verify are readings of one clock, so a caller whose timers are scaled
// (clock.Scaled, whose Now is the wall clock) scales the validity to wall
// time before adding it to Now.
func (s *Signer) Query(method, path string, expires time.Time) string {
	exp := expires.Unix()
	v := url.Values{}
	v.Set(ParamExpires, strconv.FormatInt(exp, 10))
	v.Set(ParamSignature, base64.RawURLEncoding.EncodeToString(s.mac(method, path, exp)))
	return v.Encode()
}

// Verify checks that q authorises method on path at time now. It returns
// nil, an error wrapping ErrBadSignature, or one wrapping ErrExpired. The
// signature is checked first, so an edited expiry is a bad signature.
func (s *Signer) Verify(method, path string, q url.Values, now time.Time) error {
	expStr, sigStr := q.Get(ParamExpires), q.Get(ParamSignature)
	if expStr == "" || sigStr == "" || len(q[ParamExpires]) != 1 || len(q[ParamSignature]) != 1 {
		return fmt.Errorf("%w: expires and signature are required once each", ErrBadSignature)
	}
	exp, err := strconv.ParseInt(expStr, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: malformed expires", ErrBadSignature)
	}
	sig, err := base64.RawURLEncoding.DecodeString(sigStr)
	if err != nil {
		return fmt.Errorf("%w: malformed signature", ErrBadSignature)
	}
	if !hmac.Equal(sig, s.mac(method, path, exp)) {
		return fmt.Errorf("%w: signature does not match", ErrBadSignature)
	}
	if now.Unix() > exp {
		return fmt.Errorf("%w at %s", ErrExpired, time.Unix(exp, 0).UTC().Format(time.RFC3339))
	}
	return nil
}
