package correct

// minBandRows keeps bands large enough that goroutine start-up stays
// negligible next to the work in a band.
const minBandRows = 32
