package hostedsvc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/pfcsdk/pfc-go/mockserver/internal/activity"
	"github.com/pfcsdk/pfc-go/mockserver/internal/pfcdoc"
)

// cacheEntry is a stored result reusable by identical requests.
type cacheEntry struct {
	key       string
	blob      string
	ext, mime string
	fromJob   string
	dims      *dimensions
	usage     usage
	detection *detectionData
	crop      *cropRect
	expiry    *activity.Timer
}

// cacheKey identifies the effective request: the account, the file's
// content, the upload's and the request's fileType, the custom preset's
// and the background image's content, and the parsed request itself
// (canonically encoded) but for its ",mock" fields, which do not change
// the output; cache and webhookUrl, outside the request, do not either.
func cacheKey(j *job, fileSHA, bgSHA [sha256.Size]byte) string {
	req := j.q.req
	for _, f := range pfcdoc.Fields(&req) {
		if f.MockOnly {
			f.Value.SetZero()
		}
	}
	presetSHA := j.presetSHA // zero for the built-in groups
	k := struct {
		Account, File, FileType, PresetSHA, BgImage string
		// UploadType: a hit must not skip the check that the /pfc fileType
		// matches the upload's.
		UploadType string
		Request    JobRequest
	}{
		Account: j.account, File: hex.EncodeToString(fileSHA[:]), FileType: j.fileType, UploadType: j.upType,
		PresetSHA: hex.EncodeToString(presetSHA[:]), Request: req,
	}
	if b := req.Background; b != nil && b.Mode == BackgroundImage {
		k.BgImage = hex.EncodeToString(bgSHA[:])
	}
	raw, err := json.Marshal(k)
	if err != nil {
		return "" // not cached; parsed values always encode
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// storeCacheLocked remembers j's result for identical requests until the
// retention of the last job that used it ends. Called with s.mu held.
func (s *Service) storeCacheLocked(j *job) {
	if old := s.cache[j.cacheKey]; old != nil {
		s.dropCacheLocked(old)
	}
	e := &cacheEntry{key: j.cacheKey, blob: "c-" + j.cacheKey, ext: strings.TrimPrefix(j.resultName, "corrected."), mime: j.mime,
		fromJob: j.id, dims: j.dims, usage: *j.usage, detection: j.detection, crop: j.crop}
	if err := s.linkBlob(j.result, e.blob); err != nil {
		s.log.Warn("caching a result failed", "job", j.id, "error", err)
		return
	}
	s.cache[e.key] = e
	e.expiry = s.tracker.AfterFunc(s.cfg.Retention, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.cache[e.key] == e {
			s.dropCacheLocked(e)
		}
	})
}

func (s *Service) dropCacheLocked(e *cacheEntry) {
	e.expiry.Stop()
	delete(s.cache, e.key)
	_ = s.store.Remove(e.blob)
}

// completeFromCacheLocked completes j at once with the cached result e:
// a new job id and URL, the cached record's data, statusText naming the
// job that produced it; the webhook is sent as for any completion.
// Called with s.mu held.
func (s *Service) completeFromCacheLocked(j *job, e *cacheEntry) {
	s.removeInputs(j)
	j.resultName = "corrected." + e.ext
	j.result = "r-" + j.id + "." + e.ext
	if err := s.linkBlob(e.blob, j.result); err != nil {
		j.result = ""
		j.status, j.code, j.statusText = StatusFailed, JobCodeProcessingFailed, "reading the cached result failed"
	} else {
		j.status, j.statusText = StatusCompleted, "cache hit: result of job "+e.fromJob
		j.corrected = j.base + FilesRoute + j.id + "/" + j.resultName
		j.mime = e.mime
		// The entry lives as long as the newest job that uses it.
		e.expiry.Stop()
		e.expiry = s.tracker.AfterFunc(s.cfg.Retention, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.cache[e.key] == e {
				s.dropCacheLocked(e)
			}
		})
	}
	j.startedAt = j.createdAt
	taken := 0.0
	j.timeTaken = &taken
	j.dims, j.detection, j.crop = e.dims, e.detection, e.crop
	u := e.usage
	j.usage = &u
	s.publishLocked(j)
	s.log.Info("job completed from cache", "job", j.id, "from", e.fromJob)
}
