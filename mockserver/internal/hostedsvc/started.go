package hostedsvc

// JobsStarted returns how many jobs the service started since it was
// created: GET /v2/pfc answers that started a job, from the cache included.
func (s *Service) JobsStarted() int { return int(s.started.Load()) }
