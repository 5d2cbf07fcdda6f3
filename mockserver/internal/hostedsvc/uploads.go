package hostedsvc

import (
	"crypto/sha256"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
	"github.com/pfcsdk/pfc-go/mockserver/internal/blobstore"
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
	key        string
	account    string
	fileType   string
	urlExpires time.Time
	uploaded   bool
	blob       string // blob name once uploaded
	size       int64
	sha        [sha256.Size]byte
	expiry     *activity.Timer
}

// UploadTicket is the answer of GET /upload.
type UploadTicket struct {
	FileKey   string `json:"fileKey"`   // names the file on /pfc
	UploadURL string `json:"uploadUrl"` // pre-signed PUT URL
}

// RequestUpload issues a fileKey and a pre-signed PUT URL for it (GET
// /upload). q is the request's query: only fileType is allowed.
func (s *Service) RequestUpload(account string, q url.Values, base string) (*UploadTicket, *APIError) {
	if err := onlyParams(q, "fileType"); err != nil {
		return nil, err
	}
	fileType, err := parseFileType(q)
	if err != nil {
		return nil, err
	}
	key := newID(16)
	exp := s.now().Add(s.cfg.UploadURLTTL)
	u := &upload{key: key, account: account, fileType: fileType, urlExpires: exp}
	s.mu.Lock()
	s.uploads[key] = u
	// An unused ticket is forgotten when its URL expires.
	u.expiry = s.tracker.AfterFunc(s.cfg.UploadURLTTL+time.Second, func() { s.expireUpload(u) })
	s.mu.Unlock()
	path := UploadRoute + key
	return &UploadTicket{FileKey: key, UploadURL: base + path + "?" + s.signer.Query(http.MethodPut, path, exp)}, nil
}

func parseFileType(q url.Values) (string, *APIError) {
	v, present, err := single(q, "fileType")
	if err != nil {
		return "", err
	}
	if !present {
		return FileTypeImage, nil
	}
	if v != FileTypeImage && v != FileTypeVideo {
		return "", paramErr(CodeInvalidParameter, "fileType", "must be one of image, video, got %q", v)
	}
	return v, nil
}

func (s *Service) expireUpload(u *upload) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.uploads[u.key] != u {
		return
	}
	delete(s.uploads, u.key)
	if u.blob != "" {
		_ = s.store.Remove(u.blob)
	}
}

// verifySigned checks a pre-signed URL; the error is the 403 answer.
func (s *Service) verifySigned(method, path string, q url.Values) *APIError {
	err := s.signer.Verify(method, path, q, s.now())
	switch {
	case err == nil:
		return nil
	case errors.Is(err, blobstore.ErrExpired):
		return apiErr(http.StatusForbidden, CodeURLExpired, "the pre-signed URL has expired")
	default:
		return apiErr(http.StatusForbidden, CodeForbidden, "the pre-signed URL's signature is invalid")
	}
}

// receiveLimited checks the declared length and streams body to a
// temporary blob, enforcing limit. The caller has called beginReceive.
func (s *Service) receiveLimited(body io.Reader, contentLength, limit int64) (*blobstore.Temp, *APIError) {
	if contentLength > limit {
		return nil, apiErr(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "Content-Length %d exceeds the limit of %d bytes", contentLength, limit)
	}
	tmp, err := s.store.Receive(body, limit)
	switch {
	case err == nil:
		return tmp, nil
	case errors.Is(err, blobstore.ErrTooLarge):
		return nil, apiErr(http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "the body exceeds the limit of %d bytes", limit)
	case s.ctx.Err() != nil:
		// Close aborted the body (abortBodyOnClose).
		return nil, unavailable()
	case errors.Is(err, blobstore.ErrRead):
		return nil, apiErr(http.StatusBadRequest, CodeInvalidBody, "%v", err)
	default:
		return nil, s.internalErr(err)
	}
}

// beginReceive registers a body being received as running work, so that
// Close waits for it before its owner removes the data directory; false
// (answer 503) once Close has begun. A true call is matched by
// s.tracker.End.
func (s *Service) beginReceive() bool {
	return s.ctx.Err() == nil && s.tracker.Begin()
}

// ReceiveUpload stores the body of a PUT to a pre-signed upload URL. The
// signature and expiry are checked before a byte is read; the body is
// streamed to disk and only renamed into place when complete and within
// the size limit of the ticket's file type. A second PUT replaces the file
// for jobs started afterwards.
func (s *Service) ReceiveUpload(key string, q url.Values, body io.Reader, contentLength int64) *APIError {
	path := UploadRoute + key
	if err := s.verifySigned(http.MethodPut, path, q); err != nil {
		return err
	}
	if !s.beginReceive() {
		return unavailable()
	}
	defer s.tracker.End()
	s.mu.Lock()
	u := s.uploads[key]
	s.mu.Unlock()
	if u == nil {
		// Validly signed, so issued here: the ticket has been forgotten
		// because it expired (on the clock, which -time-scale speeds up,
		// while the signature compares wall-clock seconds).
		return apiErr(http.StatusForbidden, CodeURLExpired, "the pre-signed URL has expired")
	}
	limit := int64(MaxImageBytes)
	if u.fileType == FileTypeVideo {
		limit = MaxVideoBytes
	}
	tmp, aerr := s.receiveLimited(body, contentLength, limit)
	if aerr != nil {
		return aerr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.uploads[key] != u {
		tmp.Discard()
		return apiErr(http.StatusForbidden, CodeURLExpired, "the pre-signed URL has expired")
	}
	name := "u-" + key
	if _, err := s.store.Commit(tmp.Path, name); err != nil {
		return s.internalErr(err)
	}
	u.uploaded, u.blob, u.size, u.sha = true, name, tmp.Size, tmp.SHA256
	u.expiry.Stop()
	u.expiry = s.tracker.AfterFunc(UploadRetention, func() { s.expireUpload(u) })
	s.log.Info("upload stored", "fileKey", key, "fileType", u.fileType, "bytes", tmp.Size)
	return nil
}

// onlyParams answers 400 for a query parameter not in allowed, or one
// given more than once.
func onlyParams(q url.Values, allowed ...string) *APIError {
	for _, name := range slices.Sorted(maps.Keys(q)) {
		vs := q[name]
		known := false
		for _, a := range allowed {
			if a == name {
				known = true
				break
			}
		}
		if !known {
			return paramErr(CodeUnknownParameter, name, "is not a parameter of this endpoint")
		}
		if len(vs) > 1 {
			return paramErr(CodeInvalidParameter, name, "must be given at most once")
		}
	}
	return nil
}

// single returns the one value of name, whether it is present, or a 400
// if it is repeated.
func single(q url.Values, name string) (string, bool, *APIError) {
	vs, ok := q[name]
	if !ok {
		return "", false, nil
	}
	if len(vs) != 1 {
		return "", true, paramErr(CodeInvalidParameter, name, "must be given at most once")
	}
	return vs[0], true, nil
}
