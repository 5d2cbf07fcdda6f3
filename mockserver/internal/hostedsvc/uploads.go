package hostedsvc

import (
	"crypto/sha256"
	"errors"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/clock"
	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
	"github.com/pfcsdk/pfc-go/mockserver/internal/blobstore"
	"github.com/pfcsdk/pfc-go/mockserver/internal/httpx"
)

// Routes of the storage behind pre-signed URLs (no API key).
const (
	UploadRoute = "/storage/upload/"  // + fileKey
	PresetRoute = "/storage/presets/" // + presetId
	FilesRoute  = "/files/"           // + jobID + "/" + name
)

// File types of GET /upload and /pfc.
const (
	FileTypeImage = "image"
	FileTypeVideo = "video"
)

type upload struct {
	key      string
	account  string
	fileType string
	uploaded bool
	blob     string // blob name once uploaded
	size     int64
	sha      [sha256.Size]byte
	expiry   *activity.Timer
	// receiving counts the PUTs whose body is being received; while one
	// is, the expiry waits (expireDeferred) until the last one ends: a
	// PUT that arrived while the URL was valid completes, as on object
	// stores. One that stores the file cancels the deferred expiry (the
	// file's retention starts).
	receiving      int
	expireDeferred bool
}

// UploadTicket is the answer of GET /upload.
type UploadTicket struct {
	FileKey   string `json:"fileKey"`   // names the file on /pfc
	UploadURL string `json:"uploadUrl"` // pre-signed PUT URL
}

// RequestUpload issues a fileKey and a pre-signed PUT URL for it (GET
// /upload). q is the request's query: only fileType is allowed.
func (s *Service) RequestUpload(account string, q url.Values, base string) (*UploadTicket, *httpx.Error) {
	if err := httpx.OnlyParams(q, "fileType"); err != nil {
		return nil, err
	}
	fileType, err := parseFileType(q)
	if err != nil {
		return nil, err
	}
	key := httpx.NewID(16)
	exp := s.urlExpiry()
	u := &upload{key: key, account: account, fileType: fileType}
	s.mu.Lock()
	s.uploads[key] = u
	// An unused ticket is forgotten when its URL expires: after the TTL
	// on the clock, plus the second through which the URL's expires
	// (unix seconds) stays valid.
	u.expiry = s.tracker.AfterFunc(s.cfg.UploadURLTTL+time.Second, func() { s.expireUpload(u) })
	s.mu.Unlock()
	path := UploadRoute + key
	return &UploadTicket{FileKey: key, UploadURL: base + path + "?" + s.signer.Query(http.MethodPut, path, exp)}, nil
}

func parseFileType(q url.Values) (string, *httpx.Error) {
	v, present, err := httpx.Single(q, "fileType")
	if err != nil {
		return "", err
	}
	if !present {
		return FileTypeImage, nil
	}
	if v != FileTypeImage && v != FileTypeVideo {
		return "", httpx.ParamError(http.StatusBadRequest, httpx.CodeInvalidParameter, "fileType", "must be one of image, video, got %q", v)
	}
	return v, nil
}

func (s *Service) expireUpload(u *upload) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireUploadLocked(u)
}

func (s *Service) expireUploadLocked(u *upload) {
	if s.uploads[u.key] != u {
		return
	}
	if u.receiving > 0 {
		u.expireDeferred = true
		return
	}
	delete(s.uploads, u.key)
	if u.blob != "" {
		_ = s.store.Remove(u.blob)
	}
}

// urlExpiry is the expiry of a pre-signed URL issued now: UploadURLTTL
// on the clock, as a reading of its Now (which Verify compares with). A
// clock.Scaled's timers scale durations but its Now is the wall clock, so
// the TTL is scaled to wall time: the URL expires with the ticket that
// the clock forgets after the TTL (at -time-scale 0.001 a 1-hour URL
// expires after 3.6 s, with 1000 after 1000 hours). The expiry has whole
// second precision on Now: a URL stays valid through the second it
// expires in.
func (s *Service) urlExpiry() time.Time {
	ttl := s.cfg.UploadURLTTL
	if sc, ok := s.cfg.Clock.(*clock.Scaled); ok {
		ttl = sc.Scale(ttl)
	}
	return s.now().Add(ttl)
}

