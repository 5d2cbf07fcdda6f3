// Package jobqueue is the bounded job runner shared by the mock backends
// (hosted jobs, container corrections, background-removal jobs): a fixed
// pool of workers takes jobs in submission order; a job is Queued until a
// worker starts it, then Processing until its function returns.
//
// Admission is bounded twice: by the number of workers, and by a memory
// budget, because decoding and correcting an image costs memory in
// proportion to its pixels (a 14000×14000 PNG costs about 1.7 GB). Each
// job declares its cost in the budget's unit, bytes in every mock (the
// hosted mock counts its pixels at imageio.BudgetPixelBytes each, the
// container mocks what decoding and processing hold, see
// imageio.Header.MemoryCost); the job at the head of the queue starts
// only when its cost fits in what the running jobs leave of the budget,
// and the jobs behind it wait (first come, first served, so a large job is
// not starved by small ones). A job larger than the whole budget runs
// alone, when nothing else runs, rather than never (the container mocks
// refuse such an image before it reaches the queue).
//
// A queued job can be cancelled (it is removed and never runs); a running
// one has its context cancelled. Close cancels everything and waits for
// the workers. Every job counts as running work of the backend's
// activity.Tracker from Submit until it ends, so the tracker's WaitIdle
// waits for queued jobs too.
package jobqueue