// verifySigned checks a pre-signed URL; the error is the 403 answer.
func (s *Service) verifySigned(method, path string, q url.Values) *httpx.Error {
	err := s.signer.Verify(method, path, q, s.now())
	switch {
	case err == nil:
		return nil
	case errors.Is(err, blobstore.ErrExpired):
		return httpx.Errorf(http.StatusForbidden, httpx.CodeURLExpired, "the pre-signed URL has expired")
	default:
		return httpx.Errorf(http.StatusForbidden, httpx.CodeForbidden, "the pre-signed URL's signature is invalid")
	}
}

// receiveLimited streams body to a temporary blob within limit (see
// httpx.ReceiveLimited). The caller has called beginSignedReceive.
func (s *Service) receiveLimited(body io.Reader, contentLength, limit int64) (*blobstore.Temp, *httpx.Error) {
	tmp, err := httpx.ReceiveLimited(s.ctx, s.store, body, contentLength, limit)
	if err != nil {
		return nil, httpx.AsError(s.log, err)
	}
	return tmp, nil
}

// beginSignedReceive checks the pre-signed PUT URL of path (signature and
// expiry, when the request arrives: 403) and registers the body about to
// be received as running work, so that Close waits for it before its
// owner removes the data directory (503 once Close has begun). The caller
// calls end when the body has been handled.
func (s *Service) beginSignedReceive(path string, q url.Values) (end func(), _ *httpx.Error) {
	if err := s.verifySigned(http.MethodPut, path, q); err != nil {
		return nil, err
	}
	if s.closing() || !s.tracker.Begin() {
		return nil, httpx.Unavailable()
	}
	return s.tracker.End, nil
}

// ReceiveUpload stores the body of a PUT to a pre-signed upload URL. The
// signature and expiry are checked when the request arrives, before a
// byte is read, as object stores do: an upload that started while the URL
// was valid completes however long its body takes. The body is streamed
// to disk and only renamed into place when complete and within the size
// limit of the ticket's file type. A second PUT replaces the file for jobs
// started afterwards.
func (s *Service) ReceiveUpload(key string, q url.Values, body io.Reader, contentLength int64) *httpx.Error {
	end, aerr := s.beginSignedReceive(UploadRoute+key, q)
	if aerr != nil {
		return aerr
	}
	defer end()
	s.mu.Lock()
	u := s.uploads[key]
	if u != nil {
		u.receiving++
	}
	s.mu.Unlock()
	if u == nil {
		// Validly signed, so issued here: the ticket has been forgotten
		// because it expired. (Under a time scale that speeds the clock
		// up, the second of slack after the TTL is shorter on the
		// ticket's timer than the signature's whole expiry second.)
		return httpx.Errorf(http.StatusForbidden, httpx.CodeURLExpired, "the pre-signed URL has expired")
	}
	limit := int64(MaxImageBytes)
	if u.fileType == FileTypeVideo {
		limit = MaxVideoBytes
	}
	tmp, aerr := s.receiveLimited(body, contentLength, limit)
	s.mu.Lock()
	defer s.mu.Unlock()
	u.receiving--
	if aerr == nil {
		aerr = s.storeUploadLocked(u, tmp)
	}
	if u.receiving == 0 && u.expireDeferred {
		u.expireDeferred = false
		if aerr != nil {
			s.expireUploadLocked(u)
		}
	}
	return aerr
}

// storeUploadLocked puts a received body in place as u's file and starts
// its retention. Called with s.mu held.
func (s *Service) storeUploadLocked(u *upload, tmp *blobstore.Temp) *httpx.Error {
	if s.uploads[u.key] != u {
		tmp.Discard()
		return httpx.Errorf(http.StatusForbidden, httpx.CodeURLExpired, "the pre-signed URL has expired")
	}
	name := "u-" + u.key
	if _, err := s.store.Commit(tmp.Path, name); err != nil {
		return s.internalErr(err)
	}
	u.uploaded, u.blob, u.size, u.sha = true, name, tmp.Size, tmp.SHA256
	// The stored file has its own retention: an expiry deferred by the
	// PUTs in flight is void, so one of them failing later does not
	// remove it.
	u.expireDeferred = false
	u.expiry.Stop()
	u.expiry = s.tracker.AfterFunc(UploadRetention, func() { s.expireUpload(u) })
	s.log.Info("upload stored", "fileKey", u.key, "fileType", u.fileType, "bytes", tmp.Size)
	return nil
}
